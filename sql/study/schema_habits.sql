-- Schema habits over time: of the tools of the releases published in each
-- quarter (each release once, its first capture's contract), how many
-- declare an outputSchema, annotations, a description, and a closed input
-- (inputSchema.additionalProperties: false). Releases with no publish date
-- (captured from a command, not a package) are left out.
WITH t AS (
    SELECT r.server_id, r.version, r.published_at, t.tool_json
    FROM releases r JOIN tools t ON t.server_id = r.server_id AND t.manifest_digest = r.digest
    WHERE r.published_at IS NOT NULL
)
SELECT year(published_at) || '-Q' || quarter(published_at) AS quarter,
       count(DISTINCT server_id) AS servers,
       count(DISTINCT server_id || '@' || version) AS releases,
       count(*) AS tools,
       count(*) FILTER (WHERE json_extract(tool_json, '$.outputSchema') IS NOT NULL) AS with_output_schema,
       count(*) FILTER (WHERE json_extract(tool_json, '$.annotations') IS NOT NULL) AS with_annotations,
       count(*) FILTER (WHERE coalesce(length(trim(json_extract_string(tool_json, '$.description'))), 0) > 0)
           AS with_description,
       count(*) FILTER (WHERE json_extract_string(tool_json, '$.inputSchema.additionalProperties') = 'false')
           AS closed_input
FROM t
GROUP BY ALL
ORDER BY quarter
