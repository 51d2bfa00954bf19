-- Per server, per release: the step from the release before it, with the
-- bump its number declares, the grade its changes earned, its unsuppressed
-- changes by severity and the BREAKING ones by evidence (proven, by rule,
-- unexplained). Steps not counted (unstable, schemaless, captured under
-- different recipes, not diffed) are listed with their flags.
SELECT server_id, position, old_version, new_version, published_at, scheme, declared, bumped,
       grade, identical, unstable, schemaless, recipe_changed, diffed, counted, spans, error, breaking,
       potentially_breaking, non_breaking, documentation, proven, by_rule, unexplained, honest
FROM release_steps
ORDER BY server_id, position
