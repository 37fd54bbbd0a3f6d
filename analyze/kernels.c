/*
 * kernels: the session's kernels as shared in-memory columns (see kernels.h).
 */
#include "kernels.h"
#include "embed.h"
#include "scan.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static struct kcols *cache;

/* Distinct values seen by one slice, each with its index: open addressing, few entries. */
struct dict {
	int64_t *v;		/* values in order of first sight */
	size_t n, alloc;
	int32_t *slot;		/* index + 1 per hash slot, 0 empty */
	size_t cap;
	int64_t last;		/* the last value looked up, and its index (rows repeat values) */
	int32_t last_ix;
};

static size_t dict_hash(int64_t v, size_t cap)
{
	return (size_t)(((uint64_t)v * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

static int32_t dict_ix(struct dict *d, int64_t v)
{
	size_t h;
	if (d->n && v == d->last)
		return d->last_ix;
	if (!d->cap || (d->n + 1) * 2 > d->cap) {
		size_t i;
		free(d->slot);
		d->cap = d->cap ? 2 * d->cap : 64;
		d->slot = xcalloc(d->cap, sizeof(*d->slot));
		for (i = 0; i < d->n; i++) {
			for (h = dict_hash(d->v[i], d->cap); d->slot[h]; h = (h + 1) & (d->cap - 1))
				;
			d->slot[h] = (int32_t)i + 1;
		}
	}
	for (h = dict_hash(v, d->cap); d->slot[h] && d->v[d->slot[h] - 1] != v; h = (h + 1) & (d->cap - 1))
		;
	if (!d->slot[h]) {
		ALLOC_GROW(d->v, d->n + 1, d->alloc);
		d->v[d->n++] = v;
		d->slot[h] = (int32_t)d->n;
	}
	d->last = v;
	d->last_ix = d->slot[h] - 1;
	return d->last_ix;
}

static void dict_release(struct dict *d)
{
	free(d->v);
	free(d->slot);
	memset(d, 0, sizeof(*d));
}

/* Each column: its bit, its array in struct kcols, and its expression over the kernels table. */
#define COLUMNS(X) X(PID, pid, "pid") X(DEV, dev, "device_id") X(STREAM, stream, "coalesce(stream_id, -1)") \
	X(NAME, name, "name_id") X(CORR, corr, "correlation_id") X(START, start, "start_ns") \
	X(DUR, dur, "end_ns - start_ns")

enum {
#define ENUM(bit, c, expr) COL_##bit,
	COLUMNS(ENUM)
#undef ENUM
	NCOL
};

/* One slice's state: where its rows go, its dictionaries. */
struct kslice {
	struct kcols *k;
	int col[NCOL];		/* result column of each COL_*, -1 when not loaded */
	size_t at, first;	/* next row index; the slice's first */
	int64_t maxname;
	int bad;		/* a name id out of range */
	struct dict pid, dev, stream;
};

static int kernel_row(sqlite3_stmt *st, void *arg)
{
	struct kslice *s = arg;
	struct kcols *k = s->k;
	const int *c = s->col;
	size_t i = s->at++;
	if (c[COL_NAME] >= 0) {
		int64_t name = sqlite3_column_int64(st, c[COL_NAME]);
		if (name < 0 || name >= INT32_MAX) {
			s->bad = 1;
			return -1;
		}
		if (name > s->maxname)
			s->maxname = name;
		k->name[i] = (int32_t)name;
	}
	if (c[COL_PID] >= 0)
		k->pid[i] = dict_ix(&s->pid, sqlite3_column_int64(st, c[COL_PID]));
	if (c[COL_DEV] >= 0)
		k->dev[i] = dict_ix(&s->dev, sqlite3_column_int64(st, c[COL_DEV]));
	if (c[COL_STREAM] >= 0)
		k->stream[i] = dict_ix(&s->stream, sqlite3_column_int64(st, c[COL_STREAM]));
	if (c[COL_CORR] >= 0)
		k->corr[i] = sqlite3_column_int64(st, c[COL_CORR]);
	if (c[COL_START] >= 0)
		k->start[i] = sqlite3_column_int64(st, c[COL_START]);
	if (c[COL_DUR] >= 0)
		k->dur[i] = sqlite3_column_int64(st, c[COL_DUR]);
	return 0;
}

static void kcols_free(struct kcols *k)
{
#define UNMAP(bit, c, expr) xunmap(k->c, k->cap * sizeof(*k->c));
	COLUMNS(UNMAP)
#undef UNMAP
	free(k->pids);
	free(k->devices);
	free(k->streams);
	free(k);
}

/*
 * Merge slice dictionaries into one per column (slice 0's indexes stay as they are) and rewrite the
 * indexes of later slices; the global values go to *vals.
 */
static void dict_merge(struct kslice *s, int ns, size_t dict_off, int32_t *col, int64_t **vals, size_t *nvals)
{
	struct dict all = { 0 };
	int j;
	size_t i;
	for (j = 0; j < ns; j++) {
		struct dict *d = (struct dict *)((char *)&s[j] + dict_off);
		int32_t *remap = xmalloc((d->n ? d->n : 1) * sizeof(*remap));
		int identity = 1;
		for (i = 0; i < d->n; i++) {
			remap[i] = dict_ix(&all, d->v[i]);
			identity &= remap[i] == (int32_t)i;
		}
		if (!identity)
			for (i = s[j].first; i < s[j].at; i++)
				col[i] = remap[col[i]];
		free(remap);
	}
	*vals = all.v;
	*nvals = all.n;
	free(all.slot);
}

/*
 * Load the columns `want` into k (new when k->cols is 0). Every load of a session sees the same rows in
 * the same order (a session never changes once ingested), so columns loaded later line up. 0, or -1.
 */
static int load(struct kcols *k, unsigned want)
{
	struct analysis_opts o = { 0 };
	struct scan_plan p;
	struct kslice s[SCAN_MAX_SLICES];
	struct buf sql;
	size_t n = 0, cap;
	int64_t maxname = -1;
	int j, bad = 0, rc, col[NCOL], ncol = 0;

	o.session = k->session;
	if (scan_plan(k->db, "kernels", &p))
		return -1;
	cap = p.n ? (size_t)(p.hi[p.n - 1] - p.lo[0] + 1) : 0;
	if (k->cols && cap != k->cap)
		return error("kernels: the table changed while it was being read");
	k->cap = cap;
	/* The statement asks for the wanted columns only (see kernels.sql). */
	buf_init(&sql);
	buf_addstr(&sql, "SELECT ");
#define ASK(bit, c, expr) \
	col[COL_##bit] = -1; \
	if (want & KC_##bit) { \
		k->c = xmap(cap * sizeof(*k->c)); \
		buf_addf(&sql, "%s%s", ncol ? ", " : "", expr); \
		col[COL_##bit] = ncol++; \
	}
	COLUMNS(ASK)
#undef ASK
	buf_addstr(&sql, " FROM kernels WHERE rowid BETWEEN :lo AND :hi AND session_id = :session");
	memset(s, 0, sizeof(s));
	for (j = 0; j < p.n; j++) {
		s[j].k = k;
		memcpy(s[j].col, col, sizeof(col));
		s[j].first = s[j].at = (size_t)(p.lo[j] - p.lo[0]);
		s[j].maxname = -1;
	}
	rc = scan_run(k->db, &p, sql.s, &o, kernel_row, s, sizeof(s[0]));
	buf_release(&sql);
	for (j = 0; j < p.n; j++)
		bad |= s[j].bad;
	if (bad)
		rc = error("kernels: a name_id is out of range (0..%d)", INT32_MAX - 1);
	if (!rc) {
		if (want & KC_PID)
			dict_merge(s, p.n, offsetof(struct kslice, pid), k->pid, &k->pids, &k->npids);
		if (want & KC_DEV)
			dict_merge(s, p.n, offsetof(struct kslice, dev), k->dev, &k->devices, &k->ndevices);
		if (want & KC_STREAM)
			dict_merge(s, p.n, offsetof(struct kslice, stream), k->stream, &k->streams, &k->nstreams);
		/* Close the gaps between slices (rowids of other sessions, or deleted rows). */
		for (j = 0; j < p.n; j++) {
			size_t m = s[j].at - s[j].first;
			if (s[j].first != n) {
#define MOVE(bit, c, expr) \
	if (want & KC_##bit) \
		memmove(k->c + n, k->c + s[j].first, m * sizeof(*k->c));
				COLUMNS(MOVE)
#undef MOVE
			}
			n += m;
			if (s[j].maxname > maxname)
				maxname = s[j].maxname;
		}
		if (k->cols && n != k->n)
			rc = error("kernels: the table changed while it was being read");
		k->n = n;
		if (want & KC_NAME)
			k->nnames = (size_t)(maxname + 1);
	}
	for (j = 0; j < p.n; j++) {
		dict_release(&s[j].pid);
		dict_release(&s[j].dev);
		dict_release(&s[j].stream);
	}
	k->cols |= want;
	return rc;
}

const struct kcols *kernels_get(sqlite3 *db, int64_t session, unsigned cols)
{
	struct kcols *k;
	for (k = cache; k; k = k->next)
		if (k->db == db && k->session == session)
			break;
	if (!k) {
		k = xcalloc(1, sizeof(*k));
		k->db = db;
		k->session = session;
		k->next = cache;
		cache = k;
	}
	if ((k->cols & cols) != cols && load(k, cols & ~k->cols)) {
		kernels_drop(db);
		return NULL;
	}
	return k;
}

void kernels_drop(sqlite3 *db)
{
	struct kcols **p = &cache;
	while (*p) {
		struct kcols *k = *p;
		if (k->db == db) {
			*p = k->next;
			kcols_free(k);
		} else {
			p = &k->next;
		}
	}
}

int32_t *kernels_name_keys(sqlite3 *db, const struct analysis_opts *o, const struct kcols *k,
			   const struct fold *f)
{
	size_t n = k->nnames ? k->nnames : 1, i;
	int32_t *keys = xmalloc(n * sizeof(*keys));
	for (i = 0; i < k->nnames; i++)
		keys[i] = f ? (int32_t)fold_key((void *)f, (int64_t)i) : (int32_t)i;
	if (o->match || o->exclude) {
		struct script sc = { db, embed_get("analyze/kernels.sql"), o };
		sqlite3_stmt *st = script_next(&sc);
		unsigned char *pass = xcalloc(n, 1);
		int rc;
		if (!st) {
			free(pass);
			free(keys);
			return NULL;
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(st, 0);
			if (id >= 0 && (size_t)id < k->nnames)
				pass[id] = 1;
		}
		if (rc != SQLITE_DONE) {
			step_error(st);
			free(pass);
			free(keys);
			return NULL;
		}
		sqlite3_finalize(st);
		for (i = 0; i < k->nnames; i++)
			if (!pass[i])
				keys[i] = -1;
		free(pass);
	}
	return keys;
}

void kernels_stats(const struct kcols *k, const int32_t *keys, struct dstats **out, size_t *n, int64_t *all)
{
	int32_t maxkey = -1;
	size_t i, ng = 0, *at, nk;
	int64_t *vals;
	struct dstats *s;

	for (i = 0; i < k->nnames; i++)
		if (keys[i] > maxkey)
			maxkey = keys[i];
	nk = (size_t)maxkey + 1;
	/* A counting sort: durations grouped by key in one array, then each group's statistics. */
	at = xcalloc(nk + 1, sizeof(*at));
	for (i = 0; i < k->n; i++) {
		int32_t key = keys[k->name[i]];
		if (key >= 0)
			at[key + 1]++;
	}
	for (i = 0; i < nk; i++)
		at[i + 1] += at[i];
	vals = xmap(at[nk] * sizeof(*vals));
	for (i = 0; i < k->n; i++) {
		int32_t key = keys[k->name[i]];
		if (key >= 0)
			vals[at[key]++] = k->dur[i];
	}
	/* at[key] is now the end of key's run, the start of key + 1's. */
	s = xcalloc(nk ? nk : 1, sizeof(*s));
	*all = 0;
	for (i = 0; i < nk; i++) {
		size_t from = i ? at[i - 1] : 0;
		if (at[i] == from)
			continue;
		stats_of(vals + from, at[i] - from, &s[ng]);
		s[ng].key = (int64_t)i;
		*all += s[ng].total;
		ng++;
	}
	xunmap(vals, at[nk] * sizeof(*vals));
	free(at);
	stats_sort(s, ng);
	*out = s;
	*n = ng;
}

int64_t kernels_total(const struct kcols *k)
{
	int64_t total = 0;
	size_t i;
	for (i = 0; i < k->n; i++)
		total += k->dur[i];
	return total;
}

void kernels_device_spans(const struct kcols *k, struct ivlist *spans)
{
	size_t *count = xcalloc(k->ndevices ? k->ndevices : 1, sizeof(*count)), i;
	for (i = 0; i < k->n; i++)
		count[k->dev[i]]++;
	for (i = 0; i < k->ndevices; i++)
		ivlist_reserve(&spans[i], count[i]);
	for (i = 0; i < k->n; i++) {
		struct ivlist *l = &spans[k->dev[i]];
		l->v[l->n].start = k->start[i];
		l->v[l->n].end = k->start[i] + k->dur[i];
		l->n++;
	}
	free(count);
}
