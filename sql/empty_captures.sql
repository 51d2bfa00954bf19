-- Captures that are no captures: a contract that lists no tools while its
-- server advertises the tools capability, or while another capture of the
-- same server lists tools (a server started without the configuration it
-- lists its tools for). The crawler records the first kind as a failure
-- (`error_kind` empty, the cause from the server's stderr; see
-- mcpdelta/crawl/runner.py lists_no_tools); this view reads the lake the
-- same way, and adds the second kind, which only the other releases show.
-- Such a contract is never a release (sql/releases.sql), and the attempts
-- that captured it read as failures of kind `empty` (the view `attempts`).
-- Created as the view `empty_captures` by mcpdelta.lake.
WITH listed AS (
    SELECT server_id, manifest_digest, count(*) AS tools FROM tools GROUP BY server_id, manifest_digest
),
contracts AS (
    SELECT m.server_id, m.manifest_digest,
           coalesce(json_exists(any_value(m.surface_json), '$.capabilities.tools'), false) AS advertises,
           coalesce(any_value(l.tools), 0) AS tools
    FROM manifests m
    LEFT JOIN listed l ON l.server_id = m.server_id AND l.manifest_digest = m.manifest_digest
    WHERE m.ok
    GROUP BY m.server_id, m.manifest_digest
),
listing AS (
    SELECT server_id, max(tools) AS most FROM contracts GROUP BY server_id
)
SELECT c.server_id, c.manifest_digest,
       CASE WHEN c.advertises THEN 'listed no tools, though it advertises the tools capability'
            ELSE 'listed no tools, though another release of this server lists ' || s.most || ' tools'
       END AS error
FROM contracts c JOIN listing s ON s.server_id = c.server_id
WHERE c.tools = 0 AND (c.advertises OR s.most > 0)
