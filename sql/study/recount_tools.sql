-- Each release's tool count, the study's (its contract's rows in `tools`)
-- beside the second reader's (bench/recount.py, the table `recount_tools`,
-- empty without --recount). Rows with level 'differ', one per release the
-- two count differently or only one of them holds; then one row with level
-- 'all': the releases each holds and those on which they agree.
WITH study AS (
    SELECT r.server_id, r.version, count(t.name) AS tools
    FROM releases r LEFT JOIN tools t ON t.server_id = r.server_id AND t.manifest_digest = r.digest
    GROUP BY r.server_id, r.version
),
paired AS (
    SELECT coalesce(s.server_id, c.server_id) AS server_id, coalesce(s.version, c.version) AS version,
           s.tools AS study, c.tools AS recount
    FROM study s FULL JOIN recount_tools c ON c.server_id = s.server_id AND c.version = s.version
)
SELECT 'differ' AS level, server_id, version, study, recount,
       NULL::BIGINT AS study_releases, NULL::BIGINT AS recount_releases, NULL::BIGINT AS agree
FROM paired WHERE study IS DISTINCT FROM recount AND (SELECT count(*) FROM recount_tools) > 0
UNION ALL
SELECT 'all', NULL, NULL, NULL, NULL, count(study), count(recount), count(*) FILTER (WHERE study = recount)
FROM paired
ORDER BY level DESC, server_id, version
