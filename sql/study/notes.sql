-- Advisory judge notes attached to this survey's prose changes, by judge
-- (none when no judge was configured): how many, and how many a judge
-- thought security relevant. Notes never change a severity.
SELECT judge, count(*) AS notes, count(*) FILTER (WHERE security_relevant) AS security_relevant
FROM notes GROUP BY judge ORDER BY judge
