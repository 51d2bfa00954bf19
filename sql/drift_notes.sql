-- Description drift with the jury's word: every row of description_drift
-- (sql/description_drift.sql, created first as a view of that name, see
-- mcpdelta/commands/drift.py) with the latest advisory note of each judge on
-- that change. Notes are matched by content (server, rule, entity, path, old
-- and new text), so a note survives an engine upgrade. One row per change:
-- `notes` lists each judge's latest note, the jury's last; `headline` is the
-- jury's note, else the only judge's note, else null; `security_relevant` is
-- true when any latest note says so; a note's `answer_json` is the judge's
-- stored answer (the offline judge's has its semantic distance). $since (a timestamp or null) keeps the
-- changes whose newer release was captured since then. Per server,
-- security-relevant changes first, then in release order.
WITH latest AS (
    SELECT * FROM notes
    QUALIFY row_number() OVER (
        PARTITION BY server_id, rule, entity, path, old_json, new_json, judge
        ORDER BY judged_at DESC, batch_id DESC) = 1
),
releases AS (
    SELECT server_id, version, min(version_key) AS version_key FROM manifests GROUP BY server_id, version
),
drift AS (
    SELECT d.*, r.version_key
    FROM description_drift d
    LEFT JOIN releases r ON r.server_id = d.server_id AND r.version = d.new_version
    WHERE CAST($since AS TIMESTAMPTZ) IS NULL OR d.captured_at >= CAST($since AS TIMESTAMPTZ)
),
joined AS (
    SELECT d.server_id, d.entity, d.rule, d.path, d.old_version, d.new_version, d.version_key,
           d.captured_at, d.verdict, d.old_text, d.new_text,
           coalesce(bool_or(n.security_relevant), false) AS security_relevant,
           list(struct_pack(judge := n.judge, verdict := n.verdict,
                            security_relevant := n.security_relevant, confidence := n.confidence,
                            summary := n.summary, prompt_version := n.prompt_version,
                            answer_json := n.answer_json)
                ORDER BY n.judge = 'jury', n.judge) FILTER (WHERE n.judge IS NOT NULL) AS notes
    FROM drift d
    LEFT JOIN latest n
      ON n.server_id = d.server_id AND n.rule = d.rule AND n.entity IS NOT DISTINCT FROM d.entity
     AND n.path = d.path AND n.old_json = d.old_text AND n.new_json = d.new_text
    GROUP BY ALL
)
SELECT server_id, entity, rule, path, old_version, new_version, captured_at, verdict,
       old_text, new_text, security_relevant, coalesce(notes, []) AS notes,
       CASE WHEN notes IS NULL THEN NULL
            WHEN notes[-1].judge = 'jury' OR len(notes) = 1 THEN notes[-1]
       END AS headline
FROM joined
ORDER BY server_id, security_relevant DESC, version_key, path, rule, old_version
