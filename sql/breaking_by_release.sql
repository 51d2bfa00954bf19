-- Breaking changes per release and rule: how many, on which entities, and
-- how many a witness proves (a concrete call or result the break rejects).
-- The README's table of the real-world sample is this query.
WITH releases AS (
    SELECT server_id, version, min(version_key) AS version_key
    FROM manifests GROUP BY server_id, version
)
SELECT c.server_id, c.old_version, c.new_version, c.rule,
       count(*) AS changes,
       count(c.witness_json) AS witnessed,
       list(DISTINCT coalesce(c.entity, '(server)') ORDER BY coalesce(c.entity, '(server)')) AS entities
FROM changes c
LEFT JOIN releases r ON r.server_id = c.server_id AND r.version = c.new_version
WHERE c.severity = 'BREAKING' AND NOT c.suppressed
GROUP BY c.server_id, c.old_version, c.new_version, c.rule, r.version_key
ORDER BY c.server_id, r.version_key, c.old_version, c.rule  -- every pair of releases: many from one release to another
