-- Version pairs of every capture with its server's latest (`survey --pairs
-- latest`): how far each release is from today's contract, which is what a
-- caller pinned to that release meets on upgrading. Pairs of identical
-- contracts are never diffed, a contract pair seen twice is diffed once.
-- Which of them the ledger already holds for this engine and policy is added
-- by the diff stage (one place). Parameter: $since (timestamp or NULL).
WITH ranked AS (
    SELECT server_id, version, manifest_digest, captured_at,
           row_number() OVER (PARTITION BY server_id ORDER BY version_key DESC, captured_at DESC) AS from_latest
    FROM manifests
    WHERE ok
),
candidates AS (
    SELECT a.server_id, a.version AS old_version, b.version AS new_version,
           a.manifest_digest AS old_digest, b.manifest_digest AS new_digest
    FROM ranked a
    JOIN ranked b ON a.server_id = b.server_id AND b.from_latest = 1 AND a.from_latest > 1
    WHERE a.manifest_digest <> b.manifest_digest
      AND ($since IS NULL OR b.captured_at >= $since)
    QUALIFY row_number() OVER (PARTITION BY a.server_id, a.manifest_digest, b.manifest_digest
                               ORDER BY a.from_latest DESC) = 1
)
SELECT * FROM candidates
ORDER BY server_id, old_version, new_version
