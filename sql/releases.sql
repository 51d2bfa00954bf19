-- Every captured release of every server, in version order, once: its
-- contract (the first capture's digest), when it was published (the date
-- its install was pinned to, where the crawl log says), when this lake first
-- saw it (first_seen: its earliest attempt or capture row, a failed one
-- included: `attempts` keeps every run's), the recipe its first capture ran
-- under (recipe_hash, mcpdelta/crawl/recipe.py; null where the crawl log
-- recorded none) and how many recipes its captures ran under (recipes), and
-- two warnings. A contract that lists no tools where tools were expected
-- (sql/empty_captures.sql) is no release: its version failed.
--
-- unstable: captured with more than one contract, because two capture
--   passes disagreed or re-crawls differed.
-- schemaless: most of its tools (at least two) have an empty inputSchema
--   (no keys but $schema). Real servers do not ship that; a zod newer than
--   the one the release was built with does, when the install resolves
--   dependencies later than the release (see dated_late).
-- dated_late: the registry dates it after a higher version of the same
--   server, so its publish date (and an install pinned to it) is later
--   than the release itself: a re-upload or a backport.
--
-- Created as the view `releases` by mcpdelta.lake; `release_steps` and the
-- survey write-up build on it.
WITH captured AS (
    SELECT server_id, version, min(version_key) AS version_key, min(captured_at) AS captured_at,
           arg_min(manifest_digest, captured_at) AS digest,
           count(DISTINCT manifest_digest) AS contracts
    FROM manifests m WHERE ok
    AND NOT EXISTS (SELECT 1 FROM empty_captures e
                    WHERE e.server_id = m.server_id AND e.manifest_digest = m.manifest_digest)
    GROUP BY server_id, version
),
passes AS (
    SELECT server_id, version, count(DISTINCT manifest_digest) FILTER (WHERE ok) AS contracts,
           min(published_at) AS published_at, min(attempted_at) AS first_attempt,
           arg_min(recipe_hash, attempted_at) FILTER (WHERE ok) AS recipe_hash,
           count(DISTINCT recipe_hash) FILTER (WHERE ok) AS recipes
    FROM attempts GROUP BY server_id, version
),
seen AS (
    SELECT server_id, version, min(captured_at) AS first_row FROM manifests GROUP BY server_id, version
),
schemas AS (
    SELECT server_id, manifest_digest, count(*) AS tools,
           count(*) FILTER (WHERE coalesce(len(list_filter(json_keys(tool_json, '$.inputSchema'),
                                                            lambda k: k <> '$schema')), 0) = 0) AS empty_inputs
    FROM tools GROUP BY server_id, manifest_digest
)
SELECT c.server_id, c.version, c.version_key, c.captured_at, p.published_at,
       least(p.first_attempt, m.first_row) AS first_seen, c.digest, p.recipe_hash,
       coalesce(p.recipes, 0) AS recipes,
       c.contracts > 1 OR coalesce(p.contracts, 0) > 1 AS unstable,
       coalesce(s.tools >= 2 AND 2 * s.empty_inputs > s.tools, false) AS schemaless,
       coalesce(p.published_at > min(p.published_at) OVER later, false) AS dated_late,
       try_cast(regexp_extract(c.version, '^v?(\d+)', 1) AS BIGINT) AS major,
       try_cast(regexp_extract(c.version, '^v?\d+\.(\d+)', 1) AS BIGINT) AS minor,
       try_cast(regexp_extract(c.version, '^v?\d+\.\d+\.(\d+)', 1) AS BIGINT) AS patch,
       row_number() OVER w AS position,
       row_number() OVER w = count(*) OVER (PARTITION BY c.server_id) AS latest
FROM captured c
LEFT JOIN passes p ON p.server_id = c.server_id AND p.version = c.version
LEFT JOIN seen m ON m.server_id = c.server_id AND m.version = c.version
LEFT JOIN schemas s ON s.server_id = c.server_id AND s.manifest_digest = c.digest
WINDOW w AS (PARTITION BY c.server_id ORDER BY c.version_key, c.captured_at),
       later AS (PARTITION BY c.server_id ORDER BY c.version_key, c.captured_at
                 ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
