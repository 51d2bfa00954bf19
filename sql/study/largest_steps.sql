-- The counted release steps that broke the most, largest first (three),
-- ranked by their proven breaking changes (a witness a validator
-- confirmed), then by all of them: how many breaking changes each brought
-- by evidence, and the rule behind most of its proven ones (else behind
-- most of all) with its count, so a total is read with its biggest parts
-- in view.
WITH rules AS (
    SELECT server_id, old_version, new_version, rule,
           count(*) FILTER (WHERE evidence = 'proven') AS proven_changes, count(*) AS rule_changes
    FROM step_breaks GROUP BY ALL
)
SELECT s.server_id, s.old_version, s.new_version, s.breaking, s.proven, s.by_rule, s.unexplained,
       arg_max(r.rule, (r.proven_changes, r.rule_changes, r.rule)) AS top_rule,
       arg_max(r.proven_changes, (r.proven_changes, r.rule_changes, r.rule)) AS top_rule_proven,
       arg_max(r.rule_changes, (r.proven_changes, r.rule_changes, r.rule)) AS top_rule_changes
FROM release_steps s
JOIN rules r ON r.server_id = s.server_id AND r.old_version = s.old_version AND r.new_version = s.new_version
WHERE s.counted
GROUP BY s.server_id, s.old_version, s.new_version, s.breaking, s.proven, s.by_rule, s.unexplained
ORDER BY s.proven DESC, s.breaking DESC, s.server_id, s.new_version
LIMIT 3
