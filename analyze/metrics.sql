-- analysis: metrics
-- title: Device metrics (NVML): utilisation, memory, power, temperature, clocks
-- include: views
-- section: 22
-- table: metrics Device metrics (NVML) per device
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device number (on its node)
-- column: samples count NVML samples
-- column: gpu_util_avg pct "GPU util avg %" mean GPU utilisation, %
-- column: gpu_util_max pct "max %" highest GPU utilisation, %
-- column: mem_util_avg pct "Mem util avg %" mean memory utilisation, %
-- column: mem_used_max bytes most memory used
-- column: mem_total bytes the device's memory
-- column: power_avg_w real "Power avg W" mean power, W
-- column: power_max_w real "max W" highest power, W
-- column: temp_max_c int "Temp max C" highest temperature, C
-- column: sm_clock_avg_mhz real "SM clock avg MHz" mean SM clock, MHz
-- column: energy_mj int "Energy mJ" energy counter's last - first, mJ
--
-- metrics: what NVML sampled on each device during the session, summarised: one row per device.
SELECT g.rank, g.host, device_id AS device, count(*) AS samples, avg(gpu_util) AS gpu_util_avg, max(gpu_util) AS gpu_util_max,
       avg(mem_util) AS mem_util_avg, max(mem_used) AS mem_used_max, max(mem_total) AS mem_total,
       avg(power_mw) / 1000.0 AS power_avg_w, max(power_mw) / 1000.0 AS power_max_w, max(temp_c) AS temp_max_c,
       avg(sm_clock_mhz) AS sm_clock_avg_mhz, max(energy_mj) - min(energy_mj) AS energy_mj
FROM device_metrics m LEFT JOIN temp.gpu_nodes p ON p.session_id = m.session_id AND p.pid = m.pid
LEFT JOIN temp.gpu_node_names g ON g.session_id = m.session_id AND g.node = coalesce(p.node, 0)
WHERE m.session_id = :session
GROUP BY coalesce(p.node, 0), device_id ORDER BY coalesce(p.node, 0), device_id;
