-- Consecutive release steps per server and (last row, server_id NULL) in
-- all: how many releases and steps, how many steps are counted
-- (release_steps.counted), flagged because captures disagree (unstable) or
-- because a side's input schemas came out empty (schemaless), or not diffed
-- (the engine refused a side); how many of the counted steps changed the
-- contract and how many broke it, and their unsuppressed changes by
-- severity, with the BREAKING ones a witness proves; shares in per cent.
WITH servers AS (
    SELECT server_id, count(*) AS releases FROM releases GROUP BY server_id
),
steps AS (
    SELECT server_id,
           count(*) AS steps,
           count(*) FILTER (WHERE counted) AS counted,
           count(*) FILTER (WHERE unstable) AS unstable,
           count(*) FILTER (WHERE schemaless AND NOT unstable) AS schemaless,
           count(*) FILTER (WHERE NOT diffed AND NOT unstable AND NOT schemaless) AS not_diffed,
           count(*) FILTER (WHERE counted AND NOT identical) AS changed,
           count(*) FILTER (WHERE counted AND breaking > 0) AS breaking_steps,
           sum(breaking) FILTER (WHERE counted) AS breaking,
           sum(potentially_breaking) FILTER (WHERE counted) AS potentially_breaking,
           sum(non_breaking) FILTER (WHERE counted) AS non_breaking,
           sum(documentation) FILTER (WHERE counted) AS documentation,
           sum(witnessed) FILTER (WHERE counted) AS witnessed
    FROM release_steps GROUP BY server_id
),
totals AS (
    SELECT v.server_id,
       sum(v.releases) AS releases,
       coalesce(sum(s.steps), 0) AS steps,
       coalesce(sum(s.counted), 0) AS counted,
       coalesce(sum(s.unstable), 0) AS unstable,
       coalesce(sum(s.schemaless), 0) AS schemaless,
       coalesce(sum(s.not_diffed), 0) AS not_diffed,
       coalesce(sum(s.changed), 0) AS changed,
       coalesce(sum(s.breaking_steps), 0) AS breaking_steps,
       coalesce(sum(s.breaking), 0) AS breaking,
       coalesce(sum(s.potentially_breaking), 0) AS potentially_breaking,
       coalesce(sum(s.non_breaking), 0) AS non_breaking,
       coalesce(sum(s.documentation), 0) AS documentation,
       coalesce(sum(s.witnessed), 0) AS witnessed
FROM servers v LEFT JOIN steps s ON s.server_id = v.server_id
GROUP BY ROLLUP (v.server_id)
)
SELECT *, round(100.0 * breaking_steps / nullif(counted, 0), 1) AS breaking_steps_pct,
       round(100.0 * witnessed / nullif(breaking, 0), 1) AS witnessed_pct
FROM totals
ORDER BY server_id NULLS LAST
