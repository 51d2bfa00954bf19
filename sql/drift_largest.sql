-- The largest semantic shifts: the 10 rewrites the offline judge put
-- furthest apart (the view `drift_scored`), with both texts. Ties by server,
-- release and place, so the list is the same every run.
SELECT server_id, old_version, new_version, entity, rule, path, round(distance, 3) AS distance,
       verdict, old_text, new_text
FROM drift_scored
WHERE rewrite AND distance IS NOT NULL
ORDER BY distance DESC, server_id, captured_at, new_version, path, rule
LIMIT 10
