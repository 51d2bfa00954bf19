-- Every release of every server next to the release before it, in version
-- order: the unit a survey counts. One row per step (a server's first
-- release has none), whether or not the two contracts differ, joined to
-- what this engine and policy found for that pair of contracts in the
-- ledger (the view `ledger`, sql/ledger.sql: each pair of contracts once,
-- by digest, so a pair diffed once for any reason counts wherever it
-- occurs). Built on the view `releases` (sql/releases.sql); created as
-- the view `release_steps` by mcpdelta.lake.
--
-- unstable, schemaless: either release is (sql/releases.sql).
-- recipe_changed: the two releases were captured under different recipes
--   (sql/releases.sql recipe_hash; both recorded), or one of them under more
--   than one: a tool set that moved may be the configuration's doing.
-- spans: versions attempted between the two that were never captured (a
--   step across a release that could not be installed or started).
-- counted: both releases stable and not schemaless, under one recipe, and
--   the pair diffed: the steps a survey counts; the others are shown with
--   their flag.
-- proven, by_rule, unexplained: the BREAKING changes by what stands behind
--   them (sql/ledger.sql).
-- scheme: semver (1.0.0 on), initial (0.y.z, where anything may change),
--   calver (a year as the major number: the version is a date and promises
--   nothing), other (not a number). declared: the bump the version number
--   announces, read as Cargo reads semver (0.y -> 0.y+1 and 0.0.z -> 0.0.z+1
--   are major, 0.y.z -> 0.y.z+1 minor); calver and other steps declare nothing.
-- bumped: the number that moved (major, minor, patch), whatever the scheme
--   promises: what a reader of the version sees.
-- honest: the declared bump is at least the grade the changes earned; null
--   where nothing was declared or the step is not counted.
WITH steps AS (
    SELECT n.server_id, n.position, o.version AS old_version, n.version AS new_version,
           o.digest AS old_digest, n.digest AS new_digest, n.captured_at, n.published_at,
           o.unstable OR n.unstable AS unstable, o.schemaless OR n.schemaless AS schemaless,
           coalesce(o.recipes > 1 OR n.recipes > 1 OR o.recipe_hash <> n.recipe_hash, false) AS recipe_changed,
           CASE WHEN n.major >= 2000 THEN 'calver'
                WHEN o.major IS NULL OR n.major IS NULL THEN 'other'
                WHEN o.major = 0 THEN 'initial'
                ELSE 'semver' END AS scheme,
           CASE WHEN n.major >= 2000 THEN 'calver'
                WHEN o.major IS NULL OR n.major IS NULL THEN 'unknown'
                WHEN n.major <> o.major THEN 'major'
                WHEN o.major = 0 AND n.minor IS DISTINCT FROM o.minor THEN 'major'
                WHEN o.major = 0 AND o.minor = 0 AND n.patch IS DISTINCT FROM o.patch THEN 'major'
                WHEN o.major = 0 AND n.patch IS DISTINCT FROM o.patch THEN 'minor'
                WHEN n.minor IS DISTINCT FROM o.minor THEN 'minor'
                WHEN n.patch IS DISTINCT FROM o.patch THEN 'patch'
                ELSE 'none' END AS declared,
           CASE WHEN o.major IS NULL OR n.major IS NULL THEN 'unknown'
                WHEN n.major <> o.major THEN 'major'
                WHEN n.minor IS DISTINCT FROM o.minor THEN 'minor'
                WHEN n.patch IS DISTINCT FROM o.patch THEN 'patch'
                ELSE 'none' END AS bumped
    FROM releases n JOIN releases o ON o.server_id = n.server_id AND o.position = n.position - 1
),
spanned AS (
    SELECT s.server_id, s.position, count(DISTINCT a.version) AS spans
    FROM steps s
    JOIN releases o ON o.server_id = s.server_id AND o.version = s.old_version
    JOIN releases n ON n.server_id = s.server_id AND n.version = s.new_version
    JOIN attempts a ON a.server_id = s.server_id AND a.version_key > o.version_key
                   AND a.version_key < n.version_key
    GROUP BY s.server_id, s.position
),
joined AS (
    SELECT s.*, coalesce(x.spans, 0) AS spans, s.old_digest = s.new_digest AS identical, p.error,
           s.old_digest = s.new_digest OR (p.server_id IS NOT NULL AND p.error IS NULL) AS diffed,
           CASE WHEN s.old_digest = s.new_digest THEN 'none' ELSE p.grade END AS grade,
           coalesce(p.breaking, 0) AS breaking,
           coalesce(p.potentially_breaking, 0) AS potentially_breaking,
           coalesce(p.non_breaking, 0) AS non_breaking,
           coalesce(p.documentation, 0) AS documentation,
           coalesce(p.proven, 0) AS proven,
           coalesce(p.by_rule, 0) AS by_rule,
           coalesce(p.unexplained, 0) AS unexplained
    FROM steps s
    LEFT JOIN ledger p ON p.server_id = s.server_id AND p.old_digest = s.old_digest
                     AND p.new_digest = s.new_digest
    LEFT JOIN spanned x ON x.server_id = s.server_id AND x.position = s.position
)
SELECT *, breaking + potentially_breaking + non_breaking + documentation AS changes,
       diffed AND NOT unstable AND NOT schemaless AND NOT recipe_changed AS counted,
       CASE WHEN unstable OR schemaless OR recipe_changed OR NOT diffed
                 OR declared IN ('calver', 'unknown') THEN NULL
            ELSE list_position(['none', 'patch', 'minor', 'major'], declared)
                 >= list_position(['none', 'patch', 'minor', 'major'], grade) END AS honest
FROM joined
