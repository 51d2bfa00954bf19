-- Every version no capture pass could capture, with the reason the first
-- attempt gave (`error_kind`) and its message: recorded, never dropped.
-- The first attempt's, because later passes run offline from its package
-- cache and can only say the version is not there.
SELECT server_id, version, min(published_at) AS published_at,
       arg_min(error_kind, attempted_at) AS reason, arg_min(error, attempted_at) AS error
FROM attempts
GROUP BY server_id, version, version_key
HAVING NOT bool_or(ok)
ORDER BY server_id, version_key
