-- Breaking changes per server per release (the new side of each diffed
-- pair), in version order: the survey's "breaks over versions" picture.
WITH releases AS (
    SELECT server_id, version, min(version_key) AS version_key
    FROM manifests GROUP BY server_id, version
)
SELECT p.server_id, p.new_version AS version, sum(p.breaking) AS breaking,
       sum(p.changes) AS changes
FROM pairs p
LEFT JOIN releases r ON r.server_id = p.server_id AND r.version = p.new_version
WHERE p.error IS NULL
GROUP BY p.server_id, p.new_version, r.version_key
ORDER BY p.server_id, r.version_key
