-- The figures the published 66-pair backtest reported, computed our way
-- for the @modelcontextprotocol/server-* packages (server ids `server-*`):
-- consecutive release steps, those whose contracts differ, findings (every
-- unsuppressed change), findings graded BREAKING, and the notation-only
-- changes ($schema, definitions, serialisation) that we report once per
-- schema as `*.dialect.changed` and never as BREAKING. The `published_*`
-- columns are the backtest's own headline figures, quoted as published, so
-- the write-up prints them from here like every other number.
SELECT count(*) AS steps,
       count(*) FILTER (WHERE NOT identical) AS changed,
       sum(changes) AS findings,
       sum(breaking) AS breaking,
       count(*) FILTER (WHERE breaking > 0) AS breaking_steps,
       (SELECT count(*) FROM release_steps s JOIN changes c
          ON c.server_id = s.server_id AND c.old_digest = s.old_digest AND c.new_digest = s.new_digest
        WHERE s.server_id LIKE 'server-%' AND s.counted
          AND c.rule LIKE '%.dialect.changed' AND NOT c.suppressed) AS dialect_changes,
       count(DISTINCT server_id) AS packages,
       4 AS published_packages, 66 AS published_pairs, 140 AS published_findings,
       43 AS published_breaking
FROM release_steps
WHERE server_id LIKE 'server-%' AND counted
