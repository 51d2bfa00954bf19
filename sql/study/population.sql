-- The candidates by class (the study's --population file, the table
-- `population`): how many, from each registry, and how many of them the
-- servers file surveys; the last row (class NULL) all of them.
SELECT class,
       count(*) AS candidates,
       count(*) FILTER (WHERE registry = 'npm') AS npm,
       count(*) FILTER (WHERE registry = 'pypi') AS pypi,
       count(server_id) AS surveyed
FROM population
GROUP BY ROLLUP (class)
ORDER BY class IS NULL, CASE class WHEN 'server' THEN 0 WHEN 'excluded' THEN 1 ELSE 2 END, class
