-- How often each rule fired, at which effective severity, across how many
-- servers and pairs. Suppressed changes are counted apart.
SELECT rule,
       severity,
       count(*) FILTER (WHERE NOT suppressed) AS changes,
       count(*) FILTER (WHERE suppressed) AS suppressed,
       count(DISTINCT server_id) AS servers,
       count(DISTINCT pair_key) AS pairs
FROM changes
GROUP BY rule, severity
ORDER BY changes DESC, rule, severity
