-- Version pairs of consecutive captures, per server.
-- Captures are ordered by version (semver-aware key) then capture time, so a
-- package sweep pairs each release with the next and a nightly crawl of one
-- version pairs each night with the one before. A pair whose two contracts
-- are identical is never diffed (digest dedupe), a contract pair seen twice
-- is diffed once. Which of them the ledger already
-- holds for this engine and policy is added by the diff stage (one place).
-- Parameter: $since (timestamp or NULL).
WITH ordered AS (
    SELECT server_id, version, manifest_digest,
           lag(version) OVER w AS old_version,
           lag(manifest_digest) OVER w AS old_digest,
           captured_at
    FROM manifests
    WHERE ok
    WINDOW w AS (PARTITION BY server_id ORDER BY version_key, captured_at)
),
candidates AS (
    SELECT server_id, old_version, version AS new_version, old_digest, manifest_digest AS new_digest
    FROM ordered
    WHERE old_digest IS NOT NULL
      AND old_digest <> manifest_digest
      AND ($since IS NULL OR captured_at >= $since)
    QUALIFY row_number() OVER (PARTITION BY server_id, old_digest, new_digest
                               ORDER BY old_version, new_version) = 1
)
SELECT * FROM candidates
ORDER BY server_id, old_version, new_version
