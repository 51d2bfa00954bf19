-- Each diffed pair of contracts once, with what this engine and policy
-- found in it. A pair retried after an error keeps both ledger rows: the
-- latest success is the answer. Counts are of unsuppressed changes by
-- effective severity; the BREAKING ones split by what stands behind them
-- (the macro `evidence`, mcpdelta/witness/evidence.py): `proven` by a
-- witness a validator confirmed, `by_rule` with no witness for a named
-- reason, `unexplained` with neither (reported, not proved).
-- Created as the view `ledger` by mcpdelta.lake; `release_steps` and the
-- write-up's to_latest.sql read their counts here.
WITH latest AS (
    SELECT * FROM pairs
    QUALIFY row_number() OVER (PARTITION BY server_id, old_digest, new_digest
                               ORDER BY error IS NOT NULL, diffed_at DESC) = 1
),
counted AS (
    SELECT server_id, old_digest, new_digest,
           count(*) FILTER (WHERE severity = 'BREAKING') AS breaking,
           count(*) FILTER (WHERE severity = 'POTENTIALLY_BREAKING') AS potentially_breaking,
           count(*) FILTER (WHERE severity = 'NON_BREAKING') AS non_breaking,
           count(*) FILTER (WHERE severity = 'DOCUMENTATION') AS documentation,
           count(*) FILTER (WHERE severity = 'BREAKING'
                            AND evidence(witness_json, witness_note) = 'proven') AS proven,
           count(*) FILTER (WHERE severity = 'BREAKING'
                            AND evidence(witness_json, witness_note) = 'by rule') AS by_rule,
           count(*) FILTER (WHERE severity = 'BREAKING'
                            AND evidence(witness_json, witness_note) = 'unexplained') AS unexplained
    FROM changes WHERE NOT suppressed GROUP BY ALL
)
SELECT p.server_id, p.old_version, p.new_version, p.old_digest, p.new_digest, p.grade, p.error,
       p.diffed_at,
       coalesce(c.breaking, 0) AS breaking,
       coalesce(c.potentially_breaking, 0) AS potentially_breaking,
       coalesce(c.non_breaking, 0) AS non_breaking,
       coalesce(c.documentation, 0) AS documentation,
       coalesce(c.proven, 0) AS proven,
       coalesce(c.by_rule, 0) AS by_rule,
       coalesce(c.unexplained, 0) AS unexplained
FROM latest p
LEFT JOIN counted c ON c.server_id = p.server_id AND c.old_digest = p.old_digest
                   AND c.new_digest = p.new_digest
