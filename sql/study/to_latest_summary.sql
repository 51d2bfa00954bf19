-- to_latest.sql (created first as the view `to_latest`) per server and
-- (last row, server_id NULL) in all: the releases compared with their
-- latest that count (to_latest.counted), how many a caller could not
-- upgrade from without a break (breaking_upgrades) and without a proven
-- one (proven_upgrades), how many do not count, and the breaking changes
-- (and the proven ones) between each server's first release and its
-- latest (where that pair counts).
SELECT server_id,
       count(*) FILTER (WHERE counted) AS releases,
       count(*) FILTER (WHERE counted AND proven > 0) AS proven_upgrades,
       count(*) FILTER (WHERE counted AND breaking > 0) AS breaking_upgrades,
       count(*) FILTER (WHERE NOT counted) AS not_counted,
       sum(proven) FILTER (WHERE counted AND position = 1) AS proven_from_first,
       sum(breaking) FILTER (WHERE counted AND position = 1) AS breaking_from_first,
       count(*) FILTER (WHERE counted AND position = 1) AS first_counted
FROM to_latest
GROUP BY ROLLUP (server_id)
ORDER BY server_id NULLS LAST
