/*
 * summary and devices: what the session is, and how busy each GPU was (the union of kernel intervals).
 */
#include "analysis.h"
#include "embed.h"
#include "columns.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Busy time of one device: the union of its kernel intervals. */
struct device_busy {
	int64_t id;
	int64_t kernels, kernel_ns, busy_ns, span_ns;
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
static int busy_compute(sqlite3 *db, const struct analysis_opts *o, struct device_busy **out, size_t *nout);

/*
 * busy_compute, remembered for the last (database, session): summary and devices both need it, and a
 * report runs both. The caller frees *out.
 */
static int busy_load(sqlite3 *db, const struct analysis_opts *o, struct device_busy **out, size_t *nout)
{
	static sqlite3 *cached_db;
	static int64_t cached_session;
	static struct device_busy *cached;
	static size_t ncached;
	if (!cached || cached_db != db || cached_session != o->session) {
		free(cached);
		cached = NULL;
		if (busy_compute(db, o, &cached, &ncached))
			return -1;
		cached_db = db;
		cached_session = o->session;
	}
	*out = xmalloc((ncached ? ncached : 1) * sizeof(**out));
	if (ncached)
		memcpy(*out, cached, ncached * sizeof(**out));
	*nout = ncached;
	return 0;
}

static int busy_compute(sqlite3 *db, const struct analysis_opts *o, struct device_busy **out, size_t *nout)
{
	struct script sc = { db, embed_get("analyze/busy.sql"), o };
	const struct kcols *k;
	struct device_busy *dev = NULL;
	struct ivlist *spans;
	size_t ndev = 0, dalloc = 0, i, j;
	sqlite3_stmt *st;
	int rc;

	if (!(k = kernels_get(db, o->session, KC_SPAN)) || !(st = script_next(&sc)))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		device_get(&dev, &ndev, &dalloc, sqlite3_column_int64(st, 0));
	if (rc != SQLITE_DONE) {
		free(dev);
		return step_error(st);
	}
	sqlite3_finalize(st);
	spans = xcalloc(k->ndevices ? k->ndevices : 1, sizeof(*spans));
	kernels_device_spans(k, spans);
	for (i = 0; i < k->ndevices; i++) {
		struct device_busy *d = device_get(&dev, &ndev, &dalloc, k->devices[i]);
		int64_t first = INT64_MAX, last = INT64_MIN;
		for (j = 0; j < spans[i].n; j++) {
			if (spans[i].v[j].start < first)
				first = spans[i].v[j].start;
			if (spans[i].v[j].end > last)
				last = spans[i].v[j].end;
			d->kernel_ns += spans[i].v[j].end - spans[i].v[j].start;
		}
		d->kernels = (int64_t)spans[i].n;
		d->span_ns = spans[i].n ? last - first : 0;
		d->busy_ns = interval_union(spans[i].v, spans[i].n);
		ivlist_release(&spans[i]);
	}
	free(spans);
	xqsort(dev, ndev, sizeof(*dev), cmp_device);
	*out = dev;
	*nout = ndev;
	return 0;
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

int run_summary(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
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

int run_devices(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
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
