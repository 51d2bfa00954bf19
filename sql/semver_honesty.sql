-- Semver honesty: the bump each release declared (from its version number)
-- against the grade its changes earned, and the first release from this one
-- on that bumped the major version, and how many days after this one it came
-- (0 when this release is that bump). Below
-- 1.0.0 a minor bump counts as major (0.3 -> 0.4), as Cargo reads semver.
WITH releases AS (
    SELECT server_id, version, min(version_key) AS version_key, min(captured_at) AS captured_at,
           try_cast(regexp_extract(version, '^v?(\d+)', 1) AS BIGINT) AS major,
           try_cast(regexp_extract(version, '^v?\d+\.(\d+)', 1) AS BIGINT) AS minor,
           try_cast(regexp_extract(version, '^v?\d+\.\d+\.(\d+)', 1) AS BIGINT) AS patch
    FROM manifests WHERE ok GROUP BY server_id, version
),
graded AS (
    SELECT p.server_id, p.old_version, p.new_version, p.grade, p.breaking,
           n.version_key, n.captured_at, o.major AS old_major, o.minor AS old_minor,
           CASE WHEN o.major IS NULL OR n.major IS NULL THEN 'unknown'
                WHEN n.major <> o.major THEN 'major'
                WHEN n.minor <> o.minor AND o.major = 0 THEN 'major'
                WHEN n.minor <> o.minor THEN 'minor'
                WHEN n.patch <> o.patch THEN 'patch'
                ELSE 'none' END AS declared
    FROM pairs p
    JOIN releases o ON o.server_id = p.server_id AND o.version = p.old_version
    JOIN releases n ON n.server_id = p.server_id AND n.version = p.new_version
    WHERE p.error IS NULL
)
SELECT g.server_id, g.old_version, g.new_version, g.declared, g.grade,
       CASE WHEN g.declared = 'unknown' THEN NULL
            ELSE list_position(['none', 'patch', 'minor', 'major'], g.declared)
                 >= list_position(['none', 'patch', 'minor', 'major'], g.grade) END AS honest,
       (SELECT arg_min(r.version, r.version_key) FROM releases r
         WHERE r.server_id = g.server_id AND r.version_key >= g.version_key
           AND (r.major > g.old_major OR (g.old_major = 0 AND r.major = 0 AND r.minor > g.old_minor))
       ) AS next_major,
       (SELECT date_diff('day', g.captured_at, arg_min(r.captured_at, r.version_key)) FROM releases r
         WHERE r.server_id = g.server_id AND r.version_key >= g.version_key
           AND (r.major > g.old_major OR (g.old_major = 0 AND r.major = 0 AND r.minor > g.old_minor))
       ) AS days_to_next_major
FROM graded g
ORDER BY g.server_id, g.version_key
