-- The figures the published 66-pair backtest reported, computed our way
-- for the @modelcontextprotocol/server-* packages (server ids `server-*`):
-- counted consecutive release steps, those whose contracts differ, findings
-- (every unsuppressed change), findings graded BREAKING (and of them the
-- proven ones: a witness a validator confirmed), and the
-- notation-only changes ($schema, definitions, serialisation) that we
-- report once per schema as `*.dialect.changed` and never as BREAKING;
-- then the steps of those packages not counted (a side schemaless or
-- unstable) and their schemaless releases. The `published_*` columns are
-- the backtest's own headline figures, quoted as published, so the write-up
-- prints them from here like every other number. Reads the view
-- `step_changes` (step_changes.sql).
WITH steps AS (
    SELECT * FROM release_steps WHERE server_id LIKE 'server-%'
)
SELECT count(*) FILTER (WHERE counted) AS steps,
       count(*) FILTER (WHERE counted AND NOT identical) AS changed,
       coalesce(sum(changes) FILTER (WHERE counted), 0) AS findings,
       coalesce(sum(breaking) FILTER (WHERE counted), 0) AS breaking,
       coalesce(sum(proven) FILTER (WHERE counted), 0) AS proven,
       count(*) FILTER (WHERE counted AND breaking > 0) AS breaking_steps,
       (SELECT count(*) FROM step_changes
        WHERE server_id LIKE 'server-%' AND rule LIKE '%.dialect.changed') AS dialect_changes,
       count(DISTINCT server_id) FILTER (WHERE counted) AS packages,
       count(*) FILTER (WHERE NOT counted) AS not_counted,
       (SELECT count(*) FROM releases WHERE server_id LIKE 'server-%' AND schemaless) AS schemaless_releases,
       4 AS published_packages, 66 AS published_pairs, 140 AS published_findings,
       43 AS published_breaking
FROM steps
