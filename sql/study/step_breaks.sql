-- Every unsuppressed BREAKING change of a counted release step: the rule,
-- the entity and path it is on, the message, and the witness that proves
-- it (a call the new contract rejects or a result the old caller cannot
-- read; `witness_json`) or the reason there is none (`witness_note`).
SELECT s.server_id, s.position, s.old_version, s.new_version, s.declared, s.bumped,
       c.rule, c.entity, c.path, c.message, c.witness_json, c.witness_note
FROM release_steps s
JOIN changes c ON c.server_id = s.server_id AND c.old_digest = s.old_digest
              AND c.new_digest = s.new_digest
WHERE c.severity = 'BREAKING' AND NOT c.suppressed AND s.counted
ORDER BY s.server_id, s.position, c.path, c.rule
