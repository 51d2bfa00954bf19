-- Every unsuppressed change of a counted release step (release_steps.counted),
-- with the step it arrived in: the rows step_breaks.sql, rules.sql and
-- backtest.sql count, each with what stands behind it (`evidence`: proven,
-- by rule or unexplained; the macro from mcpdelta/witness/evidence.py).
-- Created first as the view `step_changes`.
SELECT s.server_id, s.position, s.old_version, s.new_version, s.declared, s.bumped,
       c.rule, c.severity, c.entity, c.path, c.message, c.witness_json, c.witness_note,
       evidence(c.witness_json, c.witness_note) AS evidence
FROM release_steps s
JOIN changes c ON c.server_id = s.server_id AND c.old_digest = s.old_digest
              AND c.new_digest = s.new_digest
WHERE s.counted AND NOT c.suppressed
