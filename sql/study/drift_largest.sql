-- The largest semantic shifts: the 10 rewrites of a counted release step
-- (the view `drift_scored`) the offline judge put furthest apart, with both
-- texts. Ties by server, step and place, so the list is the same every run.
SELECT server_id, old_version, new_version, entity, rule, path, round(distance, 3) AS distance,
       verdict, old_text, new_text
FROM drift_scored
WHERE rewrite AND distance IS NOT NULL
ORDER BY distance DESC, server_id, position, path
LIMIT 10
