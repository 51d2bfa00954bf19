-- From candidates to captures, in one row: the candidates, those classified
-- as servers (and of those, any the servers file does not survey: it should
-- be none), the servers it surveys, those with a release attempted, with a
-- release that started (its install worked and the server ran: an attempt
-- past install and spawn), those whose every started release listed no
-- tools where tools were expected (only_empty: sql/empty_captures.sql) and
-- those with a release captured. Then the releases attempted, those that
-- listed no tools (empty: failed, never counted) and those captured, which
-- handshake answered (server/discover or initialize), and per captured
-- server the releases captured (median, fewest, most).
WITH surveyed AS (
    SELECT DISTINCT server_id FROM population WHERE server_id IS NOT NULL
),
versions AS (
    SELECT a.server_id, a.version, bool_or(a.ok) AS captured,
           bool_or(a.ok OR a.error_kind NOT IN ('install_failed', 'spawn_failed', 'version_lookup',
                                                 'missing_env', 'bad_target', 'interrupted')) AS started,
           bool_or(a.error_kind = 'empty') AND NOT bool_or(a.ok) AS empty,
           arg_min(a.handshake, a.attempted_at) FILTER (WHERE a.ok) AS handshake
    FROM attempts a SEMI JOIN surveyed s ON s.server_id = a.server_id
    GROUP BY a.server_id, a.version
),
per_server AS (
    SELECT server_id, bool_or(started) AS started, count(*) FILTER (WHERE captured) AS captured,
           count(*) FILTER (WHERE empty) AS empty
    FROM versions GROUP BY server_id
),
counts AS (
    SELECT (SELECT count(*) FROM population) AS candidates,
           (SELECT count(*) FROM population WHERE class = 'server') AS servers,
           (SELECT count(*) FROM population WHERE class = 'server' AND server_id IS NULL) AS servers_not_surveyed,
           (SELECT count(*) FROM surveyed) AS surveyed,
           (SELECT count(*) FROM per_server) AS attempted,
           (SELECT count(*) FROM per_server WHERE started) AS started,
           (SELECT count(*) FROM per_server WHERE empty > 0 AND captured = 0) AS only_empty,
           (SELECT count(*) FROM per_server WHERE captured > 0) AS captured,
           (SELECT count(*) FROM versions) AS releases_attempted,
           (SELECT count(*) FROM versions WHERE empty) AS releases_empty,
           (SELECT count(*) FROM versions WHERE captured) AS releases_captured,
           (SELECT count(*) FROM versions WHERE handshake = 'discover') AS answered_discover,
           (SELECT count(*) FROM versions WHERE handshake = 'initialize') AS answered_initialize,
           (SELECT median(captured) FROM per_server WHERE captured > 0) AS median_releases,
           (SELECT min(captured) FROM per_server WHERE captured > 0) AS fewest_releases,
           (SELECT max(captured) FROM per_server WHERE captured > 0) AS most_releases
)
SELECT *, round(100.0 * releases_captured / nullif(releases_attempted, 0), 1) AS releases_captured_pct
FROM counts
