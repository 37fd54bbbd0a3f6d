/*
 * metrics and host: what NVML and /proc said during the session, summarised (one row per device, one for
 * the host). Plain SQL aggregates; the C here only names the columns.
 */
#include "analysis.h"
#include "util.h"

static const struct colspec metrics_cols[] = {
	{ "device", "Device", C_INT },
	{ "samples", "Samples", C_INT },
	{ "gpu_util_avg", "GPU util avg %", C_PCT },
	{ "gpu_util_max", "max %", C_PCT },
	{ "mem_util_avg", "Mem util avg %", C_PCT },
	{ "mem_used_max", "Mem used max", C_BYTES },
	{ "mem_total", "Mem total", C_BYTES },
	{ "power_avg_w", "Power avg W", C_REAL },
	{ "power_max_w", "max W", C_REAL },
	{ "temp_max_c", "Temp max C", C_INT },
	{ "sm_clock_avg_mhz", "SM clock avg MHz", C_REAL },
	{ "energy_mj", "Energy mJ", C_INT },
};

int run_metrics(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	return script_table(db, sql, o, out, 0, "metrics", "Device metrics (NVML) per device", metrics_cols,
			    NCOLS(metrics_cols));
}

static const struct colspec host_cols[] = {
	{ "samples", "Samples", C_INT },
	{ "cpu_pct_avg", "CPU avg % of a core", C_PCT },
	{ "cpu_pct_max", "CPU max %", C_PCT },
	{ "rss_max", "RSS max", C_BYTES },
	{ "sys_mem_used_max", "System memory used max", C_BYTES },
	{ "sys_mem_total", "System memory", C_BYTES },
};

int run_host(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	return script_table(db, sql, o, out, 1, "host", "Host metrics: the program's process tree and the system",
			    host_cols, NCOLS(host_cols));
}
