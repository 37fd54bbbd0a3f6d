/*
 * busy: GPU span, busy and idle time per device, defined once (busy.h) for every analysis that shows them.
 */
#include "busy.h"
#include "embed.h"
#include "columns.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static void push(struct ivlist *l, int64_t s, int64_t e)
{
	if (l->n == l->alloc)
		ivlist_grow(l);
	l->v[l->n].start = s;
	l->v[l->n].end = e;
	l->n++;
}

/* The entry of device value `device`, added if new. */
static struct dev_iv *dev_get(struct gpu_load *g, int64_t device)
{
	size_t i;
	for (i = 0; i < g->ndev && g->dev[i].device != device; i++)
		;
	if (i == g->ndev) {
		ALLOC_GROW(g->dev, g->ndev + 1, g->adev);
		memset(&g->dev[i], 0, sizeof(g->dev[i]));
		g->dev[i].device = device;
		g->dev[i].first = INT64_MAX;
		g->dev[i].last = INT64_MIN;
		g->ndev++;
	}
	return &g->dev[i];
}

/* The entry of (device, stream), added if new. */
static size_t stream_get(struct gpu_load *g, int64_t device, int64_t stream)
{
	size_t i;
	for (i = g->nstr; i-- > 0;)
		if (g->str[i].device == device && g->str[i].stream == stream)
			return i;
	ALLOC_GROW(g->str, g->nstr + 1, g->astr);
	memset(&g->str[g->nstr], 0, sizeof(g->str[0]));
	g->str[g->nstr].device = device;
	g->str[g->nstr].stream = stream;
	return g->nstr++;
}

/*
 * Add one GPU interval (copy or compute) to its device, or when streams only to its stream (the device
 * keeps its first and last time for the span either way).
 */
static void add(struct gpu_load *g, struct dev_iv *d, size_t stream, int copy, int64_t s, int64_t e)
{
	if (stream == SIZE_MAX)
		push(copy ? &d->copy : &d->compute, s, e);
	else
		push(&g->str[stream].v, s, e);
	if (s < d->first)
		d->first = s;
	if (e > d->last)
		d->last = e;
}

int gpu_load_read(sqlite3 *db, const struct analysis_opts *o, int streams, struct gpu_load *g)
{
	struct script sc = { db, embed_get("analyze/busy.sql"), o };
	const struct kcols *k = kernels_get(db, o->session, KC_SPAN | (streams ? KC_STREAM : 0));
	struct dev_iv *d = NULL;
	sqlite3_stmt *st;
	size_t i, *dev_ix = NULL, *str_ix = NULL;
	int rc;
	memset(g, 0, sizeof(*g));
	if (!k)
		return -1;
	/* Kernels: device and stream indexes of the columns map to entries through small tables. */
	dev_ix = xmalloc((k->ndevices ? k->ndevices : 1) * sizeof(*dev_ix));
	for (i = 0; i < k->ndevices; i++)
		dev_ix[i] = SIZE_MAX;
	if (streams) {
		size_t pairs = k->ndevices * k->nstreams;
		str_ix = xmalloc((pairs ? pairs : 1) * sizeof(*str_ix));
		for (i = 0; i < pairs; i++)
			str_ix[i] = SIZE_MAX;
	}
	/* Pass 1 makes the entries (in order of first sight) and counts their kernels, so lists get their size once. */
	for (i = 0; i < k->n; i++) {
		size_t di = (size_t)k->dev[i];
		if (dev_ix[di] == SIZE_MAX)
			dev_ix[di] = (size_t)(dev_get(g, k->devices[di]) - g->dev);
		if (streams) {
			size_t *x = &str_ix[di * k->nstreams + (size_t)k->stream[i]];
			if (*x == SIZE_MAX)
				*x = stream_get(g, k->devices[di], k->streams[k->stream[i]]);
			g->str[*x].v.n++;
		} else {
			g->dev[dev_ix[di]].compute.n++;
		}
	}
	for (i = 0; i < g->nstr; i++)
		ivlist_reserve(&g->str[i].v, g->str[i].v.n);
	for (i = 0; i < g->ndev; i++)
		ivlist_reserve(&g->dev[i].compute, g->dev[i].compute.n);
	for (i = 0; i < k->n; i++) {
		size_t di = (size_t)k->dev[i];
		size_t si = streams ? str_ix[di * k->nstreams + (size_t)k->stream[i]] : SIZE_MAX;
		struct dev_iv *kd = &g->dev[dev_ix[di]];
		add(g, kd, si, 0, k->start[i], k->start[i] + k->dur[i]);
		kd->kernels++;
		kd->kernel_ns += k->dur[i];
	}
	free(dev_ix);
	free(str_ix);
	if (!(st = script_next(&sc)))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t device = sqlite3_column_int64(st, 0), stream = sqlite3_column_int64(st, 1);
		if (!d || d->device != device)
			d = dev_get(g, device);
		add(g, d, streams ? stream_get(g, device, stream) : SIZE_MAX, 1, sqlite3_column_int64(st, 2),
		    sqlite3_column_int64(st, 3));
	}
	if (rc != SQLITE_DONE)
		return step_error(st);
	sqlite3_finalize(st);
	return 0;
}

int64_t gpu_load_span(const struct gpu_load *g, int64_t device)
{
	size_t i;
	for (i = 0; i < g->ndev; i++)
		if (g->dev[i].device == device && g->dev[i].last > g->dev[i].first)
			return g->dev[i].last - g->dev[i].first;
	return 0;
}

void gpu_load_free(struct gpu_load *g)
{
	size_t i;
	for (i = 0; i < g->ndev; i++) {
		ivlist_release(&g->dev[i].compute);
		ivlist_release(&g->dev[i].copy);
	}
	for (i = 0; i < g->nstr; i++)
		ivlist_release(&g->str[i].v);
	free(g->dev);
	free(g->str);
	memset(g, 0, sizeof(*g));
}

/* The entry for device id in v, added (inactive, all zero) if new. */
static struct gpu_busy *busy_entry(struct gpu_busy **v, size_t *n, size_t *alloc, int64_t id)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if ((*v)[i].device == id)
			return &(*v)[i];
	ALLOC_GROW(*v, *n + 1, *alloc);
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].device = id;
	return &(*v)[(*n)++];
}

static int cmp_busy(const void *a, const void *b)
{
	const struct gpu_busy *x = a, *y = b;
	return x->device < y->device ? -1 : x->device > y->device;
}

/* gpu_busy_get without the cache: the figures of every declared or active device into *out. */
static int busy_compute(sqlite3 *db, const struct analysis_opts *o, struct gpu_busy **out, size_t *nout)
{
	struct script sc = { db, embed_get("analyze/busy.sql"), o };
	struct gpu_busy *v = NULL;
	struct gpu_load g;
	size_t n = 0, alloc = 0, i;
	sqlite3_stmt *st;
	int rc;

	if (gpu_load_read(db, o, 0, &g)) {
		gpu_load_free(&g);
		return -1;
	}
	for (i = 0; i < g.ndev; i++) {
		struct dev_iv *d = &g.dev[i];
		struct gpu_busy *b = busy_entry(&v, &n, &alloc, d->device);
		b->active = 1;
		b->first_ns = d->first;
		b->last_ns = d->last;
		b->span_ns = d->last - d->first;
		b->kernels = d->kernels;
		b->kernel_ns = d->kernel_ns;
		b->kernel_busy_ns = spans_merge(&d->compute);
		b->copy_busy_ns = spans_merge(&d->copy);
		b->overlap_ns = spans_intersect(&d->compute, &d->copy);
		b->busy_ns = b->kernel_busy_ns + b->copy_busy_ns - b->overlap_ns;	/* |A u B| = |A| + |B| - |A n B| */
		b->idle_ns = b->span_ns - b->busy_ns;
	}
	gpu_load_free(&g);
	/* Statement 1 (the copies) was the loader's; statement 2 names the declared devices. */
	script_skip(&sc);
	if (!(st = script_next(&sc)))
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		busy_entry(&v, &n, &alloc, sqlite3_column_int64(st, 0));
	if (rc != SQLITE_DONE) {
		step_error(st);
		goto fail;
	}
	sqlite3_finalize(st);
	xqsort(v, n, sizeof(*v), cmp_busy);
	*out = v;
	*nout = n;
	return 0;
fail:
	free(v);
	return -1;
}

/* The figures of one (db, session), computed once: summary, devices and idle all ask in one report. */
static struct busy_cache {
	sqlite3 *db;
	int64_t session;
	struct gpu_busy *v;
	size_t n;
} cache;

int gpu_busy_get(sqlite3 *db, const struct analysis_opts *o, struct gpu_busy **out, size_t *n)
{
	if (!cache.db || cache.db != db || cache.session != o->session) {
		gpu_busy_drop(cache.db);
		if (busy_compute(db, o, &cache.v, &cache.n))
			return -1;
		cache.db = db;
		cache.session = o->session;
	}
	*out = xmalloc((cache.n ? cache.n : 1) * sizeof(**out));
	if (cache.n)
		memcpy(*out, cache.v, cache.n * sizeof(**out));
	*n = cache.n;
	return 0;
}

void gpu_busy_drop(sqlite3 *db)
{
	if (!db || cache.db != db)
		return;
	free(cache.v);
	memset(&cache, 0, sizeof(cache));
}
