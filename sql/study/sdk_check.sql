-- Each captured server's latest release listed again with the official
-- MCP SDK client (the table `sdk_check`, from bench/sdk_check.py), for the
-- servers this study captured: the tools each client listed, whether the
-- names and the input schemas match, and what differs. `checked`: both
-- clients listed at least one tool; an empty list on either side (or an
-- SDK client that failed) compares nothing, so it is never a match.
SELECT c.server_id, c.version, c.crawler_tools, c.sdk_tools,
       coalesce(c.crawler_tools > 0 AND c.sdk_tools > 0, false) AS checked,
       c.names_match AND coalesce(c.crawler_tools > 0 AND c.sdk_tools > 0, false) AS names_match,
       c.schemas_match AND coalesce(c.crawler_tools > 0 AND c.sdk_tools > 0, false) AS schemas_match,
       c.sdk_protocol, c.difference
FROM sdk_check c SEMI JOIN releases r ON r.server_id = c.server_id AND r.version = c.version
ORDER BY checked, names_match AND schemas_match, c.server_id
