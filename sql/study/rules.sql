-- How often each rule fired across counted release steps, at which
-- effective severity, on how many steps and servers, and (BREAKING) how
-- many a witness proves. Most frequent first.
SELECT c.rule, c.severity, count(*) AS changes, count(DISTINCT s.server_id || '@' || s.new_version) AS steps,
       count(DISTINCT s.server_id) AS servers, count(c.witness_json) AS witnessed
FROM release_steps s
JOIN changes c ON c.server_id = s.server_id AND c.old_digest = s.old_digest
              AND c.new_digest = s.new_digest
WHERE NOT c.suppressed AND s.counted
GROUP BY c.rule, c.severity
ORDER BY changes DESC, c.rule, c.severity
