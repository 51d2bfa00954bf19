-- Every row of description_drift (sql/description_drift.sql, created first as
-- a view of that name) with the offline judge's latest note on it
-- ('wordllama'): its semantic distance, verdict and security flag, with the
-- flag's evidence in `summary`. `rewrite`: text on both sides (not a text
-- added or removed); `judged`: a note exists. Created as the view
-- `drift_scored`, which drift_by_server.sql, drift_largest.sql and
-- drift_flags.sql read.
WITH offline AS (
    SELECT * FROM notes WHERE judge = 'wordllama'
    QUALIFY row_number() OVER (
        PARTITION BY server_id, rule, entity, path, old_json, new_json
        ORDER BY judged_at DESC, batch_id DESC) = 1
)
SELECT d.server_id, d.old_version, d.new_version, d.captured_at, d.entity, d.rule, d.path, d.old_text, d.new_text,
       d.old_text <> 'null' AND d.new_text <> 'null' AS rewrite,
       TRY_CAST(json_extract(o.answer_json, '$.semantic_distance') AS DOUBLE) AS distance,
       o.verdict, coalesce(o.security_relevant, false) AS flagged, o.summary,
       o.judge IS NOT NULL AS judged
FROM description_drift d
LEFT JOIN offline o
  ON o.server_id = d.server_id AND o.rule = d.rule AND o.entity IS NOT DISTINCT FROM d.entity
 AND o.path = d.path AND o.old_json = d.old_text AND o.new_json = d.new_text
