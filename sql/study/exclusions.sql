-- Why a candidate is not surveyed: the reasons by class, with up to three
-- example packages. An excluded server's reason names its own remote
-- service in parentheses; the detail is folded so the reasons group.
WITH r AS (
    SELECT class, package,
           CASE WHEN class = 'excluded' THEN regexp_replace(reason_if_excluded, '\s*\(.*\)$', '')
                ELSE reason_if_excluded END AS reason
    FROM population WHERE class <> 'server'
)
SELECT class, reason, count(*) AS candidates,
       list_slice(list(package ORDER BY package), 1, 3) AS examples
FROM r
GROUP BY class, reason
ORDER BY class, candidates DESC, reason
