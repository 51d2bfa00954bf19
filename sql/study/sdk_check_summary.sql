-- sdk_check.sql in one row: the servers listed again (rows), those where
-- both clients listed tools (checked), and of the others why nothing was
-- compared: the SDK client failed to list, or one side listed no tools
-- (never a match). Of the checked: tool names matching, input schemas
-- matching too.
WITH c AS (
    SELECT c.*, coalesce(c.crawler_tools > 0 AND c.sdk_tools > 0, false) AS checked
    FROM sdk_check c SEMI JOIN releases r ON r.server_id = c.server_id AND r.version = c.version
)
SELECT count(*) AS listed,
       count(*) FILTER (WHERE checked) AS checked,
       count(*) FILTER (WHERE sdk_tools IS NULL) AS sdk_failed,
       count(*) FILTER (WHERE sdk_tools IS NOT NULL AND NOT checked) AS listed_none,
       count(*) FILTER (WHERE checked AND names_match) AS names_match,
       count(*) FILTER (WHERE checked AND schemas_match) AS schemas_match
FROM c
