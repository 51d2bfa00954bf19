-- The servers that ever shipped a break: of the servers with at least one
-- counted release step, how many had a step that broke a caller with a
-- proven change (a witness a validator confirmed), how many with any
-- BREAKING change (proven, by rule or unexplained), and the shares.
WITH s AS (
    SELECT server_id, count(*) FILTER (WHERE counted) AS counted,
           count(*) FILTER (WHERE counted AND proven > 0) AS broke_proven,
           count(*) FILTER (WHERE counted AND breaking > 0) AS broke
    FROM release_steps GROUP BY server_id
)
SELECT count(*) FILTER (WHERE counted > 0) AS servers_with_steps,
       count(*) FILTER (WHERE broke_proven > 0) AS servers_broke_proven,
       count(*) FILTER (WHERE broke > 0) AS servers_broke,
       round(100.0 * servers_broke_proven / nullif(servers_with_steps, 0), 1) AS servers_broke_proven_pct,
       round(100.0 * servers_broke / nullif(servers_with_steps, 0), 1) AS servers_broke_pct
FROM s
