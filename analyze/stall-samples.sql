-- module: stall-samples
-- title: PC samples with their raw reason names, keys and not-issued twins
--
-- stall-samples: what stalls, stall_kernels and stall_pcs read (they include this module, which runs
-- before them): temp.stall_samples, the PC samples of CUPTI's PC sampling with their raw reason names (raw),
-- each reason's key and whether the row is a twin. Samples join the device's own stall-reason table on
-- (session, process, device, reason index). CUPTI reports, per reason, the samples of warps in that state
-- ("smsp__pcsamp_warps_issue_stalled_wait") and, as a twin, the subset in which the warp issued nothing
-- ("..._wait_not_issued"): twins are shown beside their reason, never added to it. A reason's key is its
-- raw name without that prefix and the twin's suffix. Plain SQL: a session has thousands of samples.
CREATE TEMP VIEW IF NOT EXISTS stall_samples AS
SELECT p.*, CASE WHEN twin THEN substr(k, 1, length(k) - 11) ELSE k END AS key
FROM (SELECT p.*, length(k) > 11 AND substr(k, -11) = '_not_issued' AS twin
      FROM (SELECT p.session_id, p.function_id, p.pc_offset, p.file_id, p.line, p.samples, r.name AS raw,
		   CASE WHEN substr(r.name, 1, 33) = 'smsp__pcsamp_warps_issue_stalled_' THEN substr(r.name, 34)
			ELSE r.name END AS k
	    FROM pc_samples p
	    JOIN stall_reasons r ON r.session_id = p.session_id AND r.pid = p.pid
	      AND r.device_id = p.device_id AND r.id = p.stall_reason_id) p) p;
