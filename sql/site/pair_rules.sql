-- "From -> to": for every two releases of a server, older first, what the
-- ledger (sql/ledger.sql) holds for their pair of contracts, rule by rule:
-- changes by severity, and BREAKING ones by evidence. Two releases with one
-- contract changed nothing; a pair the lake never diffed (a lake surveyed
-- with consecutive pairs only) has diffed = false and no rules.
WITH pairs_of AS (
    SELECT o.server_id, o.position AS old_position, n.position AS new_position,
           o.digest AS old_digest, n.digest AS new_digest
    FROM releases o JOIN releases n ON n.server_id = o.server_id AND n.position > o.position
),
diffed AS (
    SELECT p.*, p.old_digest = p.new_digest OR l.server_id IS NOT NULL AND l.error IS NULL AS diffed,
           CASE WHEN p.old_digest = p.new_digest THEN 'none' ELSE l.grade END AS grade
    FROM pairs_of p
    LEFT JOIN ledger l ON l.server_id = p.server_id AND l.old_digest = p.old_digest
                      AND l.new_digest = p.new_digest
),
rules AS (
    SELECT server_id, old_digest, new_digest, rule,
           count(*) FILTER (WHERE severity = 'BREAKING') AS breaking,
           count(*) FILTER (WHERE severity = 'BREAKING'
                            AND evidence(witness_json, witness_note) = 'proven') AS proven,
           count(*) FILTER (WHERE severity = 'POTENTIALLY_BREAKING') AS potentially_breaking,
           count(*) FILTER (WHERE severity = 'NON_BREAKING') AS non_breaking,
           count(*) FILTER (WHERE severity = 'DOCUMENTATION') AS documentation
    FROM changes WHERE NOT suppressed GROUP BY ALL
)
SELECT d.server_id, d.old_position, d.new_position, d.diffed, d.grade, r.rule,
       r.breaking, r.proven, r.potentially_breaking, r.non_breaking, r.documentation
FROM diffed d
LEFT JOIN rules r ON r.server_id = d.server_id AND r.old_digest = d.old_digest
                 AND r.new_digest = d.new_digest
ORDER BY d.server_id, d.old_position, d.new_position, r.breaking DESC, r.rule
