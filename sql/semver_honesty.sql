-- Semver honesty: for each release step (the view `release_steps`,
-- sql/release_steps.sql), the bump its version number declared against the
-- grade its changes earned; and the first release from this one on that
-- declared a major bump, with how many days after this one it was captured
-- (0 when this release is that bump).
--
-- What a version declares is read once, in release_steps, and taken from
-- there as it is: `scheme`, `declared` (as Cargo reads semver: 0.y -> 0.y+1
-- and 0.0.z -> 0.0.z+1 are major), `bumped` (the number that literally
-- moved) and `honest`. A calendar version (a year as the major number:
-- 2025.9.25 -> 2025.11.25) declares nothing: declared 'calver', honest,
-- next_major and days_to_next_major null. A version that does not parse
-- declares nothing either (declared 'unknown', the same nulls).
--
-- Rows: one per step a survey counts (release_steps.counted), in version
-- order: its two contracts diffed by this engine and policy, or identical.
-- Identical steps stay (grade 'none': nothing changed, which any declared
-- bump admits honestly). Left out: steps not diffed yet or whose diff failed
-- (no grade), and unstable or schemaless ones (either release captured with
-- more than one contract, or with the empty input schemas of a late
-- install: the grade may be capture noise, not what the release did). Any
-- release, counted or not, can still be the next major: that is read from
-- its version number alone.
WITH numbered AS (
    SELECT *,
           first_value(CASE WHEN declared = 'major' THEN new_version END IGNORE NULLS) OVER later
               AS major_version,
           first_value(CASE WHEN declared = 'major' THEN captured_at END IGNORE NULLS) OVER later
               AS major_captured_at
    FROM release_steps
    WINDOW later AS (PARTITION BY server_id ORDER BY position
                     ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
)
SELECT server_id, old_version, new_version, scheme, declared, bumped, grade, honest,
       CASE WHEN declared NOT IN ('calver', 'unknown') THEN major_version END AS next_major,
       CASE WHEN declared NOT IN ('calver', 'unknown')
            THEN date_diff('day', captured_at, major_captured_at) END AS days_to_next_major
FROM numbered
WHERE counted
ORDER BY server_id, position
