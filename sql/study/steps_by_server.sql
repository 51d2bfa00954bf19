-- Consecutive release steps per server and (last row, server_id NULL) in
-- all: how many releases and steps, how many steps are counted
-- (release_steps.counted), flagged because captures disagree (unstable),
-- because a side's input schemas came out empty (schemaless), because the
-- two sides ran under different recipes (recipe_changed), or not diffed
-- (the engine refused a side); how many of the counted steps changed the
-- contract and how many broke it, and their unsuppressed changes by
-- severity. Breaking changes by evidence (proven, by_rule, unexplained:
-- sql/ledger.sql); breaking steps by the strongest evidence they carry: a
-- proven break (proven_steps), else one by rule (by_rule_steps), else only
-- unexplained ones (unexplained_steps). Shares in per cent.
WITH servers AS (
    SELECT server_id, count(*) AS releases FROM releases GROUP BY server_id
),
steps AS (
    SELECT server_id,
           count(*) AS steps,
           count(*) FILTER (WHERE counted) AS counted,
           count(*) FILTER (WHERE unstable) AS unstable,
           count(*) FILTER (WHERE schemaless AND NOT unstable) AS schemaless,
           count(*) FILTER (WHERE recipe_changed AND NOT unstable AND NOT schemaless) AS recipe_changed,
           count(*) FILTER (WHERE NOT diffed AND NOT unstable AND NOT schemaless AND NOT recipe_changed)
               AS not_diffed,
           count(*) FILTER (WHERE counted AND NOT identical) AS changed,
           count(*) FILTER (WHERE counted AND breaking > 0) AS breaking_steps,
           count(*) FILTER (WHERE counted AND proven > 0) AS proven_steps,
           count(*) FILTER (WHERE counted AND proven = 0 AND by_rule > 0) AS by_rule_steps,
           count(*) FILTER (WHERE counted AND proven = 0 AND by_rule = 0 AND unexplained > 0) AS unexplained_steps,
           sum(breaking) FILTER (WHERE counted) AS breaking,
           sum(proven) FILTER (WHERE counted) AS proven,
           sum(by_rule) FILTER (WHERE counted) AS by_rule,
           sum(unexplained) FILTER (WHERE counted) AS unexplained,
           sum(potentially_breaking) FILTER (WHERE counted) AS potentially_breaking,
           sum(non_breaking) FILTER (WHERE counted) AS non_breaking,
           sum(documentation) FILTER (WHERE counted) AS documentation
    FROM release_steps GROUP BY server_id
),
totals AS (
    SELECT v.server_id,
       sum(v.releases) AS releases,
       coalesce(sum(s.steps), 0) AS steps,
       coalesce(sum(s.counted), 0) AS counted,
       coalesce(sum(s.unstable), 0) AS unstable,
       coalesce(sum(s.schemaless), 0) AS schemaless,
       coalesce(sum(s.recipe_changed), 0) AS recipe_changed,
       coalesce(sum(s.not_diffed), 0) AS not_diffed,
       coalesce(sum(s.changed), 0) AS changed,
       coalesce(sum(s.breaking_steps), 0) AS breaking_steps,
       coalesce(sum(s.proven_steps), 0) AS proven_steps,
       coalesce(sum(s.by_rule_steps), 0) AS by_rule_steps,
       coalesce(sum(s.unexplained_steps), 0) AS unexplained_steps,
       coalesce(sum(s.breaking), 0) AS breaking,
       coalesce(sum(s.proven), 0) AS proven,
       coalesce(sum(s.by_rule), 0) AS by_rule,
       coalesce(sum(s.unexplained), 0) AS unexplained,
       coalesce(sum(s.potentially_breaking), 0) AS potentially_breaking,
       coalesce(sum(s.non_breaking), 0) AS non_breaking,
       coalesce(sum(s.documentation), 0) AS documentation
FROM servers v LEFT JOIN steps s ON s.server_id = v.server_id
GROUP BY ROLLUP (v.server_id)
)
SELECT *, round(100.0 * breaking_steps / nullif(counted, 0), 1) AS breaking_steps_pct,
       round(100.0 * proven_steps / nullif(counted, 0), 1) AS proven_steps_pct,
       round(100.0 * proven / nullif(breaking, 0), 1) AS proven_pct
FROM totals
ORDER BY server_id NULLS LAST
