-- The study run the write-up comes from: the latest `study` row of `runs`,
-- with its wall time per stage (capture passes, diff of both lakes,
-- judges; the write-up itself excluded) and peak memory (the study
-- process, and the largest of its child processes: installs, servers,
-- diff workers), from the summary the run recorded.
SELECT started_at, finished_at, host,
       CAST(summary_json ->> '$.timings.total_s' AS DOUBLE) AS total_s,
       CAST(summary_json ->> '$.timings.capture_s' AS DOUBLE) AS capture_s,
       CAST(summary_json ->> '$.timings.diff_s' AS DOUBLE) AS diff_s,
       CAST(summary_json ->> '$.timings.judge_s' AS DOUBLE) AS judge_s,
       CAST(summary_json ->> '$.peak_rss_mib' AS BIGINT) AS peak_rss_mib,
       CAST(summary_json ->> '$.child_peak_rss_mib' AS BIGINT) AS child_peak_rss_mib,
       summary_json ->> '$.engine' AS engine,
       summary_json ->> '$.policy' AS policy,
       summary_json ->> '$.command' AS command
FROM runs WHERE command = 'study'
ORDER BY finished_at DESC LIMIT 1
