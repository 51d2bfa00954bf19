-- Candidates for "the five most instructive breaks": for each rule and
-- server, the one breaking change (step_breaks.sql, created first as the
-- view `step_breaks`) that shows it best, ranked. Rules that broke the most
-- servers come first (a mistake many servers make is one the next server
-- will repeat), then the rule's most frequent; within a rule, a proven
-- break first (it is concrete), then one by rule before an unexplained
-- one, then one shipped under the quietest number
-- (patch before minor before major), then the earliest. The write-up takes
-- the first five whose rules and servers are all different.
WITH rules AS (
    SELECT rule, count(DISTINCT server_id) AS rule_servers, count(*) AS rule_changes
    FROM step_breaks GROUP BY rule
),
best AS (
    SELECT b.*, r.rule_servers, r.rule_changes
    FROM step_breaks b JOIN rules r ON r.rule = b.rule
    QUALIFY row_number() OVER (PARTITION BY b.rule, b.server_id
        ORDER BY b.witness_json IS NULL, b.evidence = 'unexplained',
                 list_position(['none', 'patch', 'minor', 'major', 'unknown'], b.bumped),
                 b.position, b.path) = 1
)
SELECT row_number() OVER (ORDER BY rule_servers DESC, rule_changes DESC, rule, witness_json IS NULL,
                          evidence = 'unexplained',
                          list_position(['none', 'patch', 'minor', 'major', 'unknown'], bumped),
                          server_id, position, path) AS rank,
       server_id, old_version, new_version, declared, bumped, rule, entity, path, message,
       witness_json, witness_note, evidence, rule_servers, rule_changes
FROM best
ORDER BY rank
