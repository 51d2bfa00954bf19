-- Description drift per server, with the offline judge's word: how often a
-- server's prose moves release to release and how far its meaning moves.
-- Reads the description_drift view (sql/description_drift.sql, created
-- first under that name, see mcpdelta/commands/drift.py) and each change's
-- latest note of the offline judge ('wordllama'). `rewrites` are changes
-- with text on both sides (not a text added or removed); `median_distance`
-- and `largest_distance` are the judge's semantic distances over them;
-- `moved` counts the rewrites it called meaning_changed; `security_flags`
-- the changes its security rules flagged. Servers with the most prose
-- changes first.
WITH offline AS (
    SELECT * FROM notes WHERE judge = 'wordllama'
    QUALIFY row_number() OVER (
        PARTITION BY server_id, rule, entity, path, old_json, new_json
        ORDER BY judged_at DESC, batch_id DESC) = 1
),
scored AS (
    SELECT d.server_id, d.old_version, d.new_version,
           d.old_text <> 'null' AND d.new_text <> 'null' AS rewrite,
           TRY_CAST(json_extract(o.answer_json, '$.semantic_distance') AS DOUBLE) AS distance,
           o.verdict, coalesce(o.security_relevant, false) AS flagged, o.judge IS NOT NULL AS judged
    FROM description_drift d
    LEFT JOIN offline o
      ON o.server_id = d.server_id AND o.rule = d.rule AND o.entity IS NOT DISTINCT FROM d.entity
     AND o.path = d.path AND o.old_json = d.old_text AND o.new_json = d.new_text
)
SELECT server_id,
       count(DISTINCT (old_version, new_version)) AS steps,
       count(*) AS prose_changes,
       count(*) FILTER (WHERE rewrite) AS rewrites,
       count(*) FILTER (WHERE judged) AS judged,
       round(median(distance) FILTER (WHERE rewrite), 3) AS median_distance,
       count(*) FILTER (WHERE rewrite AND verdict = 'meaning_changed') AS moved,
       round(max(distance) FILTER (WHERE rewrite), 3) AS largest_distance,
       count(*) FILTER (WHERE flagged) AS security_flags
FROM scored
GROUP BY server_id
ORDER BY prose_changes DESC, server_id
