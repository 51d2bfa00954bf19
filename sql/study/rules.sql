-- How often each rule fired across counted release steps (step_changes.sql,
-- created first as the view `step_changes`), at which effective severity,
-- on how many steps and servers, and (BREAKING) how many a witness proves.
-- Most frequent first.
SELECT rule, severity, count(*) AS changes, count(DISTINCT server_id || '@' || new_version) AS steps,
       count(DISTINCT server_id) AS servers, count(witness_json) AS witnessed
FROM step_changes
GROUP BY rule, severity
ORDER BY changes DESC, rule, severity
