-- Each captured server's latest release listed again with the official
-- MCP SDK client (the table `sdk_check`, from bench/sdk_check.py), for the
-- servers this study captured: the tools each client listed, whether the
-- names and the input schemas match, and what differs.
SELECT c.server_id, c.version, c.crawler_tools, c.sdk_tools, c.names_match, c.schemas_match,
       c.sdk_protocol, c.difference
FROM sdk_check c SEMI JOIN releases r ON r.server_id = c.server_id AND r.version = c.version
ORDER BY c.names_match AND c.schemas_match, c.server_id
