-- The capture passes' own time, from the crawl log: per pass (the client
-- identity it sent), the attempts and the time they spent installing and
-- capturing, summed over attempts in hours (attempts ran concurrently, so
-- the wall time was shorter), and the first and last attempt.
SELECT client, count(*) AS attempts,
       round(sum(coalesce(install_ms, 0)) / 3.6e6, 2) AS install_h,
       round(sum(coalesce(capture_ms, 0)) / 3.6e6, 2) AS capture_h,
       round(sum(duration_ms) / 3.6e6, 2) AS total_h,
       min(attempted_at) AS first_attempt, max(attempted_at) AS last_attempt
FROM attempts
GROUP BY client
ORDER BY min(attempted_at), client
