-- Every unsuppressed BREAKING change: which server, between which versions,
-- which rule, on which entity; in release order per server.
WITH releases AS (
    SELECT server_id, version, min(version_key) AS version_key
    FROM manifests GROUP BY server_id, version
)
SELECT c.server_id, c.old_version, c.new_version, c.rule, c.entity, c.path, c.message
FROM changes c
LEFT JOIN releases r ON r.server_id = c.server_id AND r.version = c.new_version
WHERE c.severity = 'BREAKING' AND NOT c.suppressed
ORDER BY c.server_id, r.version_key, c.old_version, c.path, c.rule
