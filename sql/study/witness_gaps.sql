-- The BREAKING changes of counted steps (step_breaks.sql, created first as
-- the view `step_breaks`) by what stands behind them, the one reading of
-- mcpdelta/witness/evidence.py (the macros `evidence` and `named_reason`):
-- proven (a witness a validator confirmed), by rule (no witness, for the
-- named reason the note opens with: `reason`) or unexplained (no witness
-- and no named reason: the bounded search gave up or its budget ran out;
-- reported, not proved). With how many of them are on resources.
SELECT evidence, CASE WHEN evidence = 'by rule' THEN named_reason(witness_note) END AS reason,
       count(*) AS changes,
       count(*) FILTER (WHERE rule LIKE 'resource%') AS resources
FROM step_breaks
GROUP BY ALL
ORDER BY evidence, changes DESC, reason
