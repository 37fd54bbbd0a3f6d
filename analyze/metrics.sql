-- metrics: device and host metrics sampled during the session (NVML and /proc), summarised.
-- Statement 1: per device.
SELECT device_id, count(*), avg(gpu_util), max(gpu_util), avg(mem_util), max(mem_used), max(mem_total),
       avg(power_mw) / 1000.0, max(power_mw) / 1000.0, max(temp_c), avg(sm_clock_mhz),
       max(energy_mj) - min(energy_mj)
FROM device_metrics WHERE session_id = :session GROUP BY device_id ORDER BY device_id;

-- Statement 2: the host (process tree and system).
SELECT count(*), avg(cpu_pct), max(cpu_pct), max(rss_bytes), max(sys_mem_used), max(sys_mem_total)
FROM host_metrics WHERE session_id = :session HAVING count(*) > 0;
