-- Every prose change the offline judge's security rules flagged (the view
-- `drift_scored`), with its evidence: the summary names what matched (an
-- instruction to the model, an invisible character, another tool, a secret
-- or a file, an address to send to).
SELECT server_id, old_version, new_version, entity, rule, path, summary, old_text, new_text
FROM drift_scored
WHERE flagged
ORDER BY server_id, captured_at, new_version, path, rule
