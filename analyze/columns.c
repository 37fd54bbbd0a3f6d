/*
 * columns: big session tables as shared in-memory columns (see columns.h).
 */
#include "columns.h"
#include "colstore.h"
#include "db.h"
#include "embed.h"
#include "scan.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The cached tables, newest first. */
struct colset {
	COLUMNS_HEAD
};

static struct colset *cache;

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

enum col_kind {
	CV_I64,		/* int64_t as read */
	CV_NAME,	/* a strings.id, int32_t (nnames follows the largest) */
	CV_DICT		/* int32_t index into a table of distinct values */
};

/* One column of a cached table: its bit, where it goes. */
struct col_def {
	unsigned bit;
	enum col_kind kind;
	size_t arr;		/* offsetof the array pointer */
	size_t vals, nvals;	/* CV_DICT: offsetof the distinct values and their count */
};

#define MAX_COLS 8

struct col_source {
	const char *table;
	enum colstore_table chunks;	/* its column chunks: cols[] is in their column order */
	size_t size;		/* of the struct (kcols, ccols) */
	int ncols;
	struct col_def cols[MAX_COLS];
};

#define I64(S, bit, f) { bit, CV_I64, offsetof(struct S, f), 0, 0 }
#define NAME(S, bit, f) { bit, CV_NAME, offsetof(struct S, f), 0, 0 }
#define DICT(S, bit, f, vals, nvals) \
	{ bit, CV_DICT, offsetof(struct S, f), offsetof(struct S, vals), offsetof(struct S, nvals) }

/* The first chunk columns of each table (colstore.h), in their order; colstore_sql reads them from rows. */
static const struct col_source kernel_source = { "kernels", CS_KERNELS, sizeof(struct kcols), 7, {
	DICT(kcols, KC_PID, pid, pids, npids),
	DICT(kcols, KC_DEV, dev, devices, ndevices),
	DICT(kcols, KC_STREAM, stream, streams, nstreams),
	NAME(kcols, KC_NAME, name),
	I64(kcols, KC_CORR, corr),
	I64(kcols, KC_START, start),
	I64(kcols, KC_DUR, dur),
} };

static const struct col_source call_source = { "api_calls", CS_CALLS, sizeof(struct ccols), 6, {
	DICT(ccols, CC_PID, pid, pids, npids),
	DICT(ccols, CC_THREAD, thread, threads, nthreads),
	NAME(ccols, CC_NAME, name),
	I64(ccols, CC_CORR, corr),
	I64(ccols, CC_START, start),
	I64(ccols, CC_DUR, dur),
} };

/* The array of column d in set c. */
static void **col_arr(struct colset *c, const struct col_def *d)
{
	return (void **)((char *)c + d->arr);
}

static size_t col_size(const struct col_def *d)
{
	return d->kind == CV_I64 ? sizeof(int64_t) : sizeof(int32_t);
}

/* One slice's state: where its rows go, the columns it reads, their dictionaries. */
struct col_slice {
	struct colset *c;
	const struct col_def *want[MAX_COLS];	/* result column i is want[i] */
	int nwant;
	size_t at, first;	/* next row index; the slice's first */
	int64_t maxname;
	int bad;		/* a name id out of range */
	struct dict dict[MAX_COLS];
	int64_t *tmp;		/* chunk loads: one decoded column */
};

/* Store value v of result column k at row i. 0, or -1 when a name id is out of range. */
static inline int col_put(struct col_slice *s, int k, size_t i, int64_t v)
{
	const struct col_def *d = s->want[k];
	void *arr = *col_arr(s->c, d);
	switch (d->kind) {
	case CV_I64:
		((int64_t *)arr)[i] = v;
		break;
	case CV_NAME:
		if (v < 0 || v >= INT32_MAX) {
			s->bad = 1;
			return -1;
		}
		if (v > s->maxname)
			s->maxname = v;
		((int32_t *)arr)[i] = (int32_t)v;
		break;
	case CV_DICT:
		((int32_t *)arr)[i] = dict_ix(&s->dict[k], v);
		break;
	}
	return 0;
}

static int col_row(sqlite3_stmt *st, void *arg)
{
	struct col_slice *s = arg;
	size_t i = s->at++;
	int k;
	for (k = 0; k < s->nwant; k++)
		if (col_put(s, k, i, sqlite3_column_int64(st, k)))
			return -1;
	return 0;
}

/* One row of a chunks_sql statement. */
struct chunk {
	enum colstore_table t;
	size_t rows;
	int64_t base_ns;
	const unsigned char *blob;
	size_t len;
};

/* Read the chunk st is on, expected to start at row `at` of its session: 0, or -1 when it does not. */
static int chunk_read(sqlite3_stmt *st, enum colstore_table t, size_t at, struct chunk *c)
{
	int64_t first = sqlite3_column_int64(st, 0), rows = sqlite3_column_int64(st, 1);
	if (!colstore_chunk_follows((int64_t)at, first, rows))
		return -1;
	c->t = t;
	c->rows = (size_t)rows;
	c->base_ns = sqlite3_column_int64(st, 2);
	c->blob = sqlite3_column_blob(st, 3);
	c->len = (size_t)sqlite3_column_bytes(st, 3);
	return 0;
}

/* Decode chunk column k into out[c->rows]. 0, or -1 when the blob is damaged. */
static int chunk_column(const struct chunk *c, int k, int64_t *out)
{
	const struct colstore_spec *sp = &colstore_specs[c->t];
	return colstore_decode(c->blob, c->len, sp->ncols, k, c->rows, k == sp->start_col ? c->base_ns : 0, out);
}

/* One column chunk (a chunks_sql row): its wanted columns decoded into place. */
static int chunk_row(sqlite3_stmt *st, void *arg)
{
	struct col_slice *s = arg;
	struct chunk ch;
	size_t i;
	int k;
	if (chunk_read(st, s->c->src->chunks, s->at, &ch) || s->at + ch.rows > s->c->cap) {
		s->bad = 2;
		return -1;
	}
	for (k = 0; k < s->nwant; k++) {
		const struct col_def *d = s->want[k];
		void *arr = *col_arr(s->c, d);
		/* 64-bit columns decode in place; the others through tmp. */
		int64_t *out = d->kind == CV_I64 ? (int64_t *)arr + s->at : s->tmp;
		size_t rows = ch.rows;
		if (chunk_column(&ch, (int)(d - s->c->src->cols), out)) {
			s->bad = 2;
			return -1;
		}
		if (d->kind == CV_DICT) {
			int32_t *to = (int32_t *)arr + s->at;
			for (i = 0; i < rows; i++)
				to[i] = dict_ix(&s->dict[k], out[i]);
		} else if (d->kind == CV_NAME) {
			for (i = 0; i < rows; i++)
				if (col_put(s, k, s->at + i, out[i]))
					return -1;
		}
	}
	s->at += ch.rows;
	return 0;
}

static void colset_free(struct colset *c)
{
	int k;
	for (k = 0; k < c->src->ncols; k++) {
		const struct col_def *d = &c->src->cols[k];
		xunmap(*col_arr(c, d), c->cap * col_size(d));
		if (d->kind == CV_DICT)
			free(*(int64_t **)((char *)c + d->vals));
	}
	free(c);
}

/*
 * Merge the slices' dictionaries of result column k into one (slice 0's indexes stay as they are) and
 * rewrite the indexes of later slices; the distinct values go to the set.
 */
static void dict_merge(struct col_slice *s, int ns, int k)
{
	const struct col_def *d = s[0].want[k];
	int32_t *col = *col_arr(s[0].c, d);
	struct dict all = { 0 };
	int j;
	size_t i;
	for (j = 0; j < ns; j++) {
		struct dict *dj = &s[j].dict[k];
		int32_t *remap = xmalloc((dj->n ? dj->n : 1) * sizeof(*remap));
		int identity = 1;
		for (i = 0; i < dj->n; i++) {
			remap[i] = dict_ix(&all, dj->v[i]);
			identity &= remap[i] == (int32_t)i;
		}
		if (!identity)
			for (i = s[j].first; i < s[j].at; i++)
				col[i] = remap[col[i]];
		free(remap);
	}
	*(int64_t **)((char *)s[0].c + d->vals) = all.v;
	*(size_t *)((char *)s[0].c + d->nvals) = all.n;
	free(all.slot);
}

/* 1 when db's schema version has table's chunks as colstore.h reads them, 0 when older, -1 on error. */
static int chunks_readable(sqlite3 *db, const char *table)
{
	int version = db_schema_version(db), t;
	if (version < 0)
		return -1;
	for (t = 0; t < CS_TABLES; t++)
		if (!strcmp(colstore_specs[t].table, table))
			return version >= colstore_specs[t].version;
	return 0;
}

/*
 * When the session's rows of c's table are all in column chunks (colstore.h), a plan over the chunks'
 * ids with each slice's first row in first[], the rows in *n. 1 with the plan, 0 when there are no usable
 * chunks (a database from an older gpuprof, or one changed since), -1 on error.
 */
static int chunks_plan(sqlite3 *db, int64_t session, const char *table, struct scan_plan *p,
		       size_t first[SCAN_MAX_SLICES], size_t *n)
{
	sqlite3_stmt *st;
	int64_t *id = NULL, *rows = NULL, total = 0, at = 0;
	size_t nc = 0, alloc = 0, alloc2 = 0, i;
	int ok = 0, k, rc;

	memset(p, 0, sizeof(*p));
	if ((k = chunks_readable(db, table)) <= 0)
		return k;
	if (sqlite3_prepare_v2(db, COLSTORE_COMPLETE_SQL, -1, &st, NULL) != SQLITE_OK) {
		const char *file = sqlite3_db_filename(db, "main");
		return error("%s: %s: its schema version has the column chunk tables: `gpuprof-ingest --reindex -o %s` "
			     "makes them again", file, sqlite3_errmsg(db), file);
	}
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, table, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		return step_error(st);
	ok = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (!ok)
		return 0;
	st = db_prepare(db, "SELECT id, first_row, rows FROM column_chunks WHERE tbl = ?2 AND session_id = ?1 "
			"ORDER BY id");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ALLOC_GROW(id, nc + 1, alloc);
		ALLOC_GROW(rows, nc + 1, alloc2);
		id[nc] = sqlite3_column_int64(st, 0);
		rows[nc] = sqlite3_column_int64(st, 2);
		/* In table order, one after another. */
		if (!colstore_chunk_follows(total, sqlite3_column_int64(st, 1), rows[nc]))
			ok = 0;
		total += rows[nc++];
	}
	if (rc != SQLITE_DONE) {
		free(id);
		free(rows);
		return step_error(st);
	}
	sqlite3_finalize(st);
	if (ok && nc) {
		/* Slices of whole chunks, each about as many rows. */
		p->n = scan_slices(total);
		if ((size_t)p->n > nc)
			p->n = (int)nc;
		for (k = 0, i = 0; k < p->n; k++) {
			int64_t goal = total / p->n * (k + 1);
			first[k] = (size_t)at;
			p->lo[k] = id[i];
			do
				at += rows[i++];
			while (i < nc && (k == p->n - 1 || (at < goal && nc - i > (size_t)(p->n - k - 1))));
			p->hi[k] = id[i - 1];
		}
	}
	*n = (size_t)total;
	free(id);
	free(rows);
	return ok;
}

/* What to do about chunks that fail to decode. */
#define DAMAGED "%s: column chunks are damaged: `DELETE FROM column_sets` retires them, `gpuprof-ingest " \
	"--reindex` rebuilds them"

/* Tables this big read from rows get a hint to rebuild their chunks. */
#define HINT_ROWS 1000000

/* The statement that reads table's chunks in a slice of a chunks_plan. */
static void chunks_sql(struct buf *sql, const char *table)
{
	buf_addf(sql, "SELECT first_row, rows, base_ns, data FROM column_chunks WHERE id BETWEEN :lo AND :hi AND "
		 "tbl = '%s' AND session_id = :session ORDER BY id", table);
}

/* One slice of chunks_each: the columns it decodes into, the caller's function and argument. */
struct each_slice {
	enum colstore_table t;
	uint32_t want;
	int64_t *cols[COLSTORE_MAX_COLS];
	int (*fn)(void *arg, int64_t *const *cols, size_t n);
	void *arg;
	size_t at;
	int bad;
};

static int each_row(sqlite3_stmt *st, void *arg)
{
	struct each_slice *s = arg;
	struct chunk ch;
	int k;
	if (chunk_read(st, s->t, s->at, &ch))
		return s->bad = 1, -1;
	for (k = 0; k < colstore_specs[s->t].ncols; k++)
		if (s->want >> k & 1 && chunk_column(&ch, k, s->cols[k]))
			return s->bad = 1, -1;
	s->at += ch.rows;
	return s->fn(s->arg, s->cols, ch.rows);
}

int chunks_each(sqlite3 *db, int64_t session, enum colstore_table t, uint32_t want,
		int (*fn)(void *arg, int64_t *const *cols, size_t n), void *args, size_t argsize)
{
	const struct colstore_spec *sp = &colstore_specs[t];
	struct analysis_opts o = { 0 };
	struct each_slice s[SCAN_MAX_SLICES];
	struct scan_plan p;
	size_t first[SCAN_MAX_SLICES], n;
	struct buf sql;
	int j, k, rc, bad = 0;

	if ((rc = chunks_plan(db, session, sp->table, &p, first, &n)) <= 0)
		return rc;
	o.session = session;
	memset(s, 0, sizeof(s));
	for (j = 0; j < p.n; j++) {
		s[j].t = t;
		s[j].want = want;
		s[j].fn = fn;
		s[j].arg = (char *)args + (size_t)j * argsize;
		s[j].at = first[j];
		for (k = 0; k < sp->ncols; k++)
			if (want >> k & 1)
				s[j].cols[k] = xmalloc(COLSTORE_ROWS * sizeof(int64_t));
	}
	buf_init(&sql);
	chunks_sql(&sql, sp->table);
	rc = scan_run(db, &p, sql.s, &o, each_row, s, sizeof(s[0]));
	buf_release(&sql);
	for (j = 0; j < p.n; j++) {
		bad |= s[j].bad;
		for (k = 0; k < sp->ncols; k++)
			free(s[j].cols[k]);
	}
	if (bad)
		return error(DAMAGED, sp->table);
	return rc ? -1 : 1;
}

/*
 * Load the columns `want` into c (new when c->cols is 0): from the column chunks when the session has
 * them, else from the table's rows. Every load of a session sees the same rows in the same order (a
 * session never changes once ingested), so columns loaded later line up. 0, or -1.
 */
static int load(struct colset *c, unsigned want)
{
	struct analysis_opts o = { 0 };
	struct scan_plan p;
	struct col_slice s[SCAN_MAX_SLICES];
	const struct col_def *cols[MAX_COLS];
	size_t first[SCAN_MAX_SLICES];
	struct buf sql;
	size_t n = 0, cap = 0;
	int64_t maxname = -1;
	int j, k, bad = 0, rc, ncol = 0, chunked;

	o.session = c->session;
	if ((chunked = chunks_plan(c->db, c->session, c->src->table, &p, first, &cap)) < 0)
		return -1;
	if (!chunked) {
		static int hinted;
		if (scan_plan(c->db, c->src->table, &p))
			return -1;
		cap = p.n ? (size_t)(p.hi[p.n - 1] - p.lo[0] + 1) : 0;
		if (cap >= HINT_ROWS && !hinted++)
			info("hint: session %lld has no column chunks of its %s: `gpuprof-ingest --reindex -o %s` "
			     "makes loading them several times faster", (long long)c->session, c->src->table,
			     sqlite3_db_filename(c->db, "main"));
		for (j = 0; j < p.n; j++)
			first[j] = (size_t)(p.lo[j] - p.lo[0]);
	}
	if (c->cols && (cap != c->cap || chunked != c->chunked))
		return error("%s: the table changed while it was being read", c->src->table);
	c->cap = cap;
	c->chunked = chunked;
	buf_init(&sql);
	for (k = 0; k < c->src->ncols; k++) {
		const struct col_def *d = &c->src->cols[k];
		if (!(want & d->bit))
			continue;
		*col_arr(c, d) = xmap(cap * col_size(d));
		if (!chunked)
			buf_addf(&sql, "%s%s", ncol ? ", " : "SELECT ", colstore_sql(c->src->chunks, k));
		cols[ncol++] = d;
	}
	/* The statement asks for the wanted columns only (see kernels.sql); a chunk for all of them. */
	if (chunked)
		chunks_sql(&sql, c->src->table);
	else
		buf_addf(&sql, " FROM %s WHERE rowid BETWEEN :lo AND :hi AND (:one_session OR session_id = "
			 ":session)", c->src->table);
	memset(s, 0, sizeof(s));
	for (j = 0; j < p.n; j++) {
		s[j].c = c;
		memcpy(s[j].want, cols, sizeof(cols));
		s[j].nwant = ncol;
		s[j].first = s[j].at = first[j];
		s[j].maxname = -1;
		if (chunked)
			s[j].tmp = xmalloc(COLSTORE_ROWS * sizeof(*s[j].tmp));
	}
	rc = scan_run(c->db, &p, sql.s, &o, chunked ? chunk_row : col_row, s, sizeof(s[0]));
	buf_release(&sql);
	for (j = 0; j < p.n; j++)
		bad |= s[j].bad;
	if (bad & 1)
		rc = error("%s: a name id is out of range (0..%d)", c->src->table, INT32_MAX - 1);
	else if (bad)
		rc = error(DAMAGED, c->src->table);
	if (!rc) {
		for (k = 0; k < ncol; k++)
			if (cols[k]->kind == CV_DICT && p.n)
				dict_merge(s, p.n, k);
		/* Close the gaps between slices (rowids of other sessions, or deleted rows). */
		for (j = 0; j < p.n; j++) {
			size_t m = s[j].at - s[j].first;
			if (s[j].first != n)
				for (k = 0; k < ncol; k++) {
					char *arr = *col_arr(c, cols[k]);
					size_t z = col_size(cols[k]);
					memmove(arr + n * z, arr + s[j].first * z, m * z);
				}
			n += m;
			if (s[j].maxname > maxname)
				maxname = s[j].maxname;
		}
		if (chunked && n != cap)
			rc = error(DAMAGED, c->src->table);
		if (c->cols && n != c->n)
			rc = error("%s: the table changed while it was being read", c->src->table);
		c->n = n;
		for (k = 0; k < ncol; k++)
			if (cols[k]->kind == CV_NAME)
				c->nnames = (size_t)(maxname + 1);
	}
	for (j = 0; j < p.n; j++) {
		for (k = 0; k < ncol; k++)
			dict_release(&s[j].dict[k]);
		free(s[j].tmp);
	}
	c->cols |= want;
	return rc;
}

/* The cached table src of (db, session) with at least the columns `cols`; NULL with a message. */
static struct colset *columns_get(sqlite3 *db, int64_t session, const struct col_source *src, unsigned cols)
{
	struct colset *c;
	for (c = cache; c; c = c->next)
		if (c->db == db && c->session == session && c->src == src)
			break;
	if (!c) {
		c = xcalloc(1, src->size);
		c->db = db;
		c->session = session;
		c->src = src;
		c->next = cache;
		cache = c;
	}
	if ((c->cols & cols) != cols && load(c, cols & ~c->cols)) {
		columns_drop(db);
		return NULL;
	}
	return c;
}

int columns_chunked(sqlite3 *db, int64_t session)
{
	size_t first[SCAN_MAX_SLICES], n;
	struct scan_plan p;
	return chunks_plan(db, session, kernel_source.table, &p, first, &n) == 1 &&
	       chunks_plan(db, session, call_source.table, &p, first, &n) == 1;
}

const struct kcols *kernels_get(sqlite3 *db, int64_t session, unsigned cols)
{
	return (const struct kcols *)columns_get(db, session, &kernel_source, cols);
}

const struct ccols *calls_get(sqlite3 *db, int64_t session, unsigned cols)
{
	return (const struct ccols *)columns_get(db, session, &call_source, cols);
}

void columns_drop(sqlite3 *db)
{
	struct colset **p = &cache;
	while (*p) {
		struct colset *c = *p;
		if (c->db == db) {
			*p = c->next;
			colset_free(c);
		} else {
			p = (struct colset **)&c->next;
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
		size_t np;
		unsigned char *pass = names_pass(db, o, &np);
		if (!pass) {
			free(keys);
			return NULL;
		}
		for (i = 0; i < k->nnames; i++)
			if (i >= np || !pass[i])
				keys[i] = -1;
		free(pass);
	}
	return keys;
}

unsigned char *names_pass(sqlite3 *db, const struct analysis_opts *o, size_t *n)
{
	struct script sc = { db, embed_get("analyze/kernels.sql"), o };
	sqlite3_stmt *st = script_next(&sc);
	unsigned char *pass = NULL;
	size_t alloc = 0;
	int rc;
	*n = 0;
	if (!st)
		return NULL;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id < 0 || id >= INT32_MAX)
			continue;
		if ((size_t)id >= *n) {
			size_t was = alloc;
			ALLOC_GROW(pass, (size_t)id + 1, alloc);
			memset(pass + was, 0, alloc - was);
			*n = (size_t)id + 1;
		}
		pass[id] = 1;
	}
	if (rc != SQLITE_DONE) {
		step_error(st);
		free(pass);
		return NULL;
	}
	sqlite3_finalize(st);
	return pass ? pass : xcalloc(1, 1);
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
