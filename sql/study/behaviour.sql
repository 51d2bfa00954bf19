-- The behavioural dimension: what the probe calls of each counted release
-- step (step_changes.sql, the view `step_changes`) returned differently.
--
-- Rows with level 'step', one per step and tool with either:
--   shape_only: its responses changed shape (a tool.behaviour.* rule other
--     than outputSchema.violated and probe.removed) while none of its
--     schemas moved in that step (no tool.input.* or tool.output.* change);
--   violated: its structuredContent stopped conforming to its own declared
--     outputSchema (tool.behaviour.outputSchema.violated; a release that
--     violated already is not counted again).
-- rules: the step's behaviour rules on the tool, comma-separated; breaking:
-- how many of its behaviour changes are BREAKING; first_path: the first
-- pointer into a response that changed.
-- Rows with level 'server', one per server with a probed release, and a last
-- one (server_id NULL) for all: probed_releases (releases captured with at
-- least one probe that ran), shape_steps and violation_steps (release steps
-- with a shape_only tool, with a violated one).
WITH tool_steps AS (
    SELECT server_id, position, old_version, new_version, entity AS tool,
           count(*) FILTER (WHERE rule LIKE 'tool.behaviour.%'
                            AND rule NOT IN ('tool.behaviour.outputSchema.violated',
                                             'tool.behaviour.probe.removed')) AS shape_changes,
           count(*) FILTER (WHERE rule = 'tool.behaviour.outputSchema.violated') AS violations,
           count(*) FILTER (WHERE rule LIKE 'tool.input.%' OR rule LIKE 'tool.output.%') AS schema_changes,
           count(*) FILTER (WHERE rule LIKE 'tool.behaviour.%' AND severity = 'BREAKING') AS breaking,
           string_agg(DISTINCT rule, ', ' ORDER BY rule) FILTER (WHERE rule LIKE 'tool.behaviour.%') AS rules,
           min(path) FILTER (WHERE rule LIKE 'tool.behaviour.%' AND rule <> 'tool.behaviour.probe.removed')
               AS first_path
    FROM step_changes
    WHERE entity IS NOT NULL
    GROUP BY server_id, position, old_version, new_version, entity
),
steps AS (
    SELECT *, shape_changes > 0 AND schema_changes = 0 AS shape_only, violations > 0 AS violated
    FROM tool_steps
    WHERE (shape_changes > 0 AND schema_changes = 0) OR violations > 0
),
probed AS (
    SELECT r.server_id, count(DISTINCT r.version) AS probed_releases
    FROM releases r
    SEMI JOIN probes p ON p.server_id = r.server_id AND p.manifest_digest = r.digest
                      AND p.outcome <> 'unavailable'
    GROUP BY r.server_id
),
servers AS (
    SELECT p.server_id, any_value(p.probed_releases) AS probed_releases,
           count(DISTINCT s.position) FILTER (WHERE s.shape_only) AS shape_steps,
           count(DISTINCT s.position) FILTER (WHERE s.violated) AS violation_steps
    FROM probed p LEFT JOIN steps s ON s.server_id = p.server_id
    GROUP BY p.server_id
)
SELECT 'step' AS level, server_id, position, old_version, new_version, tool, shape_only, violated,
       rules, breaking, first_path,
       NULL::BIGINT AS probed_releases, NULL::BIGINT AS shape_steps, NULL::BIGINT AS violation_steps
FROM steps
UNION ALL
SELECT 'server', server_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       sum(probed_releases), sum(shape_steps), sum(violation_steps)
FROM servers
GROUP BY ROLLUP (server_id)
ORDER BY level DESC, server_id NULLS LAST, position, tool
