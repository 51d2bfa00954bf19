-- The counted release steps that broke the most, largest first (three):
-- how many breaking changes each brought, and the rule behind most of them
-- with its count, so a total is read with its biggest parts in view.
WITH rules AS (
    SELECT server_id, old_version, new_version, rule, count(*) AS rule_changes
    FROM step_breaks GROUP BY ALL
)
SELECT s.server_id, s.old_version, s.new_version, s.breaking,
       arg_max(r.rule, (r.rule_changes, r.rule)) AS top_rule, max(r.rule_changes) AS top_rule_changes
FROM release_steps s
JOIN rules r ON r.server_id = s.server_id AND r.old_version = s.old_version AND r.new_version = s.new_version
WHERE s.counted
GROUP BY s.server_id, s.old_version, s.new_version, s.breaking
ORDER BY s.breaking DESC, s.server_id, s.new_version
LIMIT 3
