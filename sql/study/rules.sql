-- How often each rule fired across counted release steps (step_changes.sql,
-- created first as the view `step_changes`), at which effective severity,
-- on how many steps and servers, and (BREAKING) by evidence: proven by a
-- witness, by rule (a named reason there is none), unexplained; with the
-- servers where the rule broke a caller with a proven change. Most
-- frequent first.
SELECT rule, severity, count(*) AS changes, count(DISTINCT server_id || '@' || new_version) AS steps,
       count(DISTINCT server_id) AS servers,
       count(*) FILTER (WHERE severity = 'BREAKING' AND evidence = 'proven') AS proven,
       count(*) FILTER (WHERE severity = 'BREAKING' AND evidence = 'by rule') AS by_rule,
       count(*) FILTER (WHERE severity = 'BREAKING' AND evidence = 'unexplained') AS unexplained,
       count(DISTINCT server_id) FILTER (WHERE severity = 'BREAKING' AND evidence = 'proven') AS proven_servers
FROM step_changes
GROUP BY rule, severity
ORDER BY changes DESC, rule, severity
