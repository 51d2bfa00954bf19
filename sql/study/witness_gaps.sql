-- The BREAKING changes of counted steps without a witness (step_breaks.sql,
-- created first as the view `step_breaks`), by why: not a schema change (a
-- tool, prompt, resource or capability removed or renamed: nothing to
-- validate), none by nature (the schemas accept the same calls, e.g. an
-- input property removed but still accepted as an unknown key), or not
-- found (the bounded search gave up: the break is reported, not proved).
SELECT CASE WHEN witness_note LIKE 'not a schema change%' THEN 'not a schema change'
            WHEN witness_note LIKE 'none by nature%' OR witness_note LIKE 'accepted but ignored%'
                THEN 'none by nature'
            ELSE 'not found' END AS reason,
       count(*) AS changes,
       count(*) FILTER (WHERE rule LIKE 'resource%') AS resources
FROM step_breaks
WHERE witness_json IS NULL
GROUP BY reason
ORDER BY changes DESC, reason
