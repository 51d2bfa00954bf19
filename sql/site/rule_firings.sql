-- Where each rule fired: every counted release step (sql/release_steps.sql)
-- with its unsuppressed changes of that rule, by severity, and the month of
-- the newer release (its publish date, else its capture date).
SELECT c.rule, s.server_id, s.position, s.old_version, s.new_version,
       strftime(coalesce(s.published_at, s.captured_at), '%Y-%m') AS month,
       count(*) AS changes,
       count(*) FILTER (WHERE c.severity = 'BREAKING') AS breaking,
       count(*) FILTER (WHERE c.severity = 'BREAKING'
                        AND evidence(c.witness_json, c.witness_note) = 'proven') AS proven
FROM release_steps s
JOIN changes c ON c.server_id = s.server_id AND c.old_digest = s.old_digest
              AND c.new_digest = s.new_digest
WHERE s.counted AND NOT c.suppressed
GROUP BY ALL
ORDER BY c.rule, month, s.server_id, s.position
