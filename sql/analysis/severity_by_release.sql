-- Every captured release of every server, in version order, with the
-- unsuppressed changes that arrived in it (the new side of each diffed pair)
-- counted by effective severity: one row per (release, severity). A release
-- that changed nothing (the first capture, a repeat of the one before) is
-- one row with severity NULL and 0 changes, so a timeline shows it.
-- `position` numbers each server's releases from 1 in version order.
WITH releases AS (
    SELECT server_id, version, min(version_key) AS version_key, min(captured_at) AS captured_at,
           row_number() OVER (PARTITION BY server_id
                              ORDER BY min(version_key), min(captured_at)) AS position
    FROM manifests WHERE ok GROUP BY server_id, version
),
counted AS (
    SELECT server_id, new_version AS version, severity, count(*) AS changes
    FROM changes
    WHERE NOT suppressed
    GROUP BY server_id, new_version, severity
)
SELECT r.server_id, r.version, r.position, r.captured_at, c.severity, coalesce(c.changes, 0) AS changes
FROM releases r
LEFT JOIN counted c ON c.server_id = r.server_id AND c.version = r.version
ORDER BY r.server_id, r.version_key, r.captured_at,
         list_position(['BREAKING', 'POTENTIALLY_BREAKING', 'NON_BREAKING', 'DOCUMENTATION'], c.severity)
