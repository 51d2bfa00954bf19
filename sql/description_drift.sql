-- Description drift: every prose change (descriptions, titles, instructions,
-- argument and property descriptions, widget descriptions) per server over
-- releases, with the classifier's verdict and both texts.
WITH releases AS (
    SELECT server_id, version, min(version_key) AS version_key, min(captured_at) AS captured_at
    FROM manifests GROUP BY server_id, version
)
SELECT c.server_id, c.entity, c.rule, c.old_version, c.new_version, r.captured_at,
       c.default_severity AS verdict, c.old_json AS old_text, c.new_json AS new_text, c.path,
       c.advisory_json
FROM changes c
LEFT JOIN releases r ON r.server_id = c.server_id AND r.version = c.new_version
WHERE c.rule LIKE '%.description.changed' OR c.rule LIKE '%.title.changed'
   OR c.rule IN ('server.instructions.changed', 'resource.ui.widgetDescription.changed')
ORDER BY c.server_id, r.version_key, c.path
