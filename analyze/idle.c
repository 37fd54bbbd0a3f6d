/*
 * idle, gaps and streams: where the GPUs did nothing. Per device: span, busy and idle time as busy.h
 * defines them (kernels, copies and memsets), kernel and copy busy time and their overlap; per stream its
 * busy time; and the longest idle gaps with the host calls that ran during them.
 */
#include "analysis.h"
#include "busy.h"
#include "columns.h"
#include "stats.h"
#include "intmap.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int cmp_stream_busy(const void *a, const void *b)
{
	const struct stream_iv *x = a, *y = b;
	if (x->busy != y->busy)
		return x->busy > y->busy ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

static const struct colspec idle_cols[] = {
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

int run_idle(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct table *t = table_new("idle", "GPU idle time per device (busy = union of kernels, copies, memsets)");
	struct gpu_busy *dev;
	size_t ndev, i;

	(void)sql;
	tables_add(out, t);
	table_cols(t, idle_cols, NCOLS(idle_cols));
	if (gpu_busy_get(db, o, &dev, &ndev))
		return -1;
	for (i = 0; i < ndev; i++) {
		const struct gpu_busy *d = &dev[i];
		size_t r;
		if (!d->active)
			continue;	/* declared but ran nothing: devices shows it */
		r = table_row(t);
		table_set_int(t, r, 0, d->device);
		table_set_int(t, r, 1, d->span_ns);
		table_set_int(t, r, 2, d->busy_ns);
		table_set_int(t, r, 3, d->idle_ns);
		if (d->span_ns > 0)
			table_set_real(t, r, 4, 100.0 * (double)d->idle_ns / (double)d->span_ns);
		table_set_int(t, r, 5, d->kernel_busy_ns);
		table_set_int(t, r, 6, d->copy_busy_ns);
		table_set_int(t, r, 7, d->overlap_ns);
		if (d->copy_busy_ns > 0)
			table_set_real(t, r, 8, 100.0 * (double)d->overlap_ns / (double)d->copy_busy_ns);
	}
	free(dev);
	return 0;
}

static const struct colspec streams_cols[] = {
	{ "device", "Device", C_INT },
	{ "stream", "Stream", C_INT },
	{ "busy_ns", "Busy", C_NS },
	{ "ops", "Operations", C_INT },
	{ "busy_pct", "Busy % of GPU span", C_PCT },
};

int run_streams(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct table *t = table_new("streams", "Busy time per stream");
	struct gpu_load g;
	size_t i;

	(void)sql;
	tables_add(out, t);
	table_cols(t, streams_cols, NCOLS(streams_cols));
	if (gpu_load_read(db, o, 1, &g)) {
		gpu_load_free(&g);
		return -1;
	}
	for (i = 0; i < g.nstr; i++)
		g.str[i].busy = interval_union(g.str[i].v.v, g.str[i].v.n);
	xqsort(g.str, g.nstr, sizeof(*g.str), cmp_stream_busy);
	for (i = 0; i < g.nstr && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		int64_t busy = g.str[i].busy, span = gpu_load_span(&g, g.str[i].device);
		table_set_int(t, r, 0, g.str[i].device);
		table_set_int(t, r, 1, g.str[i].stream);
		table_set_int(t, r, 2, busy);
		table_set_int(t, r, 3, (int64_t)g.str[i].v.n);
		if (span > 0)
			table_set_real(t, r, 4, 100.0 * (double)busy / (double)span);
	}
	gpu_load_free(&g);
	return 0;
}

struct gap {
	int64_t device, start, end;
};

static int cmp_gap_len(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;
	int64_t lx = x->end - x->start, ly = y->end - y->start;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static const struct colspec gaps_cols[] = {
	{ "device", "Device", C_INT },
	{ "start_ns", "Start", C_TIME },
	{ "gap_ns", "Idle for", C_NS },
	{ "host", "Host calls during the gap (time inside it)", C_TEXT },
};

/* The holes between the busy spans of one device, as spans_union hands the spans over. */
struct holes {
	struct gap *v;
	size_t *n, keep;
	int64_t device;
	int any;		/* a span was seen: `end` is the last one's end */
	int64_t end;
};

static void keep_longest(struct gap *v, size_t *n, size_t keep, const struct gap *g);

static void hole_each(void *arg, int64_t start, int64_t end)
{
	struct holes *h = arg;
	if (h->any) {
		struct gap gp = { h->device, h->end, start };
		keep_longest(h->v, h->n, h->keep, &gp);
	}
	h->any = 1;
	h->end = end;
}

/* Keep the `keep` longest gaps in v (sorted, longest first) as gaps stream by. */
static void keep_longest(struct gap *v, size_t *n, size_t keep, const struct gap *g)
{
	size_t i;
	if (*n == keep && cmp_gap_len(g, &v[*n - 1]) >= 0)
		return;
	if (*n < keep)
		(*n)++;
	for (i = *n - 1; i > 0 && cmp_gap_len(g, &v[i - 1]) < 0; i--)
		v[i] = v[i - 1];
	v[i] = *g;
}

/* Per gap, per call name: time inside the gap. */
struct gap_acc {
	size_t gap;		/* index into the kept gaps (longest first) */
	int64_t name, ns;
	size_t order;		/* first seen: the call order breaks ties in ns, as it always has */
};

static int cmp_acc(const void *a, const void *b)
{
	const struct gap_acc *x = a, *y = b;
	if (x->gap != y->gap)
		return x->gap < y->gap ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A kept gap in (device, start) order, with its index among the kept gaps. */
struct gap_ref {
	int64_t device, start, end;
	size_t ix;
};

static int cmp_gap_ref(const void *a, const void *b)
{
	const struct gap_ref *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * One pass over the host calls (the shared API call columns): the time each call name spent inside each
 * kept gap, as a list sorted by gap, then time descending, then first call. A device's gaps are disjoint
 * and sorted, so a call finds the ones it overlaps by a binary search per device. Returns 0, or -1 with a
 * message; *acc is the caller's to free.
 */
static int host_time(sqlite3 *db, int64_t session, const struct gap *gaps, size_t ngaps, struct gap_acc **acc,
		     size_t *nacc)
{
	const struct ccols *c = calls_get(db, session, CC_START | CC_DUR | CC_NAME);
	struct gap_ref *ref;
	struct intmap at = INTMAP_INIT;		/* (name, gap) key -> index into *acc */
	size_t *dev_end, ndev = 0, aacc = 0, i, k, d;
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	*acc = NULL;
	*nacc = 0;
	if (!c)
		return -1;
	ref = xmalloc(ngaps * sizeof(*ref));
	dev_end = xmalloc(ngaps * sizeof(*dev_end));
	for (i = 0; i < ngaps; i++) {
		ref[i].device = gaps[i].device;
		ref[i].start = gaps[i].start;
		ref[i].end = gaps[i].end;
		ref[i].ix = i;
		lo = gaps[i].start < lo ? gaps[i].start : lo;
		hi = gaps[i].end > hi ? gaps[i].end : hi;
	}
	xqsort(ref, ngaps, sizeof(*ref), cmp_gap_ref);
	for (i = 1; i <= ngaps; i++)
		if (i == ngaps || ref[i].device != ref[i - 1].device)
			dev_end[ndev++] = i;
	for (k = 0; k < c->n; k++) {
		int64_t s = c->start[k], e = s + c->dur[k];
		if (e <= lo || s >= hi)
			continue;
		for (d = 0, i = 0; d < ndev; i = dev_end[d++]) {
			size_t l = i, h = dev_end[d];
			while (l < h) {		/* the device's first gap ending after s */
				size_t m = l + (h - l) / 2;
				if (ref[m].end <= s)
					l = m + 1;
				else
					h = m;
			}
			for (; l < dev_end[d] && ref[l].start < e; l++) {
				int64_t a = s > ref[l].start ? s : ref[l].start, b = e < ref[l].end ? e : ref[l].end;
				int64_t key = ((int64_t)(uint32_t)c->name[k] << 17 | (int64_t)ref[l].ix) + 1, x;
				if (b <= a)
					continue;
				if (!intmap_get(&at, key, &x)) {
					ALLOC_GROW(*acc, *nacc + 1, aacc);
					x = (int64_t)*nacc;
					(*acc)[x].gap = ref[l].ix;
					(*acc)[x].name = c->name[k];
					(*acc)[x].ns = 0;
					(*acc)[x].order = *nacc;
					intmap_put(&at, key, x);
					(*nacc)++;
				}
				(*acc)[x].ns += b - a;
			}
		}
	}
	xqsort(*acc, *nacc, sizeof(**acc), cmp_acc);
	intmap_release(&at);
	free(ref);
	free(dev_end);
	return 0;
}

int run_gaps(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("gaps", "Longest GPU idle gaps and what the host was doing");
	struct gpu_load g;
	struct gap *gaps;
	struct gap_acc *acc = NULL;
	size_t ngaps = 0, nacc = 0, next = 0, i, keep = o->top > 0 ? (size_t)o->top : 10;
	sqlite3_stmt *name;

	tables_add(out, t);
	table_cols(t, gaps_cols, NCOLS(gaps_cols));
	if (keep > 100000)
		keep = 100000;
	gaps = xmalloc(keep * sizeof(*gaps));
	if (gpu_load_read(db, o, 0, &g)) {
		gpu_load_free(&g);
		free(gaps);
		return -1;
	}
	/* The gaps of a device are the holes between the spans of its busy time (kernels and copies merged). */
	for (i = 0; i < g.ndev; i++) {
		struct dev_iv *d = &g.dev[i];
		struct ivlist both[2];
		struct holes h = { gaps, &ngaps, keep, d->device, 0, 0 };
		spans_merge(&d->compute);
		spans_merge(&d->copy);
		both[0] = d->compute;
		both[1] = d->copy;
		spans_union(both, 2, hole_each, &h);
	}
	gpu_load_free(&g);

	if (ngaps && host_time(db, o->session, gaps, ngaps, &acc, &nacc))
		goto fail;
	if (!(name = script_next(&sc)))
		goto fail;
	for (i = 0; i < ngaps; i++) {
		size_t r = table_row(t);
		struct buf host;
		int shown;
		buf_init(&host);
		table_set_int(t, r, 0, gaps[i].device);
		table_set_int(t, r, 1, gaps[i].start);
		table_set_int(t, r, 2, gaps[i].end - gaps[i].start);
		for (; next < nacc && acc[next].gap < i; next++)
			;
		for (shown = 0; shown < 3 && next < nacc && acc[next].gap == i; shown++, next++) {
			char when[32];
			sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), acc[next].name);
			fmt_ns(when, sizeof(when), (double)acc[next].ns);
			buf_addf(&host, "%s%s %s", shown ? ", " : "",
				 sqlite3_step(name) == SQLITE_ROW ? (const char *)sqlite3_column_text(name, 0) : "?", when);
			sqlite3_reset(name);
		}
		table_set_text(t, r, 3, host.len ? host.s : "(no host calls recorded)");
		buf_release(&host);
	}
	sqlite3_finalize(name);
	free(gaps);
	free(acc);
	return 0;
fail:
	free(gaps);
	free(acc);
	return -1;
}
