-- Did the version numbers admit the breaks? Counted release steps
-- (release_steps.counted) by numbering scheme and declared bump (Cargo's
-- reading of semver; calver declares nothing): each group's steps, the
-- steps that broke a caller, the steps whose declared bump is below the
-- grade their changes earned (dishonest), and those of them that broke a
-- caller. `quiet_breaks`: breaking steps where only the minor or patch
-- number moved, read literally, as a reader of 0.0.41 -> 0.0.42 sees it
-- (semver-numbered steps only: a calendar date's numbers mean nothing);
-- `quiet_breaks_spanning`: those whose step spans a version never captured.
-- Each count of breaking steps also for the steps with a proven break
-- (`proven_*`: a witness a validator confirmed). Shares in per cent of the
-- group's steps; `quiet_one_in`: one semver-numbered step in how many broke
-- quietly (null when none did). Rows per (scheme, declared), per scheme
-- (declared NULL), and in all (both NULL).
WITH grouped AS (
    SELECT scheme, declared,
           count(*) AS steps,
           count(*) FILTER (WHERE breaking > 0) AS breaking_steps,
           count(*) FILTER (WHERE proven > 0) AS proven_breaking_steps,
           count(*) FILTER (WHERE honest = false) AS dishonest,
           count(*) FILTER (WHERE honest = false AND breaking > 0) AS breaking_dishonest,
           count(*) FILTER (WHERE honest = false AND proven > 0) AS proven_breaking_dishonest,
           count(*) FILTER (WHERE breaking > 0 AND bumped IN ('minor', 'patch')
                                  AND scheme IN ('semver', 'initial')) AS quiet_breaks,
           count(*) FILTER (WHERE proven > 0 AND bumped IN ('minor', 'patch')
                                  AND scheme IN ('semver', 'initial')) AS proven_quiet_breaks,
           count(*) FILTER (WHERE breaking > 0 AND bumped IN ('minor', 'patch')
                                  AND scheme IN ('semver', 'initial') AND spans > 0) AS quiet_breaks_spanning,
           count(*) FILTER (WHERE scheme IN ('semver', 'initial')) AS semver_steps
    FROM release_steps
    WHERE counted
    GROUP BY GROUPING SETS ((scheme, declared), (scheme), ())
)
SELECT *, round(100.0 * breaking_dishonest / nullif(steps, 0), 1) AS breaking_dishonest_pct,
       round(100.0 * proven_breaking_dishonest / nullif(steps, 0), 1) AS proven_breaking_dishonest_pct,
       round(100.0 * quiet_breaks / nullif(semver_steps, 0), 1) AS quiet_breaks_pct,
       round(100.0 * proven_quiet_breaks / nullif(semver_steps, 0), 1) AS proven_quiet_breaks_pct,
       round(semver_steps / nullif(quiet_breaks, 0), 1) AS quiet_one_in
FROM grouped
ORDER BY scheme NULLS LAST, declared NULLS FIRST
