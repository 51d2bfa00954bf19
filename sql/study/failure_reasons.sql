-- Failed versions (failures.sql, created first as the view `failures`)
-- counted by reason, most frequent first.
SELECT reason, count(*) AS versions, count(DISTINCT server_id) AS servers
FROM failures GROUP BY reason ORDER BY versions DESC, reason
