-- Every BREAKING change of a counted release step (step_changes.sql, created
-- first as the view `step_changes`): the rule, the entity and path it is
-- on, the message, and the witness that proves it (an arguments object the
-- new schema rejects or a result the old caller cannot read; `witness_json`)
-- or the reason there is none (`witness_note`), and what that makes it
-- (`evidence`: proven, by rule, unexplained). Ordered by every column
-- shown, so two changes of one rule at one place (an anyOf tightened twice)
-- keep their order from one write-up to the next.
SELECT server_id, position, old_version, new_version, declared, bumped,
       rule, entity, path, message, witness_json, witness_note, evidence
FROM step_changes
WHERE severity = 'BREAKING'
ORDER BY server_id, position, path, rule, entity, message, witness_note, witness_json
