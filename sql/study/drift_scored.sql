-- Every prose change of a counted release step (description_drift.sql's
-- rules: descriptions, titles,
-- instructions, argument and property descriptions) with the offline judge's
-- latest note on it ('wordllama': a semantic distance, a verdict, a security
-- flag with its evidence in `summary`). `rewrite`: text on both sides (not a
-- text added or removed). Created first as the view `drift_scored`; the
-- drift queries read it.
WITH offline AS (
    SELECT * FROM notes WHERE judge = 'wordllama'
    QUALIFY row_number() OVER (
        PARTITION BY server_id, rule, entity, path, old_json, new_json
        ORDER BY judged_at DESC, batch_id DESC) = 1
),
prose AS (
    SELECT s.server_id, s.position, s.old_version, s.new_version, c.entity, c.rule, c.path,
           c.old_json AS old_text, c.new_json AS new_text
    FROM release_steps s
    JOIN changes c ON c.server_id = s.server_id AND c.old_digest = s.old_digest
                  AND c.new_digest = s.new_digest
    WHERE s.counted AND NOT c.suppressed
      AND (c.rule LIKE '%.description.changed' OR c.rule LIKE '%.title.changed'
           OR c.rule IN ('server.instructions.changed', 'resource.ui.widgetDescription.changed'))
)
SELECT p.*,
       p.old_text <> 'null' AND p.new_text <> 'null' AS rewrite,
       TRY_CAST(json_extract(o.answer_json, '$.semantic_distance') AS DOUBLE) AS distance,
       o.verdict, coalesce(o.security_relevant, false) AS flagged, o.summary,
       o.judge IS NOT NULL AS judged
FROM prose p
LEFT JOIN offline o
  ON o.server_id = p.server_id AND o.rule = p.rule AND o.entity IS NOT DISTINCT FROM p.entity
 AND o.path = p.path AND o.old_json = p.old_text AND o.new_json = p.new_text
