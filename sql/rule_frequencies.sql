-- How often each rule fired, at which effective severity, across how many
-- servers and pairs. Suppressed changes are counted apart. Of the
-- unsuppressed BREAKING ones, what stands behind them (the macro
-- `evidence`, mcpdelta/witness/evidence.py): proven, by rule, unexplained.
SELECT rule,
       severity,
       count(*) FILTER (WHERE NOT suppressed) AS changes,
       count(*) FILTER (WHERE suppressed) AS suppressed,
       count(DISTINCT server_id) AS servers,
       count(DISTINCT pair_key) AS pairs,
       count(*) FILTER (WHERE NOT suppressed AND severity = 'BREAKING'
                        AND evidence(witness_json, witness_note) = 'proven') AS proven,
       count(*) FILTER (WHERE NOT suppressed AND severity = 'BREAKING'
                        AND evidence(witness_json, witness_note) = 'by rule') AS by_rule,
       count(*) FILTER (WHERE NOT suppressed AND severity = 'BREAKING'
                        AND evidence(witness_json, witness_note) = 'unexplained') AS unexplained
FROM changes
GROUP BY rule, severity
ORDER BY changes DESC, rule, severity
