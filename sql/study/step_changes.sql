-- Every unsuppressed change of a counted release step (release_steps.counted),
-- with the step it arrived in: the rows step_breaks.sql, rules.sql and
-- backtest.sql count. Created first as the view `step_changes`.
SELECT s.server_id, s.position, s.old_version, s.new_version, s.declared, s.bumped,
       c.rule, c.severity, c.entity, c.path, c.message, c.witness_json, c.witness_note
FROM release_steps s
JOIN changes c ON c.server_id = s.server_id AND c.old_digest = s.old_digest
              AND c.new_digest = s.new_digest
WHERE s.counted AND NOT c.suppressed
