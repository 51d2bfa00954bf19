-- Per server, per release: the step from the release before it, with the
-- bump its number declares, the grade its changes earned, its unsuppressed
-- changes by severity and the BREAKING ones a witness proves. Steps not
-- counted (unstable, schemaless, not diffed) are listed with their flags.
SELECT server_id, position, old_version, new_version, published_at, scheme, declared, bumped,
       grade, identical, unstable, schemaless, diffed, counted, spans, error, breaking, potentially_breaking, non_breaking,
       documentation, witnessed, honest
FROM release_steps
ORDER BY server_id, position
