/*
 * analyses: the table of analyses, and the options and gates their rows name. Adding an analysis is a row
 * here (its tables' titles and columns) and an SQL file; adding an option of its own, a row of options
 * here (script_bind binds it by name).
 */
#include "analysis.h"
#include "db.h"
#include "embed.h"
#include "util.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void analysis_opts_init(struct analysis_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = 0.05;
	o->min_delta = 10000;
	o->min_calls = 1;
}

static int take_baseline(struct analysis_opts *o, const char *arg)
{
	o->baseline = arg;
	return 0;
}

static int take_base_session(struct analysis_opts *o, const char *arg)
{
	o->base_id = arg;
	return 0;
}

/* "5%", "5" or "2.5%" as a fraction (0.05). */
static int take_threshold(struct analysis_opts *o, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || v < 0 || !isfinite(v) || (*end && strcmp(end, "%")))
		return -1;
	o->threshold = v / 100.0;
	o->threshold_given = 1;
	return 0;
}

/* "10us", "1.5ms", "2s", "500ns" or "500" (ns) as nanoseconds. */
static int take_min_delta(struct analysis_opts *o, const char *arg)
{
	return parse_duration(arg, &o->min_delta);
}

static int take_min_calls(struct analysis_opts *o, const char *arg)
{
	int64_t n;
	if (parse_i64(arg, strlen(arg), &n) || n < 0)
		return -1;
	o->min_calls = n;
	return 0;
}

/* A size (parse_size: bytes, 1GiB, 1GB), 0 when left out. */
static int take_leak_limit(struct analysis_opts *o, const char *arg)
{
	int64_t n = 0;
	if (arg && parse_size(arg, &n))
		return -1;
	o->limit = n;
	return 0;
}

/* Grams of CO2e per kWh: a number, 0 or more. */
static int take_carbon(struct analysis_opts *o, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || v < 0 || !isfinite(v))
		return -1;
	o->carbon_intensity = v;
	o->carbon_given = 1;
	return 0;
}

/* --fail-above: a size (parse_size: "40GiB", "40G", "40GB", bytes) or a share of the device's memory, "90%". */
static int take_fail_above(struct analysis_opts *o, const char *arg)
{
	size_t n = strlen(arg);
	char *end;
	double v;
	if (n && arg[n - 1] == '%') {
		v = strtod(arg, &end);
		if (end != arg + n - 1 || !(*arg >= '0' && *arg <= '9') || !isfinite(v) || v <= 0)
			return -1;
		o->share = v / 100.0;
		return 0;
	}
	o->share = 0;
	return parse_size(arg, &o->limit);
}

/* The growth analysis's severities, in order; index 1.. is --fail-on-growth's level. */
static const char *const severities[] = { "none", "low", "medium", "high" };

static int severity_level(const char *name)
{
	size_t i;
	for (i = 0; name && i < sizeof(severities) / sizeof(severities[0]); i++)
		if (!strcmp(name, severities[i]))
			return (int)i;
	return -1;
}

/* --fail-on-growth: low, medium or high. */
static int take_growth_level(struct analysis_opts *o, const char *arg)
{
	int level = severity_level(arg);
	if (level < 1)
		return -1;
	o->limit = level;
	return 0;
}

static int take_by_shape(struct analysis_opts *o, const char *arg)
{
	(void)arg;
	o->by_shape = 1;
	return 0;
}

static int take_fold_backward(struct analysis_opts *o, const char *arg)
{
	(void)arg;
	o->fold_backward = 1;
	return 0;
}

static int take_nothing(struct analysis_opts *o, const char *arg)
{
	(void)o;
	(void)arg;
	return 0;
}

#define MORE "\n                            "	/* --help: the option's text goes on on the next line */

static const struct analysis_option opt_baseline = {
	"baseline", required_argument, "BASE.db", "the baseline database (default NEW.db itself)", "", 0,
	take_baseline };
static const struct analysis_option opt_base_session = {
	"base-session", required_argument, "ID",
	"the baseline session; default the newest of BASE.db, or with one" MORE "database the session before the new one",
	"", 0, take_base_session };
static const struct analysis_option opt_threshold = {
	"threshold", required_argument, "PCT",
	"relative change of the median that counts (default 5%; trend: of" MORE
	"the total against the median of earlier sessions)",
	"needs a percentage such as 5%", 1, take_threshold };
static const struct analysis_option opt_min_delta = {
	"min-delta", required_argument, "TIME",
	"absolute change of the median that counts, ns/us/ms/s (default 10us)",
	"needs a time such as 10us (ns, us, ms, s)", 0, take_min_delta };
static const struct analysis_option opt_min_calls = {
	"min-calls", required_argument, "N", "groups with fewer calls on both sides are unchanged (default 1)",
	"needs a count", 0, take_min_calls };
static const struct analysis_option opt_fail_on_leak = {
	"fail-on-leak", optional_argument, "[SIZE]",
	"exit 1 when more than SIZE (bytes, 1GiB, 1GB; default 0) are" MORE
	"unfreed, or when a device's events have no addresses (leaks unknown)",
	"takes a size such as 1048576, 1MiB or 1MB", 0, take_leak_limit };
const struct analysis_option opt_carbon_intensity = {
	"carbon-intensity", required_argument, "G_PER_KWH",
	"grams of CO2e per kWh of the grid that powered the run (no" MORE "default): adds co2e_g",
	"needs grams per kWh, a number such as 400", 0, take_carbon };
static const struct analysis_option opt_fail_above = {
	"fail-above", required_argument, "SIZE|PCT",
	"exit 1 when a device's peak is above SIZE (40GiB, 40G, 40GB," MORE
	"bytes) or above PCT of its memory (90%)",
	"needs a size such as 40GiB or a share of the device's memory such as 90%", 0, take_fail_above };
static const struct analysis_option opt_fail_on_growth = {
	"fail-on-growth", required_argument, "LEVEL",
	"exit 1 when a device's growth is of severity LEVEL" MORE "(low, medium or high) or worse",
	"needs low, medium or high", 0, take_growth_level };
static const struct analysis_option opt_fail_on_regression = {
	"fail-on-regression", no_argument, NULL,
	"exit 1 when any kernel, range, copy kind, API call or op" MORE "regressed; one-line verdict on stderr", "", 0,
	take_nothing };

/*
 * Unfreed bytes of the leaks table over the limit. A device whose events have no addresses leaked an
 * unknown amount: the gate cannot pass on it, and says so.
 */
static int judge_leaks(const struct tables *ts, const struct analysis_opts *o, char *line, size_t n)
{
	struct table *t = ts->v[0];
	int col = table_find_col(t, "bytes"), scol = table_find_col(t, "status"), failed;
	int64_t leaked = 0, unknown = 0;
	char amount[32], why[96] = "";
	size_t r;
	for (r = 0; r < t->nrows; r++) {
		const struct cell *st = table_cell(t, r, scol);
		if (!st->null && !strncmp(st->s, "unknown", 7))
			unknown++;
		else
			leaked += table_cell(t, r, col)->i;
	}
	fmt_bytes(amount, sizeof(amount), (double)leaked);
	failed = unknown || leaked > o->limit;
	if (unknown)
		snprintf(why, sizeof(why), "unknown on %lld device%s without addresses; ", (long long)unknown,
			 unknown > 1 ? "s" : "");
	snprintf(line, n, "leaks: %s%s unfreed (%lld bytes)%s, limit %lld bytes: %s", why, amount, (long long)leaked,
		 unknown ? " on the others" : "", (long long)o->limit, failed ? "FAIL" : "ok");
	return failed;
}

/*
 * Any regression past the thresholds, in any of compare's tables: the verdict compare.sql puts in its first
 * table's title ("Kernels against the baseline: 2 regressed, ...: FAIL"), over every row.
 */
static int judge_regressions(const struct tables *ts, const struct analysis_opts *o, char *line, size_t n)
{
	const char *title = ts->n ? ts->v[0]->title : NULL, *verdict = title ? strstr(title, ": ") : NULL;
	size_t len;
	(void)o;
	if (!verdict) {
		snprintf(line, n, "compare: no verdict: FAIL");
		return 1;
	}
	verdict += 2;
	snprintf(line, n, "compare: %s", verdict);
	len = strlen(verdict);
	return len >= 4 && !strcmp(verdict + len - 4, "FAIL");
}

/* "device 0", "device 0 (rank 1, node7)": row r's GPU as table t names it (rank and host where it has them). */
static void gpu_label(struct table *t, size_t r, char *out, size_t n)
{
	int cdev = table_find_col(t, "device"), crank = table_find_col(t, "rank"), chost = table_find_col(t, "host");
	const struct cell *dev = cdev >= 0 ? table_cell(t, r, cdev) : NULL;
	const struct cell *rank = crank >= 0 ? table_cell(t, r, crank) : NULL;
	const struct cell *host = chost >= 0 ? table_cell(t, r, chost) : NULL;
	char at[160] = "";
	if (rank && !rank->null && host && !host->null)
		snprintf(at, sizeof(at), " (rank %lld, %s)", (long long)rank->i, host->s);
	else if (rank && !rank->null)
		snprintf(at, sizeof(at), " (rank %lld)", (long long)rank->i);
	else if (host && !host->null)
		snprintf(at, sizeof(at), " (%s)", host->s);
	if (dev && !dev->null)
		snprintf(out, n, "device %lld%s", (long long)dev->i, at);
	else
		snprintf(out, n, "an unknown device%s", at);
}

/*
 * Each device's peak against --fail-above: a size, or a share of the device's memory (total_bytes). With
 * a share, a device whose memory is unknown cannot pass, and the verdict says so.
 */
static int judge_memory(const struct tables *ts, const struct analysis_opts *o, char *line, size_t n)
{
	struct table *t = ts->v[0];
	int cpeak = table_find_col(t, "peak_bytes"), ctotal = table_find_col(t, "total_bytes");
	int over = 0, unknown = 0, failed;
	size_t r, worst = 0;
	double worst_v = -1;
	char peak[32], total[32], limit[32], gpu[200] = "", why[96] = "";
	for (r = 0; r < t->nrows; r++) {
		const struct cell *p = table_cell(t, r, cpeak), *m = ctotal >= 0 ? table_cell(t, r, ctotal) : NULL;
		double v;
		if (o->share > 0 && (!m || m->null || m->i <= 0)) {
			unknown++;
			continue;
		}
		v = o->share > 0 ? (double)p->i / (double)m->i : (double)p->i;
		over += o->share > 0 ? v > o->share : p->i > o->limit;
		if (v > worst_v) {
			worst_v = v;
			worst = r;
		}
	}
	failed = over || unknown;
	if (unknown)
		snprintf(why, sizeof(why), "; memory unknown on %d device%s", unknown, unknown > 1 ? "s" : "");
	if (worst_v < 0) {
		snprintf(line, n, "memory: %s: %s", t->nrows ? "no device's memory is known, a share cannot be judged" :
			 "no allocations recorded", failed ? "FAIL" : "ok");
		return failed;
	}
	gpu_label(t, worst, gpu, sizeof(gpu));
	fmt_bytes(peak, sizeof(peak), (double)table_cell(t, worst, cpeak)->i);
	if (o->share > 0) {
		fmt_bytes(total, sizeof(total), (double)table_cell(t, worst, ctotal)->i);
		snprintf(line, n, "memory: highest peak %s on %s, %.1f%% of its %s; %d of %zu device%s above %g%%%s: %s",
			 peak, gpu, 100.0 * worst_v, total, over, t->nrows, t->nrows > 1 ? "s" : "", 100.0 * o->share, why,
			 failed ? "FAIL" : "ok");
	} else {
		fmt_bytes(limit, sizeof(limit), (double)o->limit);
		snprintf(line, n, "memory: highest peak %s (%lld bytes) on %s; %d of %zu device%s above %s (%lld bytes): %s",
			 peak, (long long)table_cell(t, worst, cpeak)->i, gpu, over, t->nrows, t->nrows > 1 ? "s" : "",
			 limit, (long long)o->limit, failed ? "FAIL" : "ok");
	}
	return failed;
}

/*
 * Each device's growth severity against --fail-on-growth: the worst one named, with its verdict and what
 * it left allocated at the end (a severity may come from that alone: growth.sql's worth).
 */
static int judge_growth(const struct tables *ts, const struct analysis_opts *o, char *line, size_t n)
{
	struct table *t = ts->v[0];
	int csev = table_find_col(t, "severity"), cverdict = table_find_col(t, "verdict"),
	    cleak = table_find_col(t, "leaked_bytes"), worst_level = -1, at = 0;
	size_t r, worst = 0;
	char gpu[200], leaked[64] = "";
	const struct cell *lc;
	for (r = 0; r < t->nrows; r++) {
		const struct cell *c = table_cell(t, r, csev);
		int level = severity_level(c->null ? NULL : c->s);
		at += level >= o->limit;
		if (level > worst_level) {
			worst_level = level;
			worst = r;
		}
	}
	if (worst_level < 0) {
		snprintf(line, n, "growth: no memory series to judge, limit %s: ok", severities[o->limit]);
		return 0;
	}
	gpu_label(t, worst, gpu, sizeof(gpu));
	lc = cleak >= 0 ? table_cell(t, worst, cleak) : NULL;
	if (lc && !lc->null && lc->i > 0) {
		char b[32];
		fmt_bytes(b, sizeof(b), (double)lc->i);
		snprintf(leaked, sizeof(leaked), ", %s still allocated at the end", b);
	}
	snprintf(line, n, "growth: worst %s on %s (%s%s); %d of %zu device%s at %s or worse: %s",
		 severities[worst_level], gpu, table_cell(t, worst, cverdict)->null ? "" : table_cell(t, worst, cverdict)->s,
		 leaked, at, t->nrows, t->nrows > 1 ? "s" : "", severities[o->limit], at ? "FAIL" : "ok");
	return at > 0;
}

static const struct analysis_option opt_by_shape = {
	"by-shape", no_argument, NULL,
	"a row per op name, Input Dims and Input type (key_averages'" MORE "group_by_input_shape)", "", 0,
	take_by_shape };
static const struct analysis_option opt_fold_backward = {
	"fold-backward", no_argument, NULL,
	"add each backward op's figures to its forward op's row" MORE "(op_links, else the same sequence number)",
	"", 0, take_fold_backward };

static const struct gate leak_gate = { &opt_fail_on_leak, judge_leaks };
static const struct gate memory_gate = { &opt_fail_above, judge_memory };
static const struct gate growth_gate = { &opt_fail_on_growth, judge_growth };
static const struct gate regression_gate = { &opt_fail_on_regression, judge_regressions };

static const struct analysis_option *const compare_options[] = {
	&opt_baseline, &opt_base_session, &opt_threshold, &opt_min_delta, &opt_min_calls, NULL
};
static const struct analysis_option *const trend_options[] = { &opt_threshold, NULL };
static const struct analysis_option *const ranks_options[] = { &opt_threshold, NULL };
static const struct analysis_option *const ops_options[] = { &opt_by_shape, &opt_fold_backward, NULL };
static const struct analysis_option *const energy_options[] = { &opt_carbon_intensity, NULL };

/* An analysis that is its SQL file: the tables its statements fill (struct table_spec). */
/*
 * A GPU's identity beside its device number: both left out in a session of one node (analyze/ext/sqlext_nodes.c:
 * the SQL gives them NULL there), both kept with several, NULL where the source does not say.
 */
#define GPU_COLUMNS { "rank", "Rank", C_INT, C_HIDE_GROUP }, { "host", "Host", C_TEXT, C_HIDE_GROUP }

#define SQL_ROW(n, file, h, specs) .name = n, .sql = "analyze/" file, .help = h, .tables = specs, \
	.ntables = NCOLS(specs)

static const struct colspec hotspots_cols[] = {
	{ "time_pct", "Time %", C_PCT },
	STATS_COLUMNS("calls", "Calls"),
	{ "name", "Name", C_TEXT },
};
static const struct table_spec hotspots_tables[] = {
	{ "hotspots", "Top kernels by total GPU time", hotspots_cols, NCOLS(hotspots_cols) },
};

static const struct colspec memcpy_cols[] = {
	{ "time_pct", "Time %", C_PCT },
	STATS_COLUMNS("count", "Count"),
	{ "bytes", "Bytes", C_BYTES },
	{ "avg_bytes", "Avg bytes", C_BYTES },
	{ "gbps", "GB/s", C_REAL },
	{ "kind", "Operation", C_TEXT },
	{ "med_bytes", "Med bytes", C_BYTES },
	{ "min_bytes", "Min bytes", C_BYTES },
	{ "max_bytes", "Max bytes", C_BYTES },
	{ "stddev_bytes", "StdDev bytes", C_BYTES },
};
static const struct table_spec memcpy_tables[] = {
	{ "memcpy", "Memory copies and memsets by kind", memcpy_cols, NCOLS(memcpy_cols) },
};

static const struct colspec api_cols[] = {
	{ "time_pct", "Time %", C_PCT },
	STATS_COLUMNS("calls", "Calls"),
	{ "name", "Name", C_TEXT },
};
static const struct table_spec api_tables[] = {
	{ "api", "CUDA API calls (runtime and driver) by total time", api_cols, NCOLS(api_cols) },
};

/* Per kernel name: the launch call's time, the queue after it (nsys's positive-only), the kernel's time. */
static const struct colspec kernexec_cols[] = {
	{ "calls", "Calls", C_INT },
	{ "launched", "Launched", C_INT },
	{ "qcount", "QCount", C_INT },
	{ "api_avg_ns", "API avg", C_NS },
	{ "api_med_ns", "API med", C_NS },
	{ "api_min_ns", "API min", C_NS },
	{ "api_max_ns", "API max", C_NS },
	{ "queue_avg_ns", "Queue avg", C_NS },
	{ "queue_med_ns", "Queue med", C_NS },
	{ "queue_min_ns", "Queue min", C_NS },
	{ "queue_max_ns", "Queue max", C_NS },
	{ "queue_p90_ns", "Queue p90", C_NS },
	{ "queue_p99_ns", "Queue p99", C_NS },
	{ "kernel_avg_ns", "Kernel avg", C_NS },
	{ "kernel_med_ns", "Kernel med", C_NS },
	{ "kernel_min_ns", "Kernel min", C_NS },
	{ "kernel_max_ns", "Kernel max", C_NS },
	{ "name", "Name", C_TEXT },
};
static const struct colspec kernexec_queue_cols[] = {
	{ "queue", "Queue time", C_TEXT },
	{ "kernels", "Kernels", C_INT },
	{ "pct", "%", C_PCT },
	{ "q1", "1st quarter", C_INT },
	{ "q2", "2nd", C_INT },
	{ "q3", "3rd", C_INT },
	{ "q4", "4th", C_INT },
};
static const struct colspec kernexec_trend_cols[] = {
	{ "quarter", "Quarter", C_INT },
	{ "start_ns", "From", C_TIME },
	{ "kernels", "Kernels", C_INT },
	{ "launched", "Launched", C_INT },
	{ "queued", "Waited", C_INT },
	{ "wait_med_ns", "Wait med", C_NS },
	{ "wait_p90_ns", "Wait p90", C_NS },
	{ "wait_max_ns", "Wait max", C_NS },
};
static const struct table_spec kernexec_tables[] = {
	{ "kernexec", "Kernel launch pipeline per name: API time, queue time, kernel time", kernexec_cols,
	  NCOLS(kernexec_cols) },
	{ "kernexec_queue", "Queue time of every kernel (launch call's end to kernel start), by size and quarter",
	  kernexec_queue_cols, NCOLS(kernexec_queue_cols) },
	{ "kernexec_trend", "Launch queue over the session, by quarter (wait: queue time, 0 when none)",
	  kernexec_trend_cols, NCOLS(kernexec_trend_cols) },
};

static const struct colspec sync_cols[] = {
	{ "time_pct", "Time %", C_PCT },
	STATS_COLUMNS("count", "Count"),
	{ "stream", "Stream", C_INT },
	{ "kind", "Type", C_TEXT },
};
static const struct table_spec sync_tables[] = {
	{ "sync", "Host time blocked in synchronization, by type and stream", sync_cols, NCOLS(sync_cols) },
};

static const struct colspec metrics_cols[] = {
	GPU_COLUMNS,
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
static const struct table_spec metrics_tables[] = {
	{ "metrics", "Device metrics (NVML) per device", metrics_cols, NCOLS(metrics_cols) },
};

static const struct colspec host_cols[] = {
	{ "samples", "Samples", C_INT },
	{ "cpu_pct_avg", "CPU avg % of a core", C_PCT },
	{ "cpu_pct_max", "CPU max %", C_PCT },
	{ "rss_max", "RSS max", C_BYTES },
	{ "sys_mem_used_max", "System memory used max", C_BYTES },
	{ "sys_mem_total", "System memory", C_BYTES },
	/* The system's I/O in bytes per second, left out all together where no sample has them. */
	{ "disk_read_bps", "Disk read /s", C_BYTES, C_HIDE_GROUP },
	{ "disk_read_bps_max", "max /s", C_BYTES, C_HIDE_GROUP },
	{ "disk_write_bps", "Disk written /s", C_BYTES, C_HIDE_GROUP },
	{ "disk_write_bps_max", "max /s", C_BYTES, C_HIDE_GROUP },
	{ "net_rx_bps", "Net received /s", C_BYTES, C_HIDE_GROUP },
	{ "net_rx_bps_max", "max /s", C_BYTES, C_HIDE_GROUP },
	{ "net_tx_bps", "Net sent /s", C_BYTES, C_HIDE_GROUP },
	{ "net_tx_bps_max", "max /s", C_BYTES, C_HIDE_GROUP },
};
static const struct table_spec host_tables[] = {
	{ "host", "Host metrics: the program's process tree and the system", host_cols, NCOLS(host_cols) },
};

static const struct colspec energy_cols[] = {
	GPU_COLUMNS,
	{ "device", "Device", C_INT },
	{ "method", "From", C_TEXT },
	{ "samples", "Samples", C_INT },
	{ "span_ns", "Sampled span", C_NS },
	{ "joules", "Energy J", C_REAL },
	{ "kwh", "kWh", C_REAL },
	{ "avg_w", "Avg power W", C_REAL },
	{ "steps", "Steps", C_INT },
	{ "joules_per_step", "J per step", C_REAL },
	{ "co2e_g", "CO2e g", C_REAL },
};
static const struct table_spec energy_tables[] = {
	{ "energy", "Energy per GPU and in all (NVML), per iteration, and CO2e", energy_cols, NCOLS(energy_cols) },
};

static const struct colspec flops_cols[] = {
	{ "name", "Op", C_TEXT },
	{ "calls", "Calls", C_INT },
	{ "kernels", "Kernels", C_INT },
	{ "flops", "FLOPs", C_INT },
	{ "gpu_ns", "GPU time", C_NS },
	{ "tflops", "TFLOP/s", C_REAL },
	{ "dtype", "Type", C_TEXT },
	{ "gpu", "GPU", C_TEXT },
	{ "peak_tflops", "Peak TFLOP/s", C_REAL },
	{ "mfu", "MFU", C_REAL },
};
static const struct colspec flops_steps_cols[] = {
	{ "step", "Iteration", C_TEXT },
	{ "start_ns", "Start", C_TIME },
	{ "ops", "Ops", C_INT },
	{ "flops", "FLOPs", C_INT },
	{ "gpu_ns", "GPU time", C_NS },
	{ "tflops", "TFLOP/s", C_REAL },
	{ "mfu", "MFU", C_REAL },
};
static const struct table_spec flops_tables[] = {
	{ "flops", "Achieved FLOP/s per op (PyTorch with_flops, else from shapes) and MFU against the GPU's peak", flops_cols,
	  NCOLS(flops_cols) },
	{ "flops_steps", "Achieved FLOP/s and MFU per iteration", flops_steps_cols, NCOLS(flops_steps_cols) },
};

/* Per op name (and shapes with --by-shape): CPU and GPU time, kernels, FLOPs from shapes (analyze/ops.sql). */
static const struct colspec ops_cols[] = {
	{ "name", "Op", C_TEXT },
	{ "calls", "Calls", C_INT },
	{ "cpu_total_ns", "CPU total", C_NS },
	{ "cpu_self_ns", "CPU self", C_NS },
	{ "gpu_self_ns", "GPU self", C_NS },
	{ "gpu_total_ns", "GPU total", C_NS },
	{ "kernels", "Kernels", C_INT },
	{ "flops", "FLOPs", C_INT },
	{ "tflops", "TFLOP/s", C_REAL },
	{ "mfu", "MFU", C_REAL },
	{ "bytes", "Bytes", C_BYTES },
	{ "intensity", "FLOP/byte", C_REAL },
	{ "input_dims", "Input dims", C_TEXT, C_HIDE_NULL },
	{ "input_types", "Input types", C_TEXT, C_HIDE_NULL },
};
static const struct table_spec ops_tables[] = {
	{ "ops", "PyTorch operators by GPU time (self and with their children), with FLOPs from their shapes",
	  ops_cols, NCOLS(ops_cols) },
};

static const struct colspec overhead_cols[] = {
	{ "wall_pct", "Wall %", C_PCT },
	{ "total_ns", "Total", C_NS },
	{ "count", "Count", C_INT },
	{ "untimed", "Untimed", C_INT },
	{ "avg_ns", "Avg", C_NS },
	{ "max_ns", "Max", C_NS },
	{ "kind", "Kind", C_TEXT },
};
static const struct table_spec overhead_tables[] = {
	{ "overhead", "CUPTI and driver overhead by kind (what profiling itself cost)", overhead_cols,
	  NCOLS(overhead_cols) },
};

static const struct colspec summary_cols[] = {
	{ "session_id", "Session", C_INT },
	{ "session", "Session id", C_TEXT },
	{ "source", "Source", C_TEXT },
	{ "program", "Program", C_TEXT },
	{ "hostname", "Host", C_TEXT },
	{ "engine", "Engine", C_TEXT },
	{ "start_ns", "Start", C_TIME },
	{ "end_ns", "End", C_TIME },
	{ "wall_span_ns", "Wall span", C_NS },
	{ "clean_end", "Ended cleanly", C_INT },
	{ "processes", "Processes", C_INT },
	{ "devices", "Devices", C_INT },
	{ "memcpys", "Memcpys", C_INT },
	{ "memcpy_bytes", "Memcpy bytes", C_BYTES },
	{ "memsets", "Memsets", C_INT },
	{ "memset_bytes", "Memset bytes", C_BYTES },
	{ "ranges", "Ranges", C_INT },
	{ "dropped_records", "Dropped by collector", C_INT },
	{ "missing_batches", "Missing batches", C_INT },
	{ "ingest_errors", "Rejected input lines", C_INT },
	{ "kernels", "Kernels", C_INT },
	{ "kernel_ns", "Kernel time (kernels only, sum)", C_NS },
	{ "kernel_busy_ns", "Kernel busy (kernels only, union)", C_NS },
	{ "gpu_span_ns", "GPU span (per device, summed)", C_NS },
	{ "busy_ns", "GPU busy (kernels, copies, memsets)", C_NS },
	{ "idle_ns", "GPU idle (span - busy)", C_NS },
	{ "busy_pct", "GPU busy % of GPU span", C_PCT },
	{ "collector_errors", "Collector errors", C_INT },	/* columns are only ever added, at the end */
	{ "trace_window", "Trace window (traced ON of every EVERY)", C_TEXT, C_HIDE_GROUP },	/* windowed only */
	{ "traced_ns", "Traced time (trace windows)", C_NS, C_HIDE_GROUP },
	{ "traced_pct", "Traced % of wall span", C_PCT, C_HIDE_GROUP },
};
static const struct table_spec summary_tables[] = {
	{ "summary", "Session summary", summary_cols, NCOLS(summary_cols), .vertical = 1 },
};

static const struct colspec problems_cols[] = {
	{ "problem", "Problem", C_TEXT },
	{ "source", "Source", C_TEXT },
	{ "count", "Count", C_INT },
	{ "first_ns", "First", C_TIME },
	{ "detail", "Detail", C_TEXT },
};
static const struct table_spec problems_tables[] = {
	{ "problems", "Recording problems: collector errors and what the collector lost", problems_cols,
	  NCOLS(problems_cols) },
};

static const struct colspec devices_cols[] = {
	GPU_COLUMNS,
	{ "device", "Device", C_INT },
	{ "kernels", "Kernels", C_INT },
	{ "kernel_ns", "Kernel time (sum)", C_NS },
	{ "kernel_busy_ns", "Kernel busy", C_NS },
	{ "span_ns", "GPU span", C_NS },
	{ "busy_ns", "GPU busy", C_NS },
	{ "busy_pct", "Busy %", C_PCT },
	{ "sms", "SMs", C_INT },
	{ "memory_bytes", "Memory", C_BYTES },
	{ "cc", "CC", C_TEXT },
	{ "name", "Name", C_TEXT },
};
static const struct table_spec devices_tables[] = {
	{ "devices", "GPU busy time per device: kernels, copies and memsets over the GPU span", devices_cols,
	  NCOLS(devices_cols) },
};

static const struct colspec idle_cols[] = {
	GPU_COLUMNS,
	{ "device", "Device", C_INT },
	{ "span_ns", "GPU span", C_NS },
	{ "busy_ns", "GPU busy", C_NS },
	{ "idle_ns", "GPU idle", C_NS },
	{ "idle_pct", "Idle %", C_PCT },
	{ "kernel_busy_ns", "Kernel busy", C_NS },
	{ "copy_busy_ns", "Copy+memset busy", C_NS },
	{ "overlap_ns", "Kernel+copy overlap", C_NS },
	{ "overlap_pct", "Copy hidden %", C_PCT },
};
static const struct table_spec idle_tables[] = {
	{ "idle", "GPU idle time per device (busy = union of kernels, copies, memsets)", idle_cols, NCOLS(idle_cols) },
};

static const struct colspec streams_cols[] = {
	GPU_COLUMNS,
	{ "device", "Device", C_INT },
	{ "stream", "Stream", C_INT },
	{ "busy_ns", "Busy", C_NS },
	{ "ops", "Operations", C_INT },
	{ "busy_pct", "Busy % of GPU span", C_PCT },
};
static const struct table_spec streams_tables[] = {
	{ "streams", "Busy time per stream", streams_cols, NCOLS(streams_cols) },
};

/* The GPU's host is "hostname" here: "host" has always been the host calls. */
static const struct colspec gaps_cols[] = {
	{ "rank", "Rank", C_INT, C_HIDE_GROUP },
	{ "hostname", "Host", C_TEXT, C_HIDE_GROUP },
	{ "device", "Device", C_INT },
	{ "start_ns", "Start", C_TIME },
	{ "gap_ns", "Idle for", C_NS },
	{ "host", "Host calls during the gap (time inside it)", C_TEXT },
};
static const struct table_spec gaps_tables[] = {
	{ "gaps", "Longest GPU idle gaps and what the host was doing", gaps_cols, NCOLS(gaps_cols) },
};

static const struct colspec launch_cols[] = {
	{ "total_ns", "Total", C_NS },
	{ "calls", "Calls", C_INT },
	{ "occupancy_pct", "Occupancy %", C_PCT },
	{ "limiter", "Limited by", C_TEXT },
	{ "grid_x", "Grid x", C_INT },
	{ "grid_y", "y", C_INT },
	{ "grid_z", "z", C_INT },
	{ "block_x", "Block x", C_INT },
	{ "block_y", "y", C_INT },
	{ "block_z", "z", C_INT },
	{ "registers", "Regs", C_INT },
	{ "static_smem", "Static smem", C_BYTES },
	{ "dynamic_smem", "Dynamic smem", C_BYTES },
	{ "shared_mem", "Shared mem", C_BYTES },
	{ "name", "Name", C_TEXT },
};
static const struct table_spec launch_tables[] = {
	{ "launch", "Launch configurations per kernel, with theoretical occupancy", launch_cols, NCOLS(launch_cols) },
};
static const struct colspec classes_cols[] = {
	GPU_COLUMNS,
	{ "device", "Device", C_INT, C_HIDE_NULL },
	{ "class", "Class", C_TEXT },
	{ "kernels", "Kernels", C_INT },
	{ "total_ns", "Kernel time (sum)", C_NS },
	{ "kernel_busy_ns", "Kernel busy (union)", C_NS },
	{ "pct", "% of kernel busy", C_PCT },
};
static const struct table_spec classes_tables[] = {
	{ "classes", "Kernel classes: busy time and overlap per device, summed", classes_cols, NCOLS(classes_cols) },
};
/* The PC samples with their reasons' keys, a TEMP view the three stall analyses read. */
#define STALL_SAMPLES "analyze/stall-samples.sql"
static const struct colspec stalls_cols[] = {
	{ "reason", "Reason", C_TEXT },
	{ "kind", "Kind", C_TEXT },
	{ "samples", "Samples", C_INT },
	{ "pct", "Share %", C_PCT },
	{ "not_issued", "Not issued", C_INT },
	{ "label", "Meaning", C_TEXT },
	{ "hint", "Usual cause", C_TEXT },
};
static const struct table_spec stalls_tables[] = {
	{ "stalls", "Warp states sampled (PC sampling): where warps wait", stalls_cols, NCOLS(stalls_cols) },
};
/* The reason columns are the data's: one per reason among the ten most sampled, keyed REASON_pct. */
static const struct colspec stall_kernels_cols[] = {
	{ "samples", "Samples", C_INT },
	{ "name", "Kernel", C_TEXT },
};
static const struct colspec stall_reason_col = { "_pct", NULL, C_PCT };
static const struct table_spec stall_kernels_tables[] = {
	{ "stall_kernels", "Stall reasons per kernel (share of each kernel's samples, %)", stall_kernels_cols,
	  NCOLS(stall_kernels_cols), .pivot = &stall_reason_col, .pivot_at = 1 },
};
static const struct colspec stall_pcs_cols[] = {
	{ "samples", "Samples", C_INT },
	{ "pc_offset", "PC offset", C_INT },
	{ "source", "Source", C_TEXT },
	{ "reason", "Dominant reason", C_TEXT },
	{ "reason_pct", "Its share %", C_PCT },
	{ "function", "Kernel", C_TEXT },
};
static const struct table_spec stall_pcs_tables[] = {
	{ "stall_pcs", "Most sampled instructions and why they waited", stall_pcs_cols, NCOLS(stall_pcs_cols) },
};

static const struct colspec memory_cols[] = {
	GPU_COLUMNS,
	{ "device", "Device", C_INT },
	{ "allocs", "Allocations", C_INT },
	{ "frees", "Frees", C_INT },
	{ "alloc_bytes", "Allocated", C_BYTES },
	{ "peak_bytes", "Peak", C_BYTES },
	{ "peak_ns", "At", C_TIME },
	{ "peak_from", "Peak from", C_TEXT },
	{ "live_end_bytes", "Live at end", C_BYTES },
	{ "prior_frees", "Frees of earlier blocks", C_INT },
	{ "prior_free_bytes", "Their bytes", C_BYTES },
	{ "total_bytes", "Device memory", C_BYTES },	/* the memory gate (judge_memory) reads these two */
	{ "peak_pct", "Peak % of it", C_PCT },
};
static const struct table_spec memory_tables[] = {
	{ "memory", "GPU memory per device: allocations, peak, live at the end", memory_cols, NCOLS(memory_cols) },
};

/* A live block of memory and where it was allocated (peak, oom_blocks). */
#define BLOCK_COLUMNS \
	GPU_COLUMNS, { "device", "Device", C_INT }, { "bytes", "Bytes", C_BYTES }, \
	{ "alloc_ns", "Allocated at", C_TIME }, { "address", "Address", C_INT }, { "mem_kind", "Kind", C_TEXT }, \
	{ "site", "Site", C_TEXT }

/* Failed allocations; then the largest blocks live at each (oom.sql). */
static const struct colspec oom_cols[] = {
	{ "ts_ns", "Time", C_TIME },
	{ "rank", "Rank", C_INT },	/* where known, also in a session of one node */
	{ "host", "Host", C_TEXT },
	{ "device", "Device", C_INT },
	{ "requested_bytes", "Requested", C_BYTES },
	{ "live_bytes", "Live then", C_BYTES },
	{ "reserved_bytes", "Reserved then", C_BYTES, C_HIDE_NULL },
	{ "total_bytes", "Device memory", C_BYTES },
	{ "call", "Call", C_TEXT },
	{ "result", "Return code", C_INT, C_HIDE_NULL },
	{ "thread", "Thread", C_INT },
	{ "path", "NVTX path", C_TEXT },
};
static const struct colspec oom_block_cols[] = {
	{ "oom", "Failure", C_INT },
	{ "ts_ns", "Failed at", C_TIME },
	BLOCK_COLUMNS,
};
static const struct table_spec oom_tables[] = {
	{ "oom", "Allocations that failed for want of memory: bytes asked, bytes live then, the device's memory",
	  oom_cols, NCOLS(oom_cols) },
	{ "oom_blocks", "The largest blocks live at each failed allocation, with their sites", oom_block_cols,
	  NCOLS(oom_block_cols) },
};

/* The leak gate (judge_leaks) reads bytes and status. */
static const struct colspec leaks_cols[] = {
	{ "bytes", "Unfreed", C_BYTES },
	{ "count", "Blocks", C_INT },
	{ "first_ns", "First", C_TIME },
	{ "last_ns", "Last", C_TIME },
	GPU_COLUMNS,
	{ "device", "Device", C_INT },
	{ "mem_kind", "Kind", C_TEXT },
	{ "status", "Status", C_TEXT },
	{ "site", "Site", C_TEXT },
};
static const struct table_spec leaks_tables[] = {
	{ "leaks", "Leak candidates: memory still allocated at the end, by site", leaks_cols, NCOLS(leaks_cols) },
};

static const struct colspec peak_cols[] = { BLOCK_COLUMNS };
static const struct table_spec peak_tables[] = {
	{ "peak", "What was live at each device's peak, largest first", peak_cols, NCOLS(peak_cols) },
};

static const struct colspec growth_cols[] = {
	GPU_COLUMNS,
	{ "device", "Device", C_INT },
	{ "source", "From", C_TEXT },
	{ "points", "Points", C_INT },
	{ "first_bytes", "First", C_BYTES },
	{ "last_bytes", "Last", C_BYTES },
	{ "slope_bytes", "Slope", C_BYTES },
	{ "r2", "R^2", C_REAL },
	{ "leaked_bytes", "Unfreed at end", C_BYTES },
	{ "severity", "Severity", C_TEXT },
	{ "verdict", "Verdict", C_TEXT },
	{ "suggestion", "What to check", C_TEXT },
};
static const struct table_spec growth_tables[] = {
	{ "growth", "Memory growth per iteration (catches leaks freed only at exit)", growth_cols,
	  NCOLS(growth_cols) },
};

static const struct colspec ranks_cols[] = {
	{ "rank", "Rank", C_INT },
	{ "host", "Host", C_TEXT },
	{ "device", "Device", C_INT },
	{ "span_ns", "GPU span", C_NS },
	{ "busy_ns", "GPU busy", C_NS },
	{ "compute_ns", "Compute", C_NS },
	{ "comm_ns", "Comm", C_NS },
	{ "exposed_comm_ns", "Exposed comm", C_NS },
	{ "idle_ns", "Idle", C_NS },
	{ "steps", "Steps", C_INT },
	{ "step_med_ns", "Step med", C_NS },
	{ "step_max_ns", "Step max", C_NS },
	{ "wait_ns", "Waited", C_NS },
	{ "last_arrivals", "Last", C_INT },
	{ "straggler", "Straggler", C_INT },
};
static const struct table_spec ranks_tables[] = {
	{ "ranks", "Per rank (GPU): compute, communication, idle, steps and time waited at collectives", ranks_cols,
	  NCOLS(ranks_cols) },
};

static const struct colspec collectives_cols[] = {
	{ "name", "Collective", C_TEXT },
	{ "ops", "Ops", C_INT },
	{ "ranks", "Ranks", C_INT },
	{ "total_ns", "Total", C_NS },
	{ "med_ns", "Med", C_NS },
	{ "max_skew_ns", "Max skew", C_NS },
	{ "matched", "Matched ops", C_INT },
	{ "wait_ns", "Waited", C_NS },
};
static const struct table_spec collectives_tables[] = {
	{ "collectives", "Collectives matched across ranks: operations, time and start skew", collectives_cols,
	  NCOLS(collectives_cols) },
};
/* The TEMP tables ranks and collectives read: communication kernels matched across GPUs. */
#define COMM_MATCH .prelude = "analyze/comm.sql"

/* The TEMP tables memory, leaks, peak and growth read: the events paired, per device how memory is known. */
#define MEMORY_EVENTS .prelude = "analyze/memory-events.sql"

static const struct colspec ranges_cols[] = {
	STATS_COLUMNS("count", "Count"),
	{ "gpu_ns", "GPU time", C_NS },
	{ "kernels", "Kernels", C_INT },
	{ "window_gpu_ns", "Window GPU", C_NS },
	{ "window_kernels", "Window kernels", C_INT },
	{ "style", "Style", C_TEXT },
	{ "name", "Name", C_TEXT },
	{ "path", "Path", C_TEXT },
};
static const struct table_spec ranges_tables[] = {
	{ "ranges", "NVTX ranges by path and style, with the GPU time of the kernels they launched", ranges_cols,
	  NCOLS(ranges_cols) },
};

/* The columns of every compare table; copies add bytes, ranges a style; the name column comes last. */
#define COMPARE_COLUMNS \
	{ "status", "Status", C_TEXT }, { "delta_pct", "Med delta %", C_PCT }, { "delta_ns", "Med delta", C_NS }, \
	{ "base_med_ns", "Base med", C_NS }, { "new_med_ns", "New med", C_NS }, \
	{ "base_avg_ns", "Base avg", C_NS }, { "new_avg_ns", "New avg", C_NS }, \
	{ "base_total_ns", "Base total", C_NS }, { "new_total_ns", "New total", C_NS }, \
	{ "total_delta_pct", "Total delta %", C_PCT }, { "base_calls", "Base calls", C_INT }, \
	{ "new_calls", "New calls", C_INT }
static const struct colspec compare_kernel_cols[] = { COMPARE_COLUMNS, { "name", "Name", C_TEXT } };
static const struct colspec compare_range_cols[] = {
	COMPARE_COLUMNS, { "style", "Style", C_TEXT }, { "name", "Path", C_TEXT },
};
static const struct colspec compare_copy_cols[] = {
	COMPARE_COLUMNS, { "base_bytes", "Base bytes", C_BYTES }, { "new_bytes", "New bytes", C_BYTES },
	{ "name", "Kind", C_TEXT },
};
static const struct colspec compare_energy_cols[] = {
	{ "name", "GPU", C_TEXT },
	{ "base_joules", "Base J", C_REAL },
	{ "new_joules", "New J", C_REAL },
	{ "delta_joules", "Delta J", C_REAL },
	{ "delta_pct", "Delta %", C_PCT },
	{ "base_avg_w", "Base avg W", C_REAL },
	{ "new_avg_w", "New avg W", C_REAL },
};
static const struct table_spec compare_tables[] = {
	{ "compare", "Kernels against the baseline", compare_kernel_cols, NCOLS(compare_kernel_cols) },
	{ "compare_ranges", "NVTX ranges against the baseline, by path and style (wall time)", compare_range_cols,
	  NCOLS(compare_range_cols) },
	{ "compare_copies", "Copies and memsets against the baseline, by kind", compare_copy_cols,
	  NCOLS(compare_copy_cols) },
	{ "compare_api", "CUDA API calls against the baseline, by name", compare_kernel_cols,
	  NCOLS(compare_kernel_cols) },
	{ "compare_ops", "PyTorch ops against the baseline, by name (GPU time of each op with its children)",
	  compare_kernel_cols, NCOLS(compare_kernel_cols) },
	{ "compare_energy", "Energy against the baseline, per GPU and in all (NVML)", compare_energy_cols,
	  NCOLS(compare_energy_cols) },
};

static const struct colspec trend_cols[] = {
	{ "name", "Name", C_TEXT },
	{ "session_id", "Session", C_INT },
	{ "start_ns", "Start", C_TIME },
	{ "total_ns", "Total", C_NS },
	{ "calls", "Calls", C_INT },
	{ "step", "Step", C_TEXT },
};

static const struct table_spec trend_tables[] = {
	{ "trend", "Kernel time across sessions, with step changes", trend_cols, NCOLS(trend_cols) },
};

const struct analysis analyses[] = {
	{ SQL_ROW("summary", "summary.sql",
		  "The session and its GPU span, busy and idle time (kernels, copies, memsets)", summary_tables),
	  .section = 2 },
	{ SQL_ROW("problems", "problems.sql",
		  "Recording problems: collector errors (no NVML, CUPTI refused, ...) and records it lost", problems_tables),
	  .section = 3 },
	{ SQL_ROW("oom", "oom.sql",
		  "Failed device allocations (out of memory): bytes asked and live, device memory, NVTX path, largest blocks",
		  oom_tables), MEMORY_EVENTS, .section = 4, .section_top = 10 },
	{ SQL_ROW("devices", "devices.sql",
		  "GPUs: span and busy time (kernels, copies, memsets), kernel-only time, properties", devices_tables),
	  .section = 5 },
	{ SQL_ROW("hotspots", "hotspots.sql", "Kernels by total GPU time: count, total, avg, med, min, max, stddev",
		  hotspots_tables), .section = 6, .section_top = 10 },
	{ SQL_ROW("ops", "ops.sql",
		  "PyTorch ops: CPU self/total, GPU self/total, kernels, FLOPs from shapes (--by-shape, --fold-backward)",
		  ops_tables), .options = ops_options, .section = 7, .section_top = 10 },
	{ SQL_ROW("kernexec", "kernexec.sql",
		  "Kernel launch pipeline per name (nsys cuda_kern_exec_sum): API, queue and kernel time; queue growth",
		  kernexec_tables), .section = 8, .section_top = 10 },
	{ SQL_ROW("flops", "flops.sql",
		  "Achieved TFLOP/s and MFU per op and per iteration, from PyTorch's FLOP counts or op shapes",
		  flops_tables), .section = 9, .section_top = 10 },
	{ SQL_ROW("launch", "launch.sql", "Launch configurations per kernel: calls, time, theoretical occupancy",
		  launch_tables) },
	{ SQL_ROW("classes", "classes.sql", "Compute, communication and memory kernels: time, busy, overlap",
		  classes_tables), .section = 10 },
	{ SQL_ROW("memcpy", "memcpy.sql", "Copies by kind (HtoD, DtoH, DtoD, PtoP) and memsets: time, bytes, GB/s",
		  memcpy_tables), .section = 13 },
	{ SQL_ROW("sync", "sync.sql", "Host time blocked in synchronization, by type and stream", sync_tables),
	  .section = 14, .section_top = 10 },
	{ SQL_ROW("api", "api.sql", "CUDA runtime and driver API calls by name (nsys cuda_api_sum): count, time, stats",
		  api_tables), .section = 15, .section_top = 10 },
	{ SQL_ROW("ranges", "ranges.sql", "NVTX ranges by nesting path: wall time and the GPU time they launched",
		  ranges_tables), .section = 16, .section_top = 10 },
	{ SQL_ROW("idle", "idle.sql", "GPU idle time per device; kernel and copy busy time and their overlap",
		  idle_tables), .section = 20 },
	{ SQL_ROW("streams", "streams.sql", "Busy time per stream", streams_tables) },
	{ SQL_ROW("gaps", "gaps.sql", "Longest GPU idle gaps, with the host calls made during them", gaps_tables),
	  .section = 21, .section_top = 5 },
	{ SQL_ROW("memory", "memory.sql",
		  "GPU memory per device: allocations, peak (and when), live at the end (--fail-above)", memory_tables),
	  MEMORY_EVENTS, .gate = &memory_gate, .section = 17 },
	{ SQL_ROW("leaks", "leaks.sql", "Leak candidates: blocks still allocated at the end, by site (--fail-on-leak)",
		  leaks_tables), MEMORY_EVENTS, .gate = &leak_gate, .section = 18, .section_top = 10 },
	{ SQL_ROW("peak", "peak.sql", "What was live at each device's memory peak, largest first", peak_tables),
	  MEMORY_EVENTS },
	{ SQL_ROW("growth", "growth.sql",
		  "Memory growth per iteration with R^2, severity and what to check (--fail-on-growth)", growth_tables),
	  MEMORY_EVENTS, .gate = &growth_gate, .section = 19 },
	{ SQL_ROW("stalls", "stalls.sql", "Warp stall reasons from PC sampling: samples, share, meaning, usual cause",
		  stalls_tables), .prelude = STALL_SAMPLES, .section = 11 },
	{ SQL_ROW("stall_kernels", "stall_kernels.sql", "Stall reason mix per kernel (a kernel x reason matrix)",
		  stall_kernels_tables), .prelude = STALL_SAMPLES, .section = 12, .section_top = 10 },
	{ SQL_ROW("stall_pcs", "stall_pcs.sql", "Most sampled instructions with source line and dominant reason",
		  stall_pcs_tables), .prelude = STALL_SAMPLES },
	{ SQL_ROW("ranks", "ranks.sql",
		  "Per rank: compute, exposed communication, idle, steps, wait at collectives, stragglers (--threshold)",
		  ranks_tables), COMM_MATCH, .options = ranks_options, .section = 26, .multi_gpu = 1,
	  .kernel_cache = 1 },
	{ SQL_ROW("collectives", "collectives.sql",
		  "NCCL/RCCL collectives matched across ranks: operations, time, start skew", collectives_tables),
	  COMM_MATCH, .section = 27, .section_top = 20, .multi_gpu = 1 },
	{ SQL_ROW("metrics", "metrics.sql", "Device metrics (NVML): utilisation, memory, power, temperature, clocks",
		  metrics_tables), .section = 22 },
	{ SQL_ROW("energy", "energy.sql",
		  "Energy per GPU and in all: joules, kWh, average power, per iteration; CO2e (--carbon-intensity)",
		  energy_tables), .options = energy_options, .section = 23 },
	{ SQL_ROW("host", "host.sql",
		  "Host metrics: CPU and memory of the program's process tree; system memory, disk and network I/O",
		  host_tables), .section = 24 },
	{ SQL_ROW("overhead", "overhead.sql",
		  "What CUPTI and the driver cost the program, by kind: buffer flushes, instrumentation, lazy loading",
		  overhead_tables), .section = 25 },
	{ SQL_ROW("compare", "compare.sql",
		  "Kernels, NVTX ranges, copies, API calls and ops against a baseline: regressed, improved, new, gone (CI gate)",
		  compare_tables),
	  .options = compare_options, .gate = &regression_gate, .needs_baseline = 1, .section = 1, .section_top = 20,
	  .usage = "NEW.db (and trend): five tables, kernels by name, NVTX ranges by path,\n"
		   "copies by kind, API calls and ops by name (as hotspots, ranges, memcpy, api and ops show them)" },
	{ SQL_ROW("trend", "trend.sql", "Top kernels' total time across all sessions, with step changes",
		  trend_tables),
	  .options = trend_options },
	{ .name = NULL }
};

int analysis_takes(const struct analysis *a, const struct analysis_option *opt)
{
	const struct analysis_option *const *p;
	if (a->gate && a->gate->option == opt)
		return 1;
	for (p = a->options; p && *p; p++)
		if (*p == opt)
			return 1;
	return 0;
}

/* The session before `session` in db, the default baseline, into *base; 0, or -1 with a message. */
static int default_base(sqlite3 *db, int64_t session, int64_t *base)
{
	sqlite3_stmt *st;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT max(id) FROM sessions WHERE id < ?", -1, &st, NULL) != SQLITE_OK)
		return db_error(db);
	sqlite3_bind_int64(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*base = sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		error("compare: no session before session %lld to compare with (give --baseline or --base-session)",
		      (long long)session);
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The TEMP view base_ops that compare.sql reads the baseline's ops through: base.ops with its rowid as id,
 * or no rows when the baseline predates them (schema version 5 and older). 0, or -1 with a message.
 */
static int base_ops_view(sqlite3 *db)
{
	static const char cols[] = "session_id, id, pid, thread_id, start_ns, end_ns, name_id, external_id";
	char sql[512];
	sqlite3_stmt *st;
	int has = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM base.sqlite_master WHERE type = 'table' AND name = 'ops'", -1, &st,
			       NULL) != SQLITE_OK)
		return db_error(db);
	has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	if (has)
		snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS temp.base_ops; CREATE TEMP VIEW base_ops(%s) AS SELECT "
			 "session_id, rowid, pid, thread_id, start_ns, end_ns, name_id, external_id FROM base.ops", cols);
	else
		snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS temp.base_ops; CREATE TEMP VIEW base_ops(%s) AS SELECT "
			 "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0", cols);
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : db_error(db);
}

/* Attach file to db as schema `base` (again, when it is). 0, or -1 with a message. */
static int attach_base(sqlite3 *db, const char *file)
{
	sqlite3_stmt *st;
	int rc;
	sqlite3_exec(db, "DETACH DATABASE base", NULL, NULL, NULL);	/* an earlier baseline's, if any */
	if (sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS base", -1, &st, NULL) != SQLITE_OK)
		return db_error(db);
	sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("cannot attach the baseline '%s': %s", file, sqlite3_errmsg(db));
	return base_ops_view(db);
}

int analysis_baseline(sqlite3 *db, struct analysis_opts *o)
{
	const char *file = o->baseline;
	if (o->baseline) {
		if (!(o->base_db = db_open(o->baseline, DB_READ)) ||
		    db_session(o->base_db, o->base_id, &o->base_session))
			return -1;
	} else if (o->base_id ? db_session(db, o->base_id, &o->base_session)
			      : default_base(db, o->session, &o->base_session)) {
		return -1;
	}
	if (!file && !(file = sqlite3_db_filename(db, "main")))
		return error("compare: the database has no file to read the baseline from");
	return attach_base(db, file);
}

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
	const char *sql = a->text ? a->text : embed_get(a->sql), *prelude = a->prelude ? embed_get(a->prelude) : NULL;
	const char *views = embed_get("analyze/views.sql");
	if (!sql || (a->prelude && !prelude) || !views)
		return error("internal: analysis '%s' has no SQL file %s", a->name, sql ? a->prelude : a->sql);
	/* The TEMP views every analysis may read (made once per connection: IF NOT EXISTS). */
	if (script_run(db, views, o, NULL, 0, out))
		return -1;
	if (prelude && script_run(db, prelude, o, NULL, 0, out))
		return -1;
	if (a->text)	/* a user's module */
		return script_run_module(db, a->text, a->module, o, a->tables, a->ntables, out);
	return script_run(db, sql, o, a->tables, a->ntables, out);
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
