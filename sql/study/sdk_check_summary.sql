-- sdk_check.sql in one row: servers checked, the SDK client failed to list
-- (no comparison), tool names matching, input schemas matching too.
SELECT count(*) AS checked,
       count(*) FILTER (WHERE c.sdk_tools IS NULL) AS sdk_failed,
       count(*) FILTER (WHERE c.names_match) AS names_match,
       count(*) FILTER (WHERE c.schemas_match) AS schemas_match
FROM sdk_check c SEMI JOIN releases r ON r.server_id = c.server_id AND r.version = c.version
