#include "analysis.h"
#include "db.h"
#include "embed.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Statements of one SQL file, prepared one after another with the options bound by name. */
struct script {
	sqlite3 *db;
	const char *tail;
	const struct analysis_opts *o;
};

static void bind_opts(sqlite3_stmt *st, const struct analysis_opts *o)
{
	int i;
	if ((i = sqlite3_bind_parameter_index(st, ":session")))
		sqlite3_bind_int64(st, i, o->session);
	if ((i = sqlite3_bind_parameter_index(st, ":match")) && o->match)
		sqlite3_bind_text(st, i, o->match, -1, SQLITE_STATIC);
	if ((i = sqlite3_bind_parameter_index(st, ":exclude")) && o->exclude)
		sqlite3_bind_text(st, i, o->exclude, -1, SQLITE_STATIC);
	if ((i = sqlite3_bind_parameter_index(st, ":top")))
		sqlite3_bind_int(st, i, o->top > 0 ? o->top : -1);
}

/* The next statement of the script, bound; NULL with a message when there is none or it fails. */
static sqlite3_stmt *script_next(struct script *sc)
{
	sqlite3_stmt *st = NULL;
	while (!st) {
		if (!sc->tail || !*sc->tail) {
			error("internal: analysis script has too few statements");
			return NULL;
		}
		if (sqlite3_prepare_v2(sc->db, sc->tail, -1, &st, &sc->tail) != SQLITE_OK) {
			error("sqlite: %s", sqlite3_errmsg(sc->db));
			return NULL;
		}
	}
	bind_opts(st, sc->o);
	return st;
}

static int step_error(sqlite3_stmt *st)
{
	error("sqlite: %s", sqlite3_errmsg(sqlite3_db_handle(st)));
	sqlite3_finalize(st);
	return -1;
}

static void set_col_text(struct table *t, size_t r, int c, sqlite3_stmt *st, int i)
{
	table_set_text(t, r, c, (const char *)sqlite3_column_text(st, i));
}

/* Copy result columns 0..n-1 of st into row r from table column `first` on, typed by the table. */
static void cells_from_row(struct table *t, size_t r, int first, sqlite3_stmt *st, int n)
{
	int c;
	for (c = 0; c < n; c++) {
		if (sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		if (t->cols[first + c].type == C_TEXT)
			set_col_text(t, r, first + c, st, c);
		else
			table_set_int(t, r, first + c, sqlite3_column_int64(st, c));
	}
}

/* Busy time of one device: the union of its kernel intervals. */
struct device_busy {
	int64_t id;
	int64_t kernels, kernel_ns, busy_ns, span_ns;
	struct interval *v;	/* kernel intervals while loading */
	size_t alloc;
};

/* The entry for device id, added if new. */
static struct device_busy *device_get(struct device_busy **dev, size_t *n, size_t *alloc, int64_t id)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if ((*dev)[i].id == id)
			return &(*dev)[i];
	ALLOC_GROW(*dev, *n + 1, *alloc);
	memset(&(*dev)[*n], 0, sizeof(**dev));
	(*dev)[*n].id = id;
	return &(*dev)[(*n)++];
}

static int cmp_device(const void *a, const void *b)
{
	const struct device_busy *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Busy time per device from analyze/busy.sql: every declared device (one that ran nothing shows too),
 * then every kernel interval, merged per device. Returns the devices sorted by id, or -1.
 */
static int busy_load(sqlite3 *db, const struct analysis_opts *o, struct device_busy **out, size_t *nout)
{
	struct script sc = { db, embed_get("analyze/busy.sql"), o };
	struct device_busy *dev = NULL, *d = NULL;
	size_t ndev = 0, dalloc = 0, i;
	sqlite3_stmt *st;
	int rc;

	if (!(st = script_next(&sc)))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		device_get(&dev, &ndev, &dalloc, sqlite3_column_int64(st, 0));
	if (rc != SQLITE_DONE || !(sqlite3_finalize(st), st = script_next(&sc)))
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), s0 = sqlite3_column_int64(st, 1),
			e0 = sqlite3_column_int64(st, 2);
		if (!d || d->id != id)
			d = device_get(&dev, &ndev, &dalloc, id);
		if ((size_t)d->kernels == d->alloc)
			ALLOC_GROW(d->v, (size_t)d->kernels + 1, d->alloc);
		d->v[d->kernels].start = s0;
		d->v[d->kernels].end = e0;
		d->kernels++;
		d->kernel_ns += e0 - s0;
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	for (i = 0; i < ndev; i++) {
		int64_t first = INT64_MAX, last = INT64_MIN, k;
		for (k = 0; k < dev[i].kernels; k++) {
			if (dev[i].v[k].start < first)
				first = dev[i].v[k].start;
			if (dev[i].v[k].end > last)
				last = dev[i].v[k].end;
		}
		dev[i].busy_ns = interval_union(dev[i].v, (size_t)dev[i].kernels);
		dev[i].span_ns = dev[i].kernels ? last - first : 0;
		free(dev[i].v);
		dev[i].v = NULL;
	}
	qsort(dev, ndev, sizeof(*dev), cmp_device);
	*out = dev;
	*nout = ndev;
	return 0;
fail:
	if (st)
		step_error(st);
	for (i = 0; i < ndev; i++)
		free(dev[i].v);
	free(dev);
	return -1;
}

static const struct colspec summary_cols[] = {
	{ "session_id", "Session", C_INT },
	{ "session", "Session id", C_TEXT },
	{ "source", "Source", C_TEXT },
	{ "program", "Program", C_TEXT },
	{ "hostname", "Host", C_TEXT },
	{ "engine", "Engine", C_TEXT },
	{ "start_ns", "Start", C_TIME },
	{ "end_ns", "End", C_TIME },
	{ "span_ns", "Wall span", C_NS },
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
	{ "kernel_ns", "Kernel time (sum)", C_NS },
	{ "busy_ns", "GPU busy (union)", C_NS },
	{ "busy_pct", "GPU busy %", C_PCT },
};

static int run_summary(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("summary", "Session summary");
	struct device_busy *dev = NULL;
	size_t ndev = 0, i, r;
	sqlite3_stmt *st;
	int64_t kernels = 0, kernel_ns = 0, busy_ns = 0, span_sum = 0;
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
	cells_from_row(t, r, 0, st, 20);
	sqlite3_finalize(st);

	if (busy_load(db, o, &dev, &ndev))
		return -1;
	for (i = 0; i < ndev; i++) {
		kernels += dev[i].kernels;
		kernel_ns += dev[i].kernel_ns;
		busy_ns += dev[i].busy_ns;
		span_sum += dev[i].span_ns;
	}
	free(dev);
	table_set_int(t, r, 20, kernels);
	table_set_int(t, r, 21, kernel_ns);
	table_set_int(t, r, 22, busy_ns);
	if (span_sum > 0)
		table_set_real(t, r, 23, 100.0 * (double)busy_ns / (double)span_sum);
	return 0;
}

static const struct colspec devices_cols[] = {
	{ "device", "Device", C_INT },
	{ "kernels", "Kernels", C_INT },
	{ "kernel_ns", "Kernel time (sum)", C_NS },
	{ "busy_ns", "Busy (union)", C_NS },
	{ "span_ns", "Span", C_NS },
	{ "busy_pct", "Busy %", C_PCT },
	{ "sms", "SMs", C_INT },
	{ "memory_bytes", "Memory", C_BYTES },
	{ "cc", "CC", C_TEXT },
	{ "name", "Name", C_TEXT },
};

static int run_devices(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("devices", "GPU busy time per device (union of kernel intervals)");
	struct device_busy *dev = NULL;
	size_t ndev = 0, i;
	sqlite3_stmt *st;

	tables_add(out, t);
	table_cols(t, devices_cols, NCOLS(devices_cols));
	if (busy_load(db, o, &dev, &ndev) || !(st = script_next(&sc))) {
		free(dev);
		return -1;
	}
	for (i = 0; i < ndev; i++) {
		size_t r = table_row(t);
		table_set_int(t, r, 0, dev[i].id);
		table_set_int(t, r, 1, dev[i].kernels);
		table_set_int(t, r, 2, dev[i].kernel_ns);
		table_set_int(t, r, 3, dev[i].busy_ns);
		table_set_int(t, r, 4, dev[i].span_ns);
		if (dev[i].span_ns > 0)
			table_set_real(t, r, 5, 100.0 * (double)dev[i].busy_ns / (double)dev[i].span_ns);
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":device"), dev[i].id);
		if (sqlite3_step(st) == SQLITE_ROW)
			cells_from_row(t, r, 6, st, 4);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	free(dev);
	return 0;
}

static const struct colspec hotspots_cols[] = {
	{ "time_pct", "Time %", C_PCT },
	{ "total_ns", "Total", C_NS },
	{ "calls", "Calls", C_INT },
	{ "avg_ns", "Avg", C_NS },
	{ "med_ns", "Med", C_NS },
	{ "min_ns", "Min", C_NS },
	{ "max_ns", "Max", C_NS },
	{ "stddev_ns", "StdDev", C_NS },
	{ "name", "Name", C_TEXT },
};

static int run_hotspots(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("hotspots", "Top kernels by total GPU time");
	struct dstats *s = NULL;
	sqlite3_stmt *st, *name;
	size_t n = 0, i;
	int64_t all = 0;

	tables_add(out, t);
	table_cols(t, hotspots_cols, NCOLS(hotspots_cols));

	if (!(st = script_next(&sc)))
		return -1;
	if (stats_by_key(st, &s, &n)) {
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	if (!(st = script_next(&sc)))
		goto fail;
	if (o->match || o->exclude) {
		if (sqlite3_step(st) != SQLITE_ROW)
			goto fail_st;
		all = sqlite3_column_int64(st, 0);
	} else {
		for (i = 0; i < n; i++)
			all += s[i].total;
	}
	sqlite3_finalize(st);
	if (!(name = script_next(&sc)))
		goto fail;
	for (i = 0; i < n && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		if (all > 0)
			table_set_real(t, r, 0, 100.0 * (double)s[i].total / (double)all);
		table_set_int(t, r, 1, s[i].total);
		table_set_int(t, r, 2, s[i].n);
		table_set_real(t, r, 3, s[i].mean);
		table_set_real(t, r, 4, s[i].median);
		table_set_int(t, r, 5, s[i].min);
		table_set_int(t, r, 6, s[i].max);
		table_set_real(t, r, 7, s[i].stddev);
		sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), s[i].key);
		if (sqlite3_step(name) == SQLITE_ROW)
			set_col_text(t, r, 8, name, 0);
		else
			table_set_text(t, r, 8, "(unknown)");
		sqlite3_reset(name);
	}
	sqlite3_finalize(name);
	free(s);
	return 0;
fail_st:
	step_error(st);
fail:
	free(s);
	return -1;
}

const struct analysis analyses[] = {
	{ "summary", "analyze/summary.sql", "The session, its devices and GPU busy time (union of kernels)",
	  run_summary },
	{ "devices", "analyze/devices.sql", "GPUs: busy time as the union of kernel intervals, span, properties",
	  run_devices },
	{ "hotspots", "analyze/hotspots.sql", "Kernels by total GPU time: count, total, avg, med, min, max, stddev",
	  run_hotspots },
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
