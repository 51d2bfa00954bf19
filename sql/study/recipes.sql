-- The recipes the captures ran under (mcpdelta/crawl/recipe.py; the
-- attempts' recipe_hash and recipe_json, null where the crawl log recorded
-- none). Rows with level 'recipe', one per server and recipe: its argument
-- list, the names of the environment variables it set (never their
-- values), its fixtures, the entry's note on how the server's tool set
-- depends on configuration (tool_set), and the versions attempted and
-- captured under it. Then one row with level 'all': the servers and
-- versions attempted, those with a recipe recorded, the servers whose
-- captures ran under more than one recipe, and those whose recipe notes a
-- configuration-dependent tool set.
WITH per_recipe AS (
    SELECT server_id, recipe_hash, any_value(recipe_json) AS recipe_json,
           count(DISTINCT version) AS attempted, count(DISTINCT version) FILTER (WHERE ok) AS captured
    FROM attempts GROUP BY server_id, recipe_hash
),
per_server AS (
    SELECT server_id, count(recipe_hash) AS recipes,
           bool_or(json_extract_string(recipe_json, '$.tool_set') IS NOT NULL) AS tool_set
    FROM per_recipe GROUP BY server_id
)
SELECT 'recipe' AS level, server_id, recipe_hash,
       CAST(json_extract(recipe_json, '$.args') AS VARCHAR[]) AS args,
       CAST(json_extract(recipe_json, '$.env') AS VARCHAR[]) AS env,
       CAST(json_extract(recipe_json, '$.fixtures') AS VARCHAR[]) AS fixtures,
       json_extract_string(recipe_json, '$.tool_set') AS tool_set,
       attempted, captured,
       NULL::BIGINT AS servers, NULL::BIGINT AS recorded_servers, NULL::BIGINT AS versions,
       NULL::BIGINT AS recorded_versions, NULL::BIGINT AS several_recipes, NULL::BIGINT AS tool_set_servers
FROM per_recipe WHERE recipe_hash IS NOT NULL
UNION ALL
SELECT 'all', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       (SELECT count(*) FROM per_server),
       (SELECT count(*) FROM per_server WHERE recipes > 0),
       (SELECT count(*) FROM (SELECT DISTINCT server_id, version FROM attempts)),
       (SELECT count(*) FROM (SELECT DISTINCT server_id, version FROM attempts WHERE recipe_hash IS NOT NULL)),
       (SELECT count(*) FROM per_server WHERE recipes > 1),
       (SELECT count(*) FROM per_server WHERE tool_set)
ORDER BY level DESC, server_id, recipe_hash
