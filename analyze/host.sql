-- host: what /proc said of the program's process tree and of the system during the session, summarised
-- in one row (none when nothing was sampled).
SELECT count(*) AS samples, avg(cpu_pct) AS cpu_pct_avg, max(cpu_pct) AS cpu_pct_max, max(rss_bytes) AS rss_max,
       max(sys_mem_used) AS sys_mem_used_max, max(sys_mem_total) AS sys_mem_total
FROM host_metrics WHERE session_id = :session HAVING count(*) > 0;
