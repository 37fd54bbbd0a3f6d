/*
 * analyses: the table of analyses. Adding one is a row here, an SQL file and a run function.
 */
#include "analysis.h"
#include "db.h"
#include "embed.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

const struct analysis analyses[] = {
	{ "summary", "analyze/summary.sql", "The session and its GPU span, busy and idle time (kernels, copies, memsets)",
	  run_summary },
	{ "devices", "analyze/devices.sql", "GPUs: span and busy time (kernels, copies, memsets), kernel-only time, properties",
	  run_devices },
	{ "hotspots", "analyze/hotspots.sql", "Kernels by total GPU time: count, total, avg, med, min, max, stddev",
	  run_hotspots },
	{ "launch", "analyze/launch.sql", "Launch configurations per kernel: calls, time, theoretical occupancy",
	  run_launch },
	{ "classes", "analyze/classes.sql", "Compute, communication and memory kernels: time, busy, overlap",
	  run_classes },
	{ "memcpy", "analyze/memcpy.sql", "Copies by kind (HtoD, DtoH, DtoD, PtoP) and memsets: time, bytes, GB/s",
	  run_memcpy },
	{ "sync", "analyze/sync.sql", "Host time blocked in synchronization, by type and stream", run_sync },
	{ "ranges", "analyze/ranges.sql", "NVTX ranges by nesting path: wall time and the GPU time they launched",
	  run_ranges },
	{ "idle", "analyze/idle.sql", "GPU idle time per device; kernel and copy busy time and their overlap", run_idle },
	{ "streams", "analyze/idle.sql", "Busy time per stream", run_streams },
	{ "gaps", "analyze/idle.sql", "Longest GPU idle gaps, with the host calls made during them", run_gaps },
	{ "memory", "analyze/memory.sql", "GPU memory per device: allocations, peak (and when), live at the end",
	  run_memory },
	{ "leaks", "analyze/memory.sql", "Leak candidates: blocks still allocated at the end, by site (--fail-on-leak)",
	  run_leaks },
	{ "peak", "analyze/memory.sql", "What was live at each device's memory peak, largest first", run_peak },
	{ "growth", "analyze/memory.sql", "Memory growth per iteration with R^2, severity and what to check",
	  run_growth },
	{ "stalls", "analyze/stalls.sql", "Warp stall reasons from PC sampling: samples, share, meaning, usual cause",
	  run_stalls },
	{ "stall_kernels", "analyze/stalls.sql", "Stall reason mix per kernel (a kernel x reason matrix)",
	  run_stall_kernels },
	{ "stall_pcs", "analyze/stalls.sql", "Most sampled instructions with source line and dominant reason",
	  run_stall_pcs },
	{ "metrics", "analyze/metrics.sql", "Device metrics (NVML): utilisation, memory, power, temperature, clocks",
	  run_metrics },
	{ "host", "analyze/metrics.sql", "Host metrics: CPU and memory of the program's process tree, system memory",
	  run_host },
	{ "overhead", "analyze/overhead.sql",
	  "What CUPTI and the driver cost the program, by kind: buffer flushes, instrumentation, lazy loading",
	  run_overhead },
	{ "compare", "analyze/compare.sql",
	  "Kernels, NVTX ranges and copies against a baseline: regressed, improved, new, gone (CI gate)",
	  run_compare },
	{ "trend", "analyze/trend.sql", "Top kernels' total time across all sessions, with step changes",
	  run_trend },
	{ NULL, NULL, NULL, NULL }
};

const struct analysis *analysis_find(const char *name)
{
	const struct analysis *a;
	for (a = analyses; a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

int analysis_run(sqlite3 *db, const struct analysis *a, const struct analysis_opts *o, struct tables *out)
{
	const char *sql = embed_get(a->sql);
	if (!sql)
		return error("internal: analysis '%s' has no SQL file %s", a->name, a->sql);
	return a->run(db, sql, o, out);
}

void tables_add(struct tables *ts, struct table *t)
{
	ts->v = xrealloc(ts->v, (size_t)(ts->n + 1) * sizeof(*ts->v));
	ts->v[ts->n++] = t;
}

void tables_free(struct tables *ts)
{
	int i;
	for (i = 0; i < ts->n; i++)
		table_free(ts->v[i]);
	free(ts->v);
	ts->v = NULL;
	ts->n = 0;
}

int analysis_add_group(struct analysis_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return error("--group needs NAME=REGEX, not '%s'", arg);
	if (db_regex_check(eq + 1))
		return -1;
	o->groups = xrealloc(o->groups, (size_t)(o->ngroups + 1) * sizeof(*o->groups));
	o->groups[o->ngroups++] = arg;
	return 0;
}
