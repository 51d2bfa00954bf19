-- Unsuppressed changes by effective severity, and how many were suppressed.
SELECT severity, count(*) FILTER (WHERE NOT suppressed) AS changes,
       count(*) FILTER (WHERE suppressed) AS suppressed
FROM changes
GROUP BY severity
