-- Version pairs of every earlier capture with every later one, per server
-- (`survey --pairs all`): each release against each later release. Pairs
-- of identical contracts are never diffed, a contract pair seen twice is
-- diffed once. `cached` marks a pair the ledger already holds for this
-- engine and policy: it is not diffed again.
-- Parameters: $engine_version, $policy_hash, $since (timestamp or NULL).
WITH ranked AS (
    SELECT server_id, version, manifest_digest, captured_at,
           row_number() OVER (PARTITION BY server_id ORDER BY version_key, captured_at) AS position
    FROM manifests
    WHERE ok
),
candidates AS (
    SELECT a.server_id, a.version AS old_version, b.version AS new_version,
           a.manifest_digest AS old_digest, b.manifest_digest AS new_digest
    FROM ranked a
    JOIN ranked b ON a.server_id = b.server_id AND a.position < b.position
    WHERE a.manifest_digest <> b.manifest_digest
      AND ($since IS NULL OR b.captured_at >= $since)
    QUALIFY row_number() OVER (PARTITION BY a.server_id, a.manifest_digest, b.manifest_digest
                               ORDER BY a.position, b.position) = 1
)
SELECT c.*,
       EXISTS (SELECT 1 FROM pairs p
               WHERE p.server_id = c.server_id AND p.old_digest = c.old_digest
                 AND p.new_digest = c.new_digest AND p.engine_version = $engine_version
                 AND p.policy_hash = $policy_hash AND p.error IS NULL) AS cached
FROM candidates c
ORDER BY c.server_id, c.old_version, c.new_version
