-- stalls: sampled warp states (CUPTI PC sampling) per reason, most sampled first: samples, share of all
-- samples, the not-issued twin's samples beside them (never added), and the reason's meaning and usual
-- cause from analyze/stall-reasons.txt, bound as :stall_reasons (KEY<TAB>LABEL<TAB>HINT lines; NULL for
-- a reason it does not list). "selected" is an issuing warp, not a stall: its kind is "issued".
-- Samples join the device's own stall-reason table on (session, process, device, reason index). CUPTI
-- reports, per reason, the samples of warps in that state ("smsp__pcsamp_warps_issue_stalled_wait") and,
-- as a twin, the subset in which the warp issued nothing ("..._wait_not_issued"). A reason's key is its
-- raw name without that prefix and the twin's suffix. Plain SQL: a session has thousands of samples.
WITH RECURSIVE lines(line, rest) AS (
	SELECT NULL, :stall_reasons || char(10)
	UNION ALL
	SELECT substr(rest, 1, instr(rest, char(10)) - 1), substr(rest, instr(rest, char(10)) + 1)
	FROM lines WHERE rest <> ''
),
fields(n, key, after) AS (
	SELECT row_number() OVER (), substr(line, 1, instr(line, char(9)) - 1), substr(line, instr(line, char(9)) + 1)
	FROM lines WHERE line NOT LIKE '#%' AND instr(line, char(9)) > 0
),
info(n, key, label, hint) AS (
	SELECT n, key, substr(after, 1, instr(after, char(9)) - 1), substr(after, instr(after, char(9)) + 1)
	FROM fields WHERE instr(after, char(9)) > 0
),
keyed AS (
	SELECT p.*, CASE WHEN twin THEN substr(k, 1, length(k) - 11) ELSE k END AS key
	FROM (SELECT p.*, length(k) > 11 AND substr(k, -11) = '_not_issued' AS twin
	      FROM (SELECT p.*, r.name AS raw,
			   CASE WHEN substr(r.name, 1, 33) = 'smsp__pcsamp_warps_issue_stalled_' THEN substr(r.name, 34)
				ELSE r.name END AS k
		    FROM pc_samples p
		    JOIN stall_reasons r ON r.session_id = p.session_id AND r.pid = p.pid
		      AND r.device_id = p.device_id AND r.id = p.stall_reason_id
		    WHERE p.session_id = :session) p) p
),
reasons AS (
	SELECT key, sum(CASE WHEN twin THEN 0 ELSE samples END) AS samples,
	       sum(CASE WHEN twin THEN samples ELSE 0 END) AS not_issued
	FROM keyed GROUP BY key
)
SELECT r.key AS reason, CASE WHEN r.key = 'selected' THEN 'issued' ELSE 'stall' END AS kind, r.samples,
       CASE WHEN a.n > 0 THEN 100.0 * r.samples / a.n END AS pct, r.not_issued,
       (SELECT label FROM info i WHERE i.key = r.key ORDER BY i.n LIMIT 1) AS label,
       (SELECT hint FROM info i WHERE i.key = r.key ORDER BY i.n LIMIT 1) AS hint
FROM reasons r, (SELECT sum(samples) AS n FROM reasons) a
ORDER BY r.samples DESC, r.key
LIMIT :top;
