-- Each release against its server's latest: what a caller written against
-- that release meets on upgrading straight to today's contract. Changes
-- come from the ledger by digest (`survey --pairs latest` diffs them); a
-- release whose contract is the latest's has none. `diffed` is false where
-- the pair is not in the ledger; `counted`: diffed, neither side unstable
-- or schemaless, and both captured under one recipe (sql/releases.sql).
-- Breaking changes with the proven ones (a witness a validator confirmed).
WITH latest AS (
    SELECT server_id, version, digest, unstable, schemaless, recipe_hash, recipes FROM releases WHERE latest
)
SELECT r.server_id, r.position, r.version, l.version AS latest,
       r.digest = l.digest AS identical, r.unstable OR l.unstable AS unstable,
       r.schemaless OR l.schemaless AS schemaless,
       coalesce(r.recipes > 1 OR l.recipes > 1 OR r.recipe_hash <> l.recipe_hash, false) AS recipe_changed,
       (r.digest = l.digest OR (p.server_id IS NOT NULL AND p.error IS NULL))
           AND NOT (r.unstable OR l.unstable OR r.schemaless OR l.schemaless)
           AND NOT coalesce(r.recipes > 1 OR l.recipes > 1 OR r.recipe_hash <> l.recipe_hash, false) AS counted,
       coalesce(p.breaking + p.potentially_breaking + p.non_breaking + p.documentation, 0) AS changes,
       coalesce(p.breaking, 0) AS breaking, coalesce(p.proven, 0) AS proven
FROM releases r
JOIN latest l ON l.server_id = r.server_id
LEFT JOIN ledger p ON p.server_id = r.server_id AND p.old_digest = r.digest AND p.new_digest = l.digest
WHERE NOT r.latest
ORDER BY r.server_id, r.position
