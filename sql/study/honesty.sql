-- Did the version numbers admit the breaks? Counted release steps
-- (release_steps.counted) by numbering scheme and declared bump (Cargo's
-- reading of semver; calver declares nothing): each group's steps, the
-- steps that broke a caller, the steps whose declared bump is below the
-- grade their changes earned (dishonest), and those of them that broke a
-- caller. `quiet_breaks`: breaking steps where only the minor or patch
-- number moved, read literally, as a reader of 0.0.41 -> 0.0.42 sees it
-- (semver-numbered steps only: a calendar date's numbers mean nothing);
-- `quiet_breaks_spanning`: those whose step spans a version never captured.
-- Shares in per cent of the group's steps. Rows per (scheme, declared), per
-- scheme (declared NULL), and in all (both NULL).
WITH grouped AS (
    SELECT scheme, declared,
           count(*) AS steps,
           count(*) FILTER (WHERE breaking > 0) AS breaking_steps,
           count(*) FILTER (WHERE honest = false) AS dishonest,
           count(*) FILTER (WHERE honest = false AND breaking > 0) AS breaking_dishonest,
           count(*) FILTER (WHERE breaking > 0 AND bumped IN ('minor', 'patch')
                                  AND scheme IN ('semver', 'initial')) AS quiet_breaks,
           count(*) FILTER (WHERE breaking > 0 AND bumped IN ('minor', 'patch')
                                  AND scheme IN ('semver', 'initial') AND spans > 0) AS quiet_breaks_spanning,
           count(*) FILTER (WHERE scheme IN ('semver', 'initial')) AS semver_steps
    FROM release_steps
    WHERE counted
    GROUP BY GROUPING SETS ((scheme, declared), (scheme), ())
)
SELECT *, round(100.0 * breaking_dishonest / nullif(steps, 0), 1) AS breaking_dishonest_pct,
       round(100.0 * quiet_breaks / nullif(semver_steps, 0), 1) AS quiet_breaks_pct,
       round(semver_steps / nullif(quiet_breaks, 0), 1) AS quiet_one_in
FROM grouped
ORDER BY scheme NULLS LAST, declared NULLS FIRST
