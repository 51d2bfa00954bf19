-- The site's index: one row per server the lake attempted or holds a
-- capture of (an ingested folder may come without its crawl log), with its
-- releases (sql/releases.sql), its release steps (sql/release_steps.sql)
-- and how many of the counted ones broke a caller with a proven change.
-- break_rate: proven-break steps over counted steps (null with no counted step).
WITH attempted AS (
    SELECT server_id, count(DISTINCT version) AS attempted
    FROM (SELECT server_id, version FROM attempts UNION SELECT server_id, version FROM manifests)
    GROUP BY server_id
),
released AS (
    SELECT server_id, count(*) AS releases, arg_max(version, position) AS latest_version,
           max(published_at) AS last_published
    FROM releases GROUP BY server_id
),
stepped AS (
    SELECT server_id, count(*) AS steps, count(*) FILTER (WHERE counted) AS counted,
           count(*) FILTER (WHERE counted AND proven > 0) AS proven_breaks,
           count(*) FILTER (WHERE counted AND breaking > 0) AS breaking_steps
    FROM release_steps GROUP BY server_id
)
SELECT a.server_id, a.attempted, coalesce(r.releases, 0) AS releases, r.latest_version,
       r.last_published, coalesce(s.steps, 0) AS steps, coalesce(s.counted, 0) AS counted,
       coalesce(s.proven_breaks, 0) AS proven_breaks, coalesce(s.breaking_steps, 0) AS breaking_steps,
       s.proven_breaks / nullif(s.counted, 0) AS break_rate
FROM attempted a
LEFT JOIN released r USING (server_id)
LEFT JOIN stepped s USING (server_id)
ORDER BY a.server_id
