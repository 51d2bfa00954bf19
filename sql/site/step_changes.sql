-- The unsuppressed changes of every release step (sql/release_steps.sql),
-- read as sql/ledger.sql counts them, with what stands behind a BREAKING
-- one (the macro `evidence`: proven, by rule, unexplained). A server's page
-- lists about $budget of them: each step at most $budget / (4 * its server's
-- steps) of each severity, and never fewer than $least (release_steps counts
-- them all).
SELECT s.server_id, s.position, c.rule, c.severity, c.entity, c.path, c.message,
       c.witness_json, c.witness_note,
       CASE WHEN c.severity = 'BREAKING' THEN evidence(c.witness_json, c.witness_note) END AS evidence
FROM release_steps s
JOIN (SELECT server_id, count(*) AS steps FROM release_steps GROUP BY server_id) k USING (server_id)
JOIN changes c ON c.server_id = s.server_id AND c.old_digest = s.old_digest
              AND c.new_digest = s.new_digest
WHERE NOT c.suppressed
QUALIFY row_number() OVER (PARTITION BY s.server_id, s.position, c.severity
                           ORDER BY c.rule, c.entity, c.path, c.message)
        <= greatest($least, $budget // (4 * k.steps))
ORDER BY s.server_id, s.position, list_position(['BREAKING', 'POTENTIALLY_BREAKING', 'NON_BREAKING',
         'DOCUMENTATION'], c.severity), c.rule, c.entity, c.path, c.message
