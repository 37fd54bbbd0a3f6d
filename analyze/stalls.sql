-- analysis: stalls
-- title: Warp stall reasons from PC sampling: samples, share, meaning, usual cause
-- include: stall-samples
-- section: 11
-- table: stalls Warp states sampled (PC sampling): where warps wait
-- column: reason text the stall reason's key
-- column: kind text stall, or issued for a warp that issued
-- column: samples count samples of warps in that state
-- column: pct pct "Share %" their share of all samples, %
-- column: not_issued count the not-issued twin's samples (never added)
-- column: label text "Meaning" what the reason means (analyze/stall-reasons.txt)
-- column: hint text "Usual cause" its usual cause
--
-- stalls: sampled warp states (CUPTI PC sampling) per reason, most sampled first: samples, share of all
-- samples, the not-issued twin's samples beside them (never added), and the reason's meaning and usual
-- cause from analyze/stall-reasons.txt, bound as :stall_reasons (KEY<TAB>LABEL<TAB>HINT lines; NULL for
-- a reason it does not list). "selected" is an issuing warp, not a stall: its kind is "issued".
-- The samples and their reasons' keys: temp.stall_samples (analyze/stall-samples.sql).
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
	SELECT * FROM temp.stall_samples WHERE session_id = :session
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
