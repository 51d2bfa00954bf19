-- Description drift per server, with the offline judge's word: how often a
-- server's prose moves release to release and how far its meaning moves.
-- Reads the view `drift_scored` (sql/drift_scored.sql over
-- sql/description_drift.sql, each created first under its name, as
-- mcpdelta/commands/drift.py and the study do). `rewrites` are changes with
-- text on both sides; `median_distance` and `largest_distance` are the
-- judge's semantic distances over them; `moved` counts the rewrites it called
-- meaning_changed; `security_flags` the changes its security rules flagged.
-- Servers with the most prose changes first; a last row (server_id NULL)
-- for all.
SELECT server_id,
       count(DISTINCT (server_id, old_version, new_version)) AS steps,
       count(*) AS prose_changes,
       count(*) FILTER (WHERE rewrite) AS rewrites,
       count(*) FILTER (WHERE judged) AS judged,
       round(median(distance) FILTER (WHERE rewrite), 3) AS median_distance,
       count(*) FILTER (WHERE rewrite AND verdict = 'meaning_changed') AS moved,
       round(max(distance) FILTER (WHERE rewrite), 3) AS largest_distance,
       count(*) FILTER (WHERE flagged) AS security_flags
FROM drift_scored
GROUP BY ROLLUP (server_id)
ORDER BY server_id IS NULL, prose_changes DESC, server_id
