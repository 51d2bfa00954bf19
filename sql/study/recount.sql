-- The study's headline figures beside a second reader's recount of them
-- from the capture files (bench/recount.py, which shares no code with the
-- study; the tables `recount_figures` and `recount_passes`, empty when the
-- study was given no --recount): versions attempted, captured (by some
-- pass), failed as empty (sql/empty_captures.sql), servers with a release,
-- releases, release steps (each release against the one before, counted or
-- not), the tools the releases list (summed), and per capture pass the
-- versions its log names and the captures it holds (the pass's folder as
-- given to both), in that order (`position`). `recount` is null where no
-- recount was given.
WITH versions AS (
    SELECT server_id, version, bool_or(ok) AS captured,
           bool_or(error_kind = 'empty') AND NOT bool_or(ok) AS empty
    FROM attempts GROUP BY server_id, version
),
study AS (
    SELECT 1 AS position, 'attempted' AS figure, (SELECT count(*) FROM versions) AS value
    UNION ALL SELECT 2, 'captured', (SELECT count(*) FROM versions WHERE captured)
    UNION ALL SELECT 3, 'empty', (SELECT count(*) FROM versions WHERE empty)
    UNION ALL SELECT 4, 'servers', (SELECT count(DISTINCT server_id) FROM releases)
    UNION ALL SELECT 5, 'releases', (SELECT count(*) FROM releases)
    UNION ALL SELECT 6, 'steps', (SELECT count(*) FROM release_steps)
    UNION ALL SELECT 7, 'tools', (SELECT count(*) FROM releases r
                                  JOIN tools t ON t.server_id = r.server_id AND t.manifest_digest = r.digest)
),
passes AS (
    SELECT 10 + 2 * p.position AS position, 'logged in ' || p.folder AS figure,
           (SELECT count(*) FROM attempts a WHERE a.source = 'ingest:' || p.folder) AS value, p.logged AS recount
    FROM recount_passes p
    UNION ALL
    SELECT 11 + 2 * p.position, 'captured in ' || p.folder,
           (SELECT count(*) FROM attempts a WHERE a.source = 'ingest:' || p.folder AND a.ok), p.captures
    FROM recount_passes p
)
SELECT s.position, s.figure, s.value AS study, r.value AS recount
FROM study s LEFT JOIN recount_figures r ON r.figure = s.figure
UNION ALL
SELECT position, figure, value, recount FROM passes
ORDER BY position
