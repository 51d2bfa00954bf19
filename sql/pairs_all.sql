-- Version pairs of every earlier capture with every later one, per server
-- (`survey --pairs all`): each release against each later release. Pairs
-- of identical contracts are never diffed, a contract pair seen twice is
-- diffed once. Which of them the ledger already
-- holds for this engine and policy is added by the diff stage (one place).
-- Parameter: $since (timestamp or NULL).
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
SELECT * FROM candidates
ORDER BY server_id, old_version, new_version
