/*
 * gpu_busy, gpu_stream_busy, gpu_gaps: GPU span, busy and idle time as eponymous, read-only virtual tables
 * (see sqlext.h). A device's GPU activity is its kernels (read as kernel_columns reads them: the column
 * chunks, else the rows), copies (memcpys) and memsets (memsets). Compiled twice like analyze/ext/sqlext.c: into
 * gpuprof's programs and into the extension.
 *
 * Why C: the busy time is the length of a union of intervals, which SQL says as busy_union(start, end)
 * per device; on 5M kernels SQLite's GROUP BY feeding it takes 2.2 s, one pass here 0.3 s for every figure.
 *
 * A session with trace windows (table trace_windows) was traced only inside them: a gap counts only where
 * a window covers it (a gap across untraced time is cut into its traced pieces), idle is the sum of those,
 * and the span is busy + idle, the traced part of first start to last end.
 *
 * Accelerators of plain-SQL references: analyze/ref/{gpu_busy,gpu_stream_busy,gpu_gaps}.sql (tests/refs.py
 * checks they agree). Measured on the 5M-kernel bench session in the sqlite3 shell (C best of 3, reference one
 * run, 2 shared cores under load, 2026-11-28): gpu_busy 1.02 s against 25.62 s (25x); gpu_stream_busy 0.99 s
 * against 21.26 s (21x); gpu_gaps 6.42 s against 38.46 s (6x).
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"
#include "spans.h"

#include <stdlib.h>
#include <string.h>

#define NONE INT64_MIN		/* a NULL in a row of values */

/* The activity of one device, or of one stream of it. */
struct act {
	int64_t node, device, stream;	/* node: see analyze/ext/sqlext_nodes.c; stream -1: unknown, 0 when read per device */
	int active;		/* ran a kernel, copy or memset (a declared device may not have) */
	int64_t first, last;	/* first start, last end of all of it */
	int64_t ops, kernels, kernel_ns;	/* intervals; kernels: count, summed duration */
	int64_t kern_busy, copy_busy, overlap;	/* busy_of's: the unions of kern and copy, their intersection */
	struct ivlist kern, copy;	/* kernels; copies and memsets */
};

/* A session's activity per device, or per stream. */
struct load {
	struct act *v;		/* sqlite3_realloc64'd */
	size_t n, alloc, hit;	/* hit: the entry found last */
	int streams;
	struct sqlext_nodes nodes;	/* the session's */
};

static void load_free(struct load *g)
{
	size_t i;
	for (i = 0; i < g->n; i++) {
		ivlist_release(&g->v[i].kern);
		ivlist_release(&g->v[i].copy);
	}
	sqlite3_free(g->v);
	sqlext_nodes_free(&g->nodes);
	memset(g, 0, sizeof(*g));
}

/* The entry of process pid's (device, stream), added (inactive) if new; NULL when out of memory. */
static struct act *load_get(struct load *g, int64_t pid, int64_t device, int64_t stream)
{
	int64_t node = sqlext_node(&g->nodes, pid);
	size_t i;
	if (g->hit < g->n && g->v[g->hit].device == device && g->v[g->hit].stream == stream &&
	    g->v[g->hit].node == node)
		return &g->v[g->hit];
	for (i = 0; i < g->n && (g->v[i].device != device || g->v[i].stream != stream || g->v[i].node != node); i++)
		;
	if (i == g->n) {
		if (g->n == g->alloc) {
			size_t alloc = g->alloc ? 2 * g->alloc : 8;
			struct act *v = sqlite3_realloc64(g->v, alloc * sizeof(*v));
			if (!v)
				return NULL;
			g->v = v;
			g->alloc = alloc;
		}
		memset(&g->v[i], 0, sizeof(g->v[i]));
		g->v[i].node = node;
		g->v[i].device = device;
		g->v[i].stream = stream;
		g->v[i].first = INT64_MAX;
		g->v[i].last = INT64_MIN;
		g->n++;
	}
	g->hit = i;
	return &g->v[i];
}

static void act_add(struct act *a, struct ivlist *l, int64_t start, int64_t end)
{
	if (l->n == l->alloc)
		ivlist_grow(l);
	l->v[l->n].start = start;
	l->v[l->n].end = end;
	l->n++;
	a->ops++;
	a->active = 1;
	if (start < a->first)
		a->first = start;
	if (end > a->last)
		a->last = end;
}

static int take_kernels(void *arg, const int64_t *const *col, size_t n)
{
	struct load *g = arg;
	size_t i;
	for (i = 0; i < n; i++) {
		struct act *a = load_get(g, col[KC_PID] ? col[KC_PID][i] : 0, col[KC_DEV][i],
					 g->streams ? col[KC_STREAM][i] : 0);
		if (!a)
			return SQLITE_NOMEM;
		act_add(a, &a->kern, col[KC_START][i], col[KC_START][i] + col[KC_DUR][i]);
		a->kernels++;
		a->kernel_ns += col[KC_DUR][i];
	}
	return SQLITE_OK;
}

static int cmp_act(const void *a, const void *b)
{
	const struct act *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* Set the table's error message to SQLite's and return rc. */
static int db_error(sqlite3_vtab *vt, sqlite3 *db, int rc)
{
	sqlite3_free(vt->zErrMsg);
	vt->zErrMsg = sqlite3_mprintf("%s", rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
	return rc;
}

/*
 * Session s's activity into g, per device or per stream: its kernels, copies and memsets; per device also
 * the devices the session declared (table devices), inactive when they ran nothing. Sorted by device, then
 * stream. SQLITE_OK, or an error code with the message on vt (g is then still g's to free).
 */
static int load_read(sqlite3_vtab *vt, sqlite3 *db, int64_t s, int streams, struct load *g)
{
	static const char copies_sql[] =
		"SELECT pid, device_id, coalesce(stream_id, -1), start_ns, end_ns FROM memcpys WHERE session_id = ?1 "
		"UNION ALL SELECT pid, device_id, coalesce(stream_id, -1), start_ns, end_ns FROM memsets "
		"WHERE session_id = ?1";
	static const char declared_sql[] = "SELECT pid, id FROM devices WHERE session_id = ?1";
	sqlite3_stmt *st;
	int rc;
	memset(g, 0, sizeof(*g));
	g->streams = streams;
	if ((rc = sqlext_nodes_read(db, NULL, s, &g->nodes)) != SQLITE_OK)
		return db_error(vt, db, rc);
	/* The pids only where they tell GPUs apart (several nodes): one column less to decode otherwise. */
	rc = sqlext_kernels(vt, db, s, (g->nodes.count > 1 ? 1u << KC_PID : 0) | 1u << KC_DEV | 1u << KC_STREAM |
			    1u << KC_START | 1u << KC_DUR, take_kernels, g);
	if (rc != SQLITE_OK)
		return rc == SQLITE_NOMEM ? db_error(vt, db, rc) : rc;
	if ((rc = sqlite3_prepare_v2(db, copies_sql, -1, &st, NULL)) != SQLITE_OK)
		return db_error(vt, db, rc);
	sqlite3_bind_int64(st, 1, s);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct act *a = load_get(g, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
					 streams ? sqlite3_column_int64(st, 2) : 0);
		if (!a) {
			rc = SQLITE_NOMEM;
			break;
		}
		act_add(a, &a->copy, sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(vt, db, rc);
	if (!streams) {
		if ((rc = sqlite3_prepare_v2(db, declared_sql, -1, &st, NULL)) != SQLITE_OK)
			return db_error(vt, db, rc);
		sqlite3_bind_int64(st, 1, s);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (!load_get(g, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), 0)) {
				rc = SQLITE_NOMEM;
				break;
			}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return db_error(vt, db, rc);
	}
	if (g->n > 1)
		qsort(g->v, g->n, sizeof(*g->v), cmp_act);
	return SQLITE_OK;
}


/* ---- what a connection remembers: one session's figures, until the database changes ---- */

/* gpu_busy's columns after session_id. */
enum { GB_DEVICE, GB_FIRST, GB_LAST, GB_SPAN, GB_BUSY, GB_IDLE, GB_KERNELS, GB_KERNEL_NS, GB_KERNEL_BUSY, GB_COPY_BUSY,
       GB_OVERLAP, GB_NODE, GB_COUNT };
/* gpu_stream_busy's. */
enum { GS_DEVICE, GS_STREAM, GS_OPS, GS_KERNELS, GS_KERNEL_NS, GS_FIRST, GS_LAST, GS_BUSY, GS_NODE, GS_COUNT };
/* gpu_gaps'. */
enum { GG_DEVICE, GG_START, GG_END, GG_GAP, GG_NODE, GG_COUNT };

/* One device: its gpu_busy row, and its kernels' and copies' spans (merged; for its gaps). */
struct dev_busy {
	int64_t row[GB_COUNT];
	struct ivlist kern, copy;
};

/*
 * A report asks summary, devices, idle and gaps of one session: each would read its millions of kernels
 * again. So a connection keeps the last session's figures while the database file stays as it was: the
 * same sqlext_data_version (any commit to main; the analyses' TEMP tables leave it).
 */
struct busy_cache {
	int64_t key[2];		/* session, sqlext_data_version of main */
	struct ivlist win;	/* the session's trace windows as spans, read with dev; none: traced throughout */
	struct dev_busy *dev;	/* per device, by id; NULL until asked (sqlite3_malloc64'd) */
	size_t ndev;
	int64_t *str;		/* gpu_stream_busy's rows, GS_COUNT values each; NULL until asked */
	size_t nstr;
};

/* What each of the three modules gets: its table, and its connection's cache (shared, freed by the last). */
struct busy_conn;
struct bt_aux {
	const struct bt_def *def;
	struct busy_conn *conn;
};
struct busy_conn {
	struct busy_cache cache;
	struct bt_aux aux[3];
	int refs;		/* modules that still hold it */
};

static void cache_drop(struct busy_cache *k)
{
	size_t i;
	for (i = 0; i < k->ndev; i++) {
		ivlist_release(&k->dev[i].kern);
		ivlist_release(&k->dev[i].copy);
	}
	ivlist_release(&k->win);
	sqlite3_free(k->dev);
	sqlite3_free(k->str);
	memset(k, 0, sizeof(*k));
}

/* The cache for session s as the database is now: kept, or emptied when anything changed. */
static void cache_check(struct busy_cache *k, sqlite3 *db, int64_t s)
{
	int64_t key[2];
	key[0] = s;
	key[1] = sqlext_data_version(db, "main");
	if (memcmp(key, k->key, sizeof(key)) || key[1] < 0) {
		cache_drop(k);
		memcpy(k->key, key, sizeof(key));
	}
}

/*
 * The length of the union of a's kernels, copies and memsets: |A u B| = |A| + |B| - |A n B| (two lists
 * merged apart sort faster than one: kernels come nearly in order, copies after them). Merges the lists.
 */
static int64_t busy_of(struct act *a)
{
	a->kern_busy = spans_merge(&a->kern);
	a->copy_busy = spans_merge(&a->copy);
	a->overlap = spans_intersect(&a->kern, &a->copy);
	return a->kern_busy + a->copy_busy - a->overlap;
}

/*
 * each(arg, piece start, piece end) for every non-empty piece of [start, end) that a span of win covers,
 * in order; the sum of their lengths.
 */
static int64_t traced_pieces(const struct ivlist *win, int64_t start, int64_t end,
			     void (*each)(void *arg, int64_t start, int64_t end), void *arg)
{
	size_t lo = 0, hi = win->n;
	int64_t sum = 0;
	while (lo < hi) {	/* the first window that ends after start */
		size_t mid = lo + (hi - lo) / 2;
		if (win->v[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < win->n && win->v[lo].start < end; lo++) {
		int64_t a = win->v[lo].start > start ? win->v[lo].start : start;
		int64_t b = win->v[lo].end < end ? win->v[lo].end : end;
		if (a < b) {
			sum += b - a;
			if (each)
				each(arg, a, b);
		}
	}
	return sum;
}

/* The traced idle time of a device as spans_union hands its busy spans over: its holes' traced pieces. */
struct traced_idle {
	const struct ivlist *win;
	int any;
	int64_t end, idle;
};

static void traced_hole(void *arg, int64_t start, int64_t end)
{
	struct traced_idle *t = arg;
	if (t->any)
		t->idle += traced_pieces(t->win, t->end, start, NULL, NULL);
	t->any = 1;
	t->end = end;
}

/* One device's gpu_busy row from its activity, and its lists (merged: taken from a); win: trace windows. */
static void dev_fill(struct dev_busy *d, struct act *a, const struct ivlist *win)
{
	int64_t *r = d->row;
	memset(r, 0, GB_COUNT * sizeof(*r));
	r[GB_DEVICE] = a->device;
	r[GB_NODE] = a->node;
	r[GB_FIRST] = r[GB_LAST] = NONE;
	if (!a->active)
		return;
	r[GB_FIRST] = a->first;
	r[GB_LAST] = a->last;
	r[GB_SPAN] = a->last - a->first;
	r[GB_KERNELS] = a->kernels;
	r[GB_KERNEL_NS] = a->kernel_ns;
	r[GB_BUSY] = busy_of(a);
	r[GB_KERNEL_BUSY] = a->kern_busy;
	r[GB_COPY_BUSY] = a->copy_busy;
	r[GB_OVERLAP] = a->overlap;
	r[GB_IDLE] = r[GB_SPAN] - r[GB_BUSY];
	if (win->n) {
		struct traced_idle t = { win, 0, 0, 0 };
		struct ivlist both[2];
		both[0] = a->kern;
		both[1] = a->copy;
		spans_union(both, 2, traced_hole, &t);
		r[GB_IDLE] = t.idle;
		r[GB_SPAN] = r[GB_BUSY] + t.idle;
	}
	d->kern = a->kern;
	d->copy = a->copy;
	memset(&a->kern, 0, sizeof(a->kern));
	memset(&a->copy, 0, sizeof(a->copy));
}

/*
 * Session s's trace windows into w as spans (none when it has none, or the database has no such table:
 * one older than schema version 5, opened without gpuprof). SQLITE_OK, or an error with the message on vt.
 */
static int windows_read(sqlite3_vtab *vt, sqlite3 *db, int64_t s, struct ivlist *w)
{
	sqlite3_stmt *st;
	int rc;
	ivlist_release(w);
	memset(w, 0, sizeof(*w));
	if (sqlite3_prepare_v2(db, "SELECT start_ns, coalesce(end_ns, start_ns) FROM trace_windows WHERE session_id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return SQLITE_OK;
	sqlite3_bind_int64(st, 1, s);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (w->n == w->alloc)
			ivlist_grow(w);
		w->v[w->n].start = sqlite3_column_int64(st, 0);
		w->v[w->n].end = sqlite3_column_int64(st, 1);
		w->n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(vt, db, rc);
	spans_merge(w);
	return SQLITE_OK;
}

/*
 * Session s's per-device figures in the cache, read now unless remembered. SQLITE_OK, or an error code
 * with the message on vt.
 */
static int cache_devices(struct busy_cache *k, sqlite3_vtab *vt, sqlite3 *db, int64_t s)
{
	struct load g;
	size_t i;
	int rc;
	cache_check(k, db, s);
	if (k->dev)
		return SQLITE_OK;
	if ((rc = windows_read(vt, db, s, &k->win)) != SQLITE_OK)
		return rc;
	if ((rc = load_read(vt, db, s, 0, &g)) == SQLITE_OK) {
		if (!(k->dev = sqlite3_malloc64((g.n ? g.n : 1) * sizeof(*k->dev))))
			rc = db_error(vt, db, SQLITE_NOMEM);
		else
			memset(k->dev, 0, (g.n ? g.n : 1) * sizeof(*k->dev));
	}
	for (i = 0; rc == SQLITE_OK && i < g.n; i++, k->ndev++)
		dev_fill(&k->dev[i], &g.v[i], &k->win);
	load_free(&g);
	if (rc != SQLITE_OK)
		cache_drop(k);
	return rc;
}

/* Session s's per-stream rows in the cache, read now unless remembered; as cache_devices. */
static int cache_streams(struct busy_cache *k, sqlite3_vtab *vt, sqlite3 *db, int64_t s)
{
	struct load g;
	size_t i;
	int rc;
	cache_check(k, db, s);
	if (k->str)
		return SQLITE_OK;
	if ((rc = load_read(vt, db, s, 1, &g)) == SQLITE_OK &&
	    !(k->str = sqlite3_malloc64((g.n ? g.n : 1) * GS_COUNT * sizeof(int64_t))))
		rc = db_error(vt, db, SQLITE_NOMEM);
	for (i = 0; rc == SQLITE_OK && i < g.n; i++, k->nstr++) {
		int64_t *r = &k->str[GS_COUNT * i];
		struct act *a = &g.v[i];
		r[GS_DEVICE] = a->device;
		r[GS_NODE] = a->node;
		r[GS_STREAM] = a->stream;
		r[GS_OPS] = a->ops;
		r[GS_KERNELS] = a->kernels;
		r[GS_KERNEL_NS] = a->kernel_ns;
		r[GS_FIRST] = a->first;
		r[GS_LAST] = a->last;
		r[GS_BUSY] = busy_of(a);
	}
	load_free(&g);
	if (rc != SQLITE_OK)
		cache_drop(k);
	return rc;
}

/* ---- the tables: one session's rows as values ---- */

struct bt_cursor;

/* A table: its schema (session_id first), its columns after session_id, and what fills them. */
struct bt_def {
	const char *schema;
	int ncols;
	int (*fill)(struct bt_cursor *c, int64_t s);
	int order[3];		/* the columns its rows come in order of (after session_id), -1 after the last */
	int ranked;		/* gpu_gaps: also longest first (ORDER BY gap_ns DESC, start_ns, device_id) */
};

struct bt_cursor {
	sqlite3_vtab_cursor base;
	sqlite3 *db;
	const struct bt_def *def;
	struct busy_cache *cache;	/* the connection's */
	int64_t *sessions;	/* sqlite3_malloc64'd */
	int nsessions, at;
	int64_t *rows;		/* the session's rows, def->ncols values each (NONE for NULL); sqlite3_realloc64'd */
	size_t nrows, arows, i;
	int ranked;		/* gpu_gaps: rows longest first */
	int64_t limit;		/* and only the first limit of them; -1 all */
	int eof;
};

/* A new row at the end of c->rows; NULL when out of memory. */
static int64_t *bt_row(struct bt_cursor *c)
{
	size_t w = (size_t)c->def->ncols;
	if (c->nrows == c->arows) {
		size_t alloc = c->arows ? 2 * c->arows : 16;
		int64_t *v = sqlite3_realloc64(c->rows, alloc * w * sizeof(int64_t));
		if (!v)
			return NULL;
		c->rows = v;
		c->arows = alloc;
	}
	return &c->rows[w * c->nrows++];
}

/* n rows of w values into c->rows. */
static int bt_rows(struct bt_cursor *c, const int64_t *v, size_t n, size_t w)
{
	size_t i;
	for (i = 0; i < n; i++) {
		int64_t *r = bt_row(c);
		if (!r)
			return db_error(c->base.pVtab, c->db, SQLITE_NOMEM);
		memcpy(r, &v[w * i], w * sizeof(*r));
	}
	return SQLITE_OK;
}

static int busy_fill(struct bt_cursor *c, int64_t s)
{
	size_t i;
	int rc = cache_devices(c->cache, c->base.pVtab, c->db, s);
	for (i = 0; rc == SQLITE_OK && i < c->cache->ndev; i++)
		rc = bt_rows(c, c->cache->dev[i].row, 1, GB_COUNT);
	return rc;
}

static int stream_fill(struct bt_cursor *c, int64_t s)
{
	int rc = cache_streams(c->cache, c->base.pVtab, c->db, s);
	return rc == SQLITE_OK ? bt_rows(c, c->cache->str, c->cache->nstr, GS_COUNT) : rc;
}

/* Whether gap a ranks before gap b: longer, then earlier, then of a lower device, then node. */
static int gap_before(const int64_t *a, const int64_t *b)
{
	if (a[GG_GAP] != b[GG_GAP])
		return a[GG_GAP] > b[GG_GAP];
	if (a[GG_START] != b[GG_START])
		return a[GG_START] < b[GG_START];
	if (a[GG_DEVICE] != b[GG_DEVICE])
		return a[GG_DEVICE] < b[GG_DEVICE];
	return a[GG_NODE] < b[GG_NODE];
}

static int cmp_gap(const void *a, const void *b)
{
	return gap_before(a, b) ? -1 : gap_before(b, a);
}

static void gap_swap(int64_t *a, int64_t *b)
{
	int64_t t[GG_COUNT];
	memcpy(t, a, sizeof(t));
	memcpy(a, b, sizeof(t));
	memcpy(b, t, sizeof(t));
}

/*
 * Keep the c->limit best-ranked gaps as they come: c->rows is a heap whose root ranks last (it goes
 * first when a better gap comes).
 */
static int gap_keep(struct bt_cursor *c, const int64_t *gap)
{
	int64_t *h;
	size_t i, n = c->nrows;
	if (n == (size_t)c->limit) {
		if (!n || !gap_before(gap, c->rows))
			return SQLITE_OK;
		memcpy(c->rows, gap, GG_COUNT * sizeof(*gap));
		for (i = 0;;) {		/* sift down */
			size_t k = 2 * i + 1, worst = i;
			if (k < n && gap_before(&c->rows[GG_COUNT * worst], &c->rows[GG_COUNT * k]))
				worst = k;
			if (k + 1 < n && gap_before(&c->rows[GG_COUNT * worst], &c->rows[GG_COUNT * (k + 1)]))
				worst = k + 1;
			if (worst == i)
				return SQLITE_OK;
			gap_swap(&c->rows[GG_COUNT * i], &c->rows[GG_COUNT * worst]);
			i = worst;
		}
	}
	if (!(h = bt_row(c)))
		return SQLITE_NOMEM;
	memcpy(h, gap, GG_COUNT * sizeof(*gap));
	for (i = n; i > 0 && gap_before(&c->rows[GG_COUNT * ((i - 1) / 2)], &c->rows[GG_COUNT * i]); i = (i - 1) / 2)
		gap_swap(&c->rows[GG_COUNT * ((i - 1) / 2)], &c->rows[GG_COUNT * i]);	/* sift up */
	return SQLITE_OK;
}

/* A device's gaps as spans_union hands the spans of its busy time over: the holes between them. */
struct holes {
	struct bt_cursor *c;
	const struct ivlist *win;	/* trace windows: only their pieces of a hole are gaps */
	int64_t device, node;
	int any;		/* a span was seen: end is the last one's end */
	int64_t end;
	int rc;
};

static void gap_add(void *arg, int64_t start, int64_t end)
{
	struct holes *h = arg;
	int64_t gap[GG_COUNT] = { h->device, start, end, end - start, h->node };
	int64_t *r;
	if (h->rc != SQLITE_OK)
		return;
	if (h->c->limit >= 0)
		h->rc = gap_keep(h->c, gap);
	else if (!(r = bt_row(h->c)))
		h->rc = SQLITE_NOMEM;
	else
		memcpy(r, gap, sizeof(gap));
}

static void hole_each(void *arg, int64_t start, int64_t end)
{
	struct holes *h = arg;
	if (h->any && h->win->n)
		traced_pieces(h->win, h->end, start, gap_add, h);
	else if (h->any)
		gap_add(h, h->end, start);
	h->any = 1;
	h->end = end;
}

static int gaps_fill(struct bt_cursor *c, int64_t s)
{
	size_t i;
	int rc = cache_devices(c->cache, c->base.pVtab, c->db, s);
	for (i = 0; rc == SQLITE_OK && i < c->cache->ndev; i++) {
		const struct dev_busy *d = &c->cache->dev[i];
		struct holes h = { c, &c->cache->win, d->row[GB_DEVICE], d->row[GB_NODE], 0, 0, SQLITE_OK };
		struct ivlist both[2];
		both[0] = d->kern;
		both[1] = d->copy;
		spans_union(both, 2, hole_each, &h);
		if ((rc = h.rc) != SQLITE_OK)
			return db_error(c->base.pVtab, c->db, rc);
	}
	if (rc == SQLITE_OK && c->ranked && c->nrows > 1)
		qsort(c->rows, c->nrows, GG_COUNT * sizeof(int64_t), cmp_gap);
	return rc;
}

static const struct bt_def busy_def = {
	"CREATE TABLE x(session_id INTEGER, device_id INTEGER, first_ns INTEGER, last_ns INTEGER, span_ns INTEGER, "
	"busy_ns INTEGER, idle_ns INTEGER, kernels INTEGER, kernel_ns INTEGER, kernel_busy_ns INTEGER, "
	"copy_busy_ns INTEGER, overlap_ns INTEGER, node INTEGER)",
	GB_COUNT, busy_fill, { GB_NODE, GB_DEVICE, -1 }, 0
};

static const struct bt_def stream_def = {
	"CREATE TABLE x(session_id INTEGER, device_id INTEGER, stream_id INTEGER, ops INTEGER, kernels INTEGER, "
	"kernel_ns INTEGER, first_ns INTEGER, last_ns INTEGER, busy_ns INTEGER, node INTEGER)",
	GS_COUNT, stream_fill, { GS_NODE, GS_DEVICE, GS_STREAM }, 0
};

static const struct bt_def gaps_def = {
	"CREATE TABLE x(session_id INTEGER, device_id INTEGER, start_ns INTEGER, end_ns INTEGER, gap_ns INTEGER, "
	"node INTEGER)",
	GG_COUNT, gaps_fill, { GG_NODE, GG_DEVICE, GG_START }, 1
};

/* ---- the module ---- */

/* idxNum: an equality on session_id (argv[0]); rows longest first; a LIMIT on them (the next argument). */
enum { BT_EQ = 1, BT_RANKED = 2, BT_LIMIT = 4 };

static int bt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc;
	(void)argv;
	(void)err;
	return sqlext_connect(db, ((const struct bt_aux *)aux)->def->schema, aux, out);
}

static int bt_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/* Whether ORDER BY is the first terms of cols (table columns; desc[k] for descending), -1 ended. */
static int order_is(const sqlite3_index_info *ix, const int *cols, const int *desc, int ncols)
{
	int k;
	if (ix->nOrderBy > ncols)
		return 0;
	for (k = 0; k < ix->nOrderBy; k++)
		if (cols[k] < 0 || ix->aOrderBy[k].iColumn != cols[k] || ix->aOrderBy[k].desc != desc[k])
			return 0;
	return 1;
}

/*
 * An equality on session_id is used (and checked by SQLite no more). Rows come by session, then in the
 * table's order (ORDER BY those is left out); gpu_gaps of one session come longest first when ORDER BY
 * asks so, and then only as many as a LIMIT without OFFSET wants are kept.
 */
static int bt_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	const struct bt_def *def = ((const struct bt_aux *)((struct sqlext_vtab *)v)->def)->def;
	static const int rank_cols[] = { 1 + GG_GAP, 1 + GG_START, 1 + GG_DEVICE, 1 + GG_NODE }, rank_desc[4] = { 1 };
	static const int zero[4];
	int cols[4], i, n = 0, eq = -1, limit = -1, offset = 0;
	for (i = 0; i < ix->nConstraint; i++) {
		if (!ix->aConstraint[i].usable)
			continue;
		if (ix->aConstraint[i].iColumn == 0 && ix->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ)
			eq = i;
		else if (ix->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_LIMIT)
			limit = i;
		else if (ix->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_OFFSET)
			offset = 1;
	}
	ix->idxNum = 0;
	ix->estimatedCost = 1e6;
	ix->estimatedRows = 1000;
	if (eq >= 0) {
		ix->aConstraintUsage[eq].argvIndex = 1;
		ix->aConstraintUsage[eq].omit = 1;
		ix->idxNum |= BT_EQ;
		ix->estimatedCost = 1e4;
		ix->estimatedRows = 10;
	}
	/* The order rows come in: session_id (left out with the equality), then the table's columns. */
	if (eq < 0)
		cols[n++] = 0;
	for (i = 0; i < 3 && def->order[i] >= 0; i++)
		cols[n++] = 1 + def->order[i];
	if (order_is(ix, cols, zero, n))
		ix->orderByConsumed = 1;
	else if (def->ranked && eq >= 0 && order_is(ix, rank_cols, rank_desc, 4)) {
		ix->orderByConsumed = 1;
		ix->idxNum |= BT_RANKED;
		if (limit >= 0 && !offset) {
			ix->aConstraintUsage[limit].argvIndex = 2;
			ix->idxNum |= BT_LIMIT;
		}
	}
	return SQLITE_OK;
}

static int bt_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct bt_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->db = ((struct sqlext_vtab *)v)->db;
	c->def = ((const struct bt_aux *)((struct sqlext_vtab *)v)->def)->def;
	c->cache = &((const struct bt_aux *)((struct sqlext_vtab *)v)->def)->conn->cache;
	*out = &c->base;
	return SQLITE_OK;
}

static void bt_reset(struct bt_cursor *c)
{
	sqlite3_free(c->sessions);
	c->sessions = NULL;
	c->nsessions = c->at = 0;
	c->nrows = c->i = 0;
}

static int bt_close(sqlite3_vtab_cursor *cur)
{
	struct bt_cursor *c = (struct bt_cursor *)cur;
	bt_reset(c);
	sqlite3_free(c->rows);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Go to the next row (of this session, else of the next sessions that have rows). */
static int bt_advance(struct bt_cursor *c, int started)
{
	int rc;
	while (c->i >= c->nrows) {
		if (started)
			c->at++;
		started = 1;
		if (c->at >= c->nsessions) {
			c->eof = 1;
			return SQLITE_OK;
		}
		c->nrows = c->i = 0;
		if ((rc = c->def->fill(c, c->sessions[c->at])) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int bt_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct bt_cursor *c = (struct bt_cursor *)cur;
	int rc;
	(void)idxstr;
	(void)argc;
	bt_reset(c);
	c->eof = 0;
	c->ranked = (idx & BT_RANKED) != 0;
	c->limit = -1;
	if (idx & BT_LIMIT && sqlite3_value_numeric_type(argv[1]) == SQLITE_INTEGER && sqlite3_value_int64(argv[1]) >= 0)
		c->limit = sqlite3_value_int64(argv[1]);
	rc = sqlext_sessions(cur, c->db, idx & BT_EQ ? argv[0] : NULL, &c->sessions, &c->nsessions);
	if (rc != SQLITE_OK || !c->nsessions) {
		c->eof = 1;
		return rc;
	}
	return bt_advance(c, 0);
}

static int bt_next(sqlite3_vtab_cursor *cur)
{
	struct bt_cursor *c = (struct bt_cursor *)cur;
	c->i++;
	return bt_advance(c, 1);
}

static int bt_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct bt_cursor *)cur)->eof;
}

static int bt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct bt_cursor *c = (struct bt_cursor *)cur;
	int64_t x = k ? c->rows[c->i * (size_t)c->def->ncols + (size_t)(k - 1)] : c->sessions[c->at];
	if (x == NONE)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, x);
	return SQLITE_OK;
}

static int bt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct bt_cursor *c = (struct bt_cursor *)cur;
	*rowid = (sqlite3_int64)c->at << 40 | (sqlite3_int64)c->i;
	return SQLITE_OK;
}

static sqlite3_module bt_module = {
	.iVersion = 0,
	.xCreate = NULL,	/* eponymous only */
	.xConnect = bt_connect,
	.xBestIndex = bt_best_index,
	.xDisconnect = bt_disconnect,
	.xDestroy = bt_disconnect,
	.xOpen = bt_open,
	.xClose = bt_close,
	.xFilter = bt_filter,
	.xNext = bt_next,
	.xEof = bt_eof,
	.xColumn = bt_column,
	.xRowid = bt_rowid,
};

/* A module's client data is let go (its connection closes): the last one frees the connection's cache. */
static void conn_unref(void *aux)
{
	struct busy_conn *conn = ((struct bt_aux *)aux)->conn;
	if (--conn->refs)
		return;
	cache_drop(&conn->cache);
	sqlite3_free(conn);
}

int sqlext_busy_tables(sqlite3 *db)
{
	static const char *const names[] = { "gpu_busy", "gpu_stream_busy", "gpu_gaps" };
	static const struct bt_def *const defs[] = { &busy_def, &stream_def, &gaps_def };
	struct busy_conn *conn = sqlite3_malloc(sizeof(*conn));
	int i, rc = SQLITE_OK;
	if (!conn)
		return SQLITE_NOMEM;
	memset(conn, 0, sizeof(*conn));
	conn->refs = 3;
	for (i = 0; i < 3; i++) {
		conn->aux[i].def = defs[i];
		conn->aux[i].conn = conn;
	}
	/* Each module lets go of the cache once: when it fails to register too, and when never tried. */
	for (i = 0; i < 3; i++)
		if (rc != SQLITE_OK)
			conn_unref(&conn->aux[i]);
		else
			rc = sqlite3_create_module_v2(db, names[i], &bt_module, &conn->aux[i], conn_unref);
	return rc;
}
