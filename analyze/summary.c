/*
 * summary and devices: what the session is, and how busy each GPU was over its GPU span (busy.h: kernels,
 * copies and memsets), with the kernel-only figures beside.
 */
#include "analysis.h"
#include "busy.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

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
};

/* Columns of the session row that busy.h fills, summed over the devices. */
enum { S_KERNELS = 20, S_KERNEL_NS, S_KERNEL_BUSY, S_SPAN, S_BUSY, S_IDLE, S_PCT };

int run_summary(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("summary", "Session summary");
	struct gpu_busy *dev = NULL, sum = { 0 };
	size_t ndev = 0, i, r;
	sqlite3_stmt *st;
	int rc;

	t->vertical = 1;
	tables_add(out, t);
	table_cols(t, summary_cols, NCOLS(summary_cols));

	if (!(st = script_next(&sc)))
		return -1;
	if ((rc = sqlite3_step(st)) != SQLITE_ROW)
		return rc == SQLITE_DONE ? (sqlite3_finalize(st), error("no session %lld", (long long)o->session))
					 : step_error(st);
	r = table_row(t);
	cells_from_row(t, r, 0, st, S_KERNELS);
	sqlite3_finalize(st);

	if (gpu_busy_get(db, o, &dev, &ndev))
		return -1;
	for (i = 0; i < ndev; i++) {
		sum.kernels += dev[i].kernels;
		sum.kernel_ns += dev[i].kernel_ns;
		sum.kernel_busy_ns += dev[i].kernel_busy_ns;
		sum.span_ns += dev[i].span_ns;
		sum.busy_ns += dev[i].busy_ns;
		sum.idle_ns += dev[i].idle_ns;
	}
	free(dev);
	table_set_int(t, r, S_KERNELS, sum.kernels);
	table_set_int(t, r, S_KERNEL_NS, sum.kernel_ns);
	table_set_int(t, r, S_KERNEL_BUSY, sum.kernel_busy_ns);
	table_set_int(t, r, S_SPAN, sum.span_ns);
	table_set_int(t, r, S_BUSY, sum.busy_ns);
	table_set_int(t, r, S_IDLE, sum.idle_ns);
	if (sum.span_ns > 0)
		table_set_real(t, r, S_PCT, 100.0 * (double)sum.busy_ns / (double)sum.span_ns);
	return 0;
}

static const struct colspec devices_cols[] = {
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

int run_devices(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("devices", "GPU busy time per device: kernels, copies and memsets over the GPU span");
	struct gpu_busy *dev = NULL;
	size_t ndev = 0, i;
	sqlite3_stmt *st;

	tables_add(out, t);
	table_cols(t, devices_cols, NCOLS(devices_cols));
	if (gpu_busy_get(db, o, &dev, &ndev) || !(st = script_next(&sc))) {
		free(dev);
		return -1;
	}
	for (i = 0; i < ndev; i++) {
		size_t r = table_row(t);
		table_set_int(t, r, 0, dev[i].device);
		table_set_int(t, r, 1, dev[i].kernels);
		table_set_int(t, r, 2, dev[i].kernel_ns);
		table_set_int(t, r, 3, dev[i].kernel_busy_ns);
		table_set_int(t, r, 4, dev[i].span_ns);
		table_set_int(t, r, 5, dev[i].busy_ns);
		if (dev[i].span_ns > 0)
			table_set_real(t, r, 6, 100.0 * (double)dev[i].busy_ns / (double)dev[i].span_ns);
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":device"), dev[i].device);
		if (sqlite3_step(st) == SQLITE_ROW)
			cells_from_row(t, r, 7, st, 4);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	free(dev);
	return 0;
}
