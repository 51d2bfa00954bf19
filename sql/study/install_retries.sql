-- The releases captured only with a later dependency cut-off: their first
-- install failed on a dependency the registry dates after the release, and
-- a later try (a cut-off a week later, else none) worked. Counted apart:
-- their dependencies are newer than their users had. With how it was
-- installed and why the first try failed.
SELECT server_id, version, min(published_at) AS published_at,
       arg_min(install_retry, attempted_at) AS retry
FROM attempts
WHERE ok AND install_retry IS NOT NULL
GROUP BY server_id, version, version_key
ORDER BY server_id, version_key
