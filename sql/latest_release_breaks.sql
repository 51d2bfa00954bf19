-- Servers whose latest release broke something: the pair that ends at each
-- server's newest captured version, where it carries unsuppressed BREAKING
-- changes. (A latest release identical to the one before broke nothing.)
WITH latest AS (
    SELECT server_id, arg_max(version, version_key) AS version
    FROM manifests WHERE ok GROUP BY server_id
)
SELECT p.server_id, p.old_version, p.new_version, p.breaking, p.grade
FROM pairs p
JOIN latest l ON l.server_id = p.server_id AND l.version = p.new_version
WHERE p.error IS NULL AND p.breaking > 0
ORDER BY p.server_id
