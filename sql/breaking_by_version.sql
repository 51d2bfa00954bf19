-- Breaking changes per server per release (the new side of each diffed
-- pair), in version order, with the date the release came out (its publish
-- date where the crawl log has one, else its first capture): the survey's
-- "breaks over time" picture; `proven`: of its breaking changes, those a
-- witness proves (a validator confirmed it).
WITH dated AS (
    SELECT server_id, version, min(version_key) AS version_key,
           min(coalesce(published_at, captured_at)) AS released_at
    FROM releases GROUP BY server_id, version
)
SELECT p.server_id, p.new_version AS version, sum(p.breaking) AS breaking, sum(p.witnessed) AS proven,
       sum(p.changes) AS changes, r.released_at
FROM pairs p
LEFT JOIN dated r ON r.server_id = p.server_id AND r.version = p.new_version
WHERE p.error IS NULL
GROUP BY p.server_id, p.new_version, r.version_key, r.released_at
ORDER BY p.server_id, r.version_key
