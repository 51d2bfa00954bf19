-- Which servers broke their callers most in the last year: counted release
-- steps whose newer release was published (else captured) in the twelve
-- months before the newest such date in the data, ranked by the steps that broke a caller
-- with a proven change. Runs on the dataset's Parquet files
-- (docs/dataset.md) from the folder holding data/:
--   duckdb -c ".read sql/site/broke_most.sql"
WITH steps AS (
    SELECT *, coalesce(published_at, captured_at) AS released
    FROM 'data/v1/release_steps.parquet'
),
recent AS (
    SELECT * FROM steps
    WHERE counted AND released > (SELECT max(released) FROM steps) - INTERVAL 1 YEAR
)
SELECT server_id,
       count(*) FILTER (WHERE proven > 0) AS steps_with_proven_break,
       count(*) AS steps,
       sum(proven) AS proven_changes,
       sum(breaking) AS breaking_changes
FROM recent
GROUP BY server_id
HAVING steps_with_proven_break > 0
ORDER BY steps_with_proven_break DESC, proven_changes DESC, server_id
LIMIT 10;
