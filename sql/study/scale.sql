-- The survey's size, beside a single-snapshot capture's: servers and
-- releases captured, the tools of each server's latest captured release,
-- and the distinct tool definitions seen over every release (a tool's
-- name, description and schemas, per server: the whole tool's hash).
-- Beside them, the published single snapshot's own figures, quoted.
WITH latest AS (
    SELECT server_id, arg_max(digest, version_key) AS digest FROM releases GROUP BY server_id
),
seen AS (
    SELECT DISTINCT t.server_id, t.tool_hash
    FROM tools t SEMI JOIN releases r ON r.server_id = t.server_id AND r.digest = t.manifest_digest
)
SELECT (SELECT count(DISTINCT server_id) FROM releases) AS servers,
       (SELECT count(*) FROM releases) AS releases,
       (SELECT count(*) FROM tools t SEMI JOIN latest l
            ON l.server_id = t.server_id AND l.digest = t.manifest_digest) AS latest_tools,
       (SELECT count(*) FROM seen) AS tool_definitions,
       922 AS snapshot_packages, 359 AS snapshot_reachable, 9922 AS snapshot_tool_schemas
