-- Description drift per server over the counted release steps (the view
-- `drift_scored`): steps whose prose moved, prose changes, rewrites, how
-- many the offline judge scored, the median and largest semantic distance
-- of the rewrites, how many it called meaning_changed (`moved`), and its
-- security flags. A last row (server_id NULL) for all. Servers with the most
-- rewrites first.
SELECT server_id,
       count(DISTINCT (server_id, position)) AS steps,
       count(*) AS prose_changes,
       count(*) FILTER (WHERE rewrite) AS rewrites,
       count(*) FILTER (WHERE judged) AS judged,
       round(median(distance) FILTER (WHERE rewrite), 3) AS median_distance,
       count(*) FILTER (WHERE rewrite AND verdict = 'meaning_changed') AS moved,
       round(max(distance) FILTER (WHERE rewrite), 3) AS largest_distance,
       count(*) FILTER (WHERE flagged) AS security_flags
FROM drift_scored
GROUP BY ROLLUP (server_id)
ORDER BY server_id IS NULL, rewrites DESC, server_id
