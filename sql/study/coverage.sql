-- Coverage, per server and (last row, server_id NULL) in all: versions
-- attempted, captured by at least one pass, failed by every pass (reasons in
-- failures.sql), how many capture passes (a source and client identity)
-- tried each version, the versions two passes captured identically
-- (confirmed), the versions whose passes disagree, the versions captured
-- once only (unconfirmed: one pass, or the other pass failed), the failed
-- versions whose every capture listed no tools where tools were expected
-- (empty: sql/empty_captures.sql; the attempts read them as failures of
-- kind `empty`), the captured releases whose input schemas came out empty
-- (schemaless) and those the registry dates after a higher version
-- (dated_late; both in sql/releases.sql) and of those the ones in a counted
-- step (dated_late_counted), and the span of publish dates the
-- installs were pinned to. From the crawl log (`attempts`) and `releases`.
WITH in_counted AS (
    SELECT DISTINCT server_id, version FROM (
        SELECT server_id, old_version AS version FROM release_steps WHERE counted
        UNION ALL
        SELECT server_id, new_version FROM release_steps WHERE counted)
),
versions AS (
    SELECT server_id, version, bool_or(ok) AS captured,
           bool_or(error_kind = 'empty') AND NOT bool_or(ok) AS empty,
           count(DISTINCT (source, client)) AS passes,
           count(DISTINCT (source, client)) FILTER (WHERE ok) AS passes_ok,
           count(DISTINCT manifest_digest) FILTER (WHERE ok) AS contracts,
           min(published_at) AS published_at
    FROM attempts GROUP BY server_id, version
)
SELECT v.server_id,
       count(DISTINCT v.server_id) AS servers,
       count(*) AS attempted,
       count(*) FILTER (WHERE v.captured) AS captured,
       count(*) FILTER (WHERE NOT v.captured) AS failed,
       count(*) FILTER (WHERE v.empty) AS empty,
       max(v.passes) AS passes,
       count(*) FILTER (WHERE v.passes_ok >= 2 AND v.contracts = 1) AS confirmed,
       count(*) FILTER (WHERE v.contracts > 1) AS disagree,
       count(*) FILTER (WHERE v.captured AND v.passes_ok < 2) AS unconfirmed,
       count(*) FILTER (WHERE r.schemaless) AS schemaless,
       count(*) FILTER (WHERE r.dated_late) AS dated_late,
       count(*) FILTER (WHERE r.schemaless AND r.dated_late) AS schemaless_dated_late,
       count(*) FILTER (WHERE r.dated_late AND k.version IS NOT NULL) AS dated_late_counted,
       min(v.published_at) AS first_published,
       max(v.published_at) AS last_published
FROM versions v
LEFT JOIN releases r ON r.server_id = v.server_id AND r.version = v.version
LEFT JOIN in_counted k ON k.server_id = v.server_id AND k.version = v.version
GROUP BY ROLLUP (v.server_id)
ORDER BY v.server_id NULLS LAST
