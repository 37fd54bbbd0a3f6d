/*
 * kernel_columns: the kernels of sessions as an eponymous, read-only virtual table (see sqlext.h), read
 * from the column chunks (lib/colstore.h) where a session has a complete set, else from the kernels
 * table's rows. Compiled twice like lib/sqlext.c: into gpuprof's programs and into the extension.
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"
#include "colstore.h"
#include "dstats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * What a table of chunk rows is: its columns (session_id first, then what the chunks hold, then end_ns =
 * start_ns + the duration column), the chunk column each decodes from, and the rows fallback, which
 * gives the same values as the chunks hold (colstore.h), in the table's column order after session_id.
 */
struct vt_def {
	enum colstore_table t;
	const char *schema;
	int ncols;		/* table columns, before the hidden schema column */
	int chunk_col[16];	/* per table column: the chunk column; -1 for session_id */
	int end;		/* the end_ns column: chunk start + chunk duration */
	const char *rows_sql;	/* one session's rows (?1), in schema %w */
};

static const struct vt_def kernel_def = {
	CS_KERNELS,
	"CREATE TABLE x(session_id INTEGER, pid INTEGER, start_ns INTEGER, end_ns INTEGER, device_id INTEGER, "
	"stream_id INTEGER, name_id INTEGER, correlation_id INTEGER, dur_ns INTEGER, schema TEXT HIDDEN)",
	9, { -1, CSK_PID, CSK_START, CSK_DUR, CSK_DEV, CSK_STREAM, CSK_NAME, CSK_CORR, CSK_DUR }, 3,
	"SELECT pid, start_ns, end_ns, device_id, coalesce(stream_id, -1), name_id, coalesce(correlation_id, 0), "
	"end_ns - start_ns FROM \"%w\".kernels WHERE session_id = ?1"
};

static const struct vt_def call_def = {
	CS_CALLS,
	"CREATE TABLE x(session_id INTEGER, pid INTEGER, start_ns INTEGER, end_ns INTEGER, thread_id INTEGER, "
	"name_id INTEGER, correlation_id INTEGER, dur_ns INTEGER, schema TEXT HIDDEN)",
	8, { -1, CSC_PID, CSC_START, CSC_DUR, CSC_THREAD, CSC_NAME, CSC_CORR, CSC_DUR }, 3,
	"SELECT pid, start_ns, end_ns, coalesce(thread_id, 0), coalesce(name_id, 0), coalesce(correlation_id, 0), "
	"end_ns - start_ns FROM \"%w\".api_calls WHERE session_id = ?1"
};

#define KV_SESSION 0
/* kernel_columns' name_id and dur_ns (kernel_def's columns), which kernel_stats reads. */
#define KC_NAME 6
#define KC_DUR 8

/*
 * idxNum: bit 0 an equality on session_id (argv[0]), bit KV_SCHEMA one on the hidden schema column (the next
 * argv), the bits between the columns used (colUsed << 1).
 */
#define KV_EQ 1
#define KV_SCHEMA (1 << 20)

struct kv_cursor {
	sqlite3_vtab_cursor base;
	sqlite3 *db;
	const struct vt_def *def;
	char *schema;		/* the database read ("main", an attached one's name); sqlite3_mprintf'd */
	unsigned used;		/* bit per table column */
	int64_t *sessions;	/* sqlite3_malloc64'd */
	int nsessions, at;	/* at: index into sessions */
	sqlite3_stmt *st;	/* the session's chunks, or its rows */
	int chunked;		/* st reads chunks */
	int eof;
	int64_t rowid;
	int64_t next_first;	/* chunks: the first_row the next chunk must have */
	size_t n, i;		/* chunks: rows decoded, the current one */
	int64_t *col[CSK_COUNT];	/* chunks: decoded columns, COLSTORE_ROWS each, for the used ones */
};

struct kv_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	const struct vt_def *def;	/* kernel_stats: only its schema */
};

static int kv_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	struct kv_vtab *v;
	const struct vt_def *def = aux;
	int rc;
	(void)argc;
	(void)argv;
	(void)err;
	if ((rc = sqlite3_declare_vtab(db, def->schema)) != SQLITE_OK)
		return rc;
	if (!(v = sqlite3_malloc(sizeof(*v))))
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->db = db;
	v->def = def;
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*out = &v->base;
	return SQLITE_OK;
}

static int kv_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/* An equality on session_id is used (and checked by SQLite no more); without one, every session. */
static int kv_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	int i, eq = -1, sch = -1, schema_col = ((struct kv_vtab *)v)->def->ncols;
	for (i = 0; i < ix->nConstraint; i++) {
		int col = ix->aConstraint[i].iColumn;
		if (ix->aConstraint[i].op != SQLITE_INDEX_CONSTRAINT_EQ || (col != KV_SESSION && col != schema_col))
			continue;
		/*
		 * A join on session_id or schema waits for its value (the other table outside): a plan that reads
		 * every session of main first would miss another schema's rows.
		 */
		if (!ix->aConstraint[i].usable)
			return SQLITE_CONSTRAINT;
		if (col == KV_SESSION)
			eq = i;
		else
			sch = i;
	}
	ix->idxNum = (int)((ix->colUsed & 0xffff) << 1);
	if (sch >= 0) {
		ix->aConstraintUsage[sch].argvIndex = eq >= 0 ? 2 : 1;
		ix->aConstraintUsage[sch].omit = 1;
		ix->idxNum |= KV_SCHEMA;
	}
	if (eq >= 0) {
		ix->aConstraintUsage[eq].argvIndex = 1;
		ix->aConstraintUsage[eq].omit = 1;
		ix->idxNum |= KV_EQ;
		ix->estimatedCost = 1e5;
		ix->estimatedRows = 100000;
	} else {
		ix->estimatedCost = 1e7;
		ix->estimatedRows = 1000000;
	}
	return SQLITE_OK;
}

static int kv_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct kv_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->db = ((struct kv_vtab *)v)->db;
	c->def = ((struct kv_vtab *)v)->def;
	*out = &c->base;
	return SQLITE_OK;
}

static void kv_reset(struct kv_cursor *c)
{
	int k;
	sqlite3_finalize(c->st);
	c->st = NULL;
	sqlite3_free(c->sessions);
	c->sessions = NULL;
	c->nsessions = c->at = 0;
	for (k = 0; k < CSK_COUNT; k++) {
		sqlite3_free(c->col[k]);
		c->col[k] = NULL;
	}
	sqlite3_free(c->schema);
	c->schema = NULL;
}

static int kv_close(sqlite3_vtab_cursor *cur)
{
	kv_reset((struct kv_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* Set the vtab's error message from fmt and return rc. */
static int kv_error(struct kv_cursor *c, int rc, const char *fmt, const char *what)
{
	sqlite3_vtab *v = c->base.pVtab;
	sqlite3_free(v->zErrMsg);
	v->zErrMsg = sqlite3_mprintf(fmt, what);
	return rc;
}

/* Set the vtab's error message to what and return rc. */
static int vt_error(sqlite3_vtab_cursor *cur, int rc, const char *what)
{
	sqlite3_vtab *v = cur->pVtab;
	sqlite3_free(v->zErrMsg);
	v->zErrMsg = sqlite3_mprintf("%s", what);
	return rc;
}

/* One integer from sql (a format of schema, consumed: sqlite3_mprintf'd), or 0 when it fails. */
static int64_t vt_int(sqlite3 *db, char *sql)
{
	sqlite3_stmt *st;
	int64_t v = 0;
	int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * The database's schema version as lib/db.c finds it (user_version, else what table meta said before
 * user_version was set: 2 for version 4, 1 for versions 1 to 3, which lack version 4's kernel chunks).
 */
static int64_t vt_version(sqlite3 *db, const char *schema)
{
	int64_t v = vt_int(db, sqlite3_mprintf("PRAGMA \"%w\".user_version", schema));
	if (v)
		return v;
	v = vt_int(db, sqlite3_mprintf("SELECT value FROM \"%w\".meta WHERE key = 'schema_version'", schema));
	return v == 2 ? 4 : v;
}

/* 1 when session s's rows of table t are all in readable chunks (the test analyze/columns.c makes), else 0. */
static int kv_complete(sqlite3 *db, const char *schema, int64_t s, enum colstore_table t)
{
	sqlite3_stmt *st;
	char *sql;
	int ok = vt_version(db, schema) >= colstore_specs[t].version;
	if (!ok)
		return 0;
	sql = sqlite3_mprintf("SELECT " COLSTORE_COMPLETE_SQL_IN("\"%w\".", "?1", "?2"), schema, schema, schema, schema,
			      schema);
	ok = sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
	sqlite3_free(sql);
	if (!ok)
		return 0;
	sqlite3_bind_int64(st, 1, s);
	sqlite3_bind_text(st, 2, colstore_specs[t].table, -1, SQLITE_STATIC);
	ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	return ok;
}

/* Start reading session sessions[at]: its chunks or its rows. */
static int kv_start(struct kv_cursor *c)
{
	int64_t s = c->sessions[c->at];
	const char *schema = c->schema ? c->schema : "main";
	char *sql;
	int rc;
	sqlite3_finalize(c->st);
	c->st = NULL;
	c->chunked = kv_complete(c->db, schema, s, c->def->t);
	c->n = c->i = 0;
	c->next_first = 0;
	sql = sqlite3_mprintf(c->chunked ? "SELECT first_row, rows, base_ns, data FROM \"%w\".column_chunks "
			      "WHERE tbl = ?2 AND session_id = ?1 ORDER BY id" : c->def->rows_sql, schema);
	if (!sql)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(c->db, sql, -1, &c->st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return vt_error(&c->base, rc, sqlite3_errmsg(c->db));
	sqlite3_bind_int64(c->st, 1, s);
	if (c->chunked)
		sqlite3_bind_text(c->st, 2, colstore_specs[c->def->t].table, -1, SQLITE_STATIC);
	return SQLITE_OK;
}

/* Decode the chunk c->st is on into c->col (the used columns). */
static int kv_decode(struct kv_cursor *c)
{
	const struct vt_def *def = c->def;
	const struct colstore_spec *sp = &colstore_specs[def->t];
	int64_t first = sqlite3_column_int64(c->st, 0), rows = sqlite3_column_int64(c->st, 1);
	int64_t base = sqlite3_column_int64(c->st, 2);
	const unsigned char *blob = sqlite3_column_blob(c->st, 3);
	size_t len = (size_t)sqlite3_column_bytes(c->st, 3);
	unsigned need = 0;
	int k;
	if (!colstore_chunk_follows(c->next_first, first, rows))
		goto damaged;
	for (k = 1; k < def->ncols; k++)
		if (c->used >> k & 1)
			need |= 1u << def->chunk_col[k];
	if (c->used >> def->end & 1)
		need |= 1u << sp->start_col;
	for (k = 0; k < sp->ncols; k++) {
		if (!(need >> k & 1))
			continue;
		if (!c->col[k] && !(c->col[k] = sqlite3_malloc64(COLSTORE_ROWS * sizeof(int64_t))))
			return SQLITE_NOMEM;
		if (colstore_decode(blob, len, sp->ncols, k, (size_t)rows, k == sp->start_col ? base : 0, c->col[k]))
			goto damaged;
	}
	c->next_first += rows;
	c->n = (size_t)rows;
	c->i = 0;
	return SQLITE_OK;
damaged:
	return kv_error(c, SQLITE_CORRUPT, "%s: column chunks are damaged: `DELETE FROM column_sets` retires them, "
			"`gpuprof-ingest --reindex` rebuilds them", sp->table);
}

/* Go to the next row (of this session, else of the next sessions); c->eof past the last. */
static int kv_advance(struct kv_cursor *c)
{
	int rc;
	for (;;) {
		if (c->chunked && c->i + 1 < c->n) {
			c->i++;
			return SQLITE_OK;
		}
		if (c->st) {
			rc = sqlite3_step(c->st);
			if (rc == SQLITE_ROW)
				return c->chunked ? kv_decode(c) : SQLITE_OK;
			if (rc != SQLITE_DONE)
				return vt_error(&c->base, rc, sqlite3_errmsg(c->db));
			c->at++;
		}
		if (c->at >= c->nsessions) {
			c->eof = 1;
			return SQLITE_OK;
		}
		if ((rc = kv_start(c)) != SQLITE_OK)
			return rc;
	}
}

/*
 * The sessions a scan reads into *out (*n; sqlite3_malloc64'd): the one eq names (none when it is not an
 * integer), or with eq NULL every session of schema in id order.
 */
static int vt_sessions(sqlite3_vtab_cursor *cur, sqlite3 *db, const char *schema, sqlite3_value *eq, int64_t **out,
		       int *n)
{
	sqlite3_stmt *st;
	char *sql;
	int rc, alloc = 0;
	*out = NULL;
	*n = 0;
	if (eq) {
		/* session_id = NULL, or = a value no session id equals, finds nothing. */
		if (sqlite3_value_numeric_type(eq) != SQLITE_INTEGER)
			return SQLITE_OK;
		if (!(*out = sqlite3_malloc64(sizeof(int64_t))))
			return SQLITE_NOMEM;
		(*out)[0] = sqlite3_value_int64(eq);
		*n = 1;
		return SQLITE_OK;
	}
	if (!(sql = sqlite3_mprintf("SELECT id FROM \"%w\".sessions ORDER BY id", schema ? schema : "main")))
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return vt_error(cur, rc, sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == alloc) {
			int64_t *p;
			alloc = alloc ? 2 * alloc : 16;
			if (!(p = sqlite3_realloc64(*out, (size_t)alloc * sizeof(int64_t)))) {
				sqlite3_finalize(st);
				return SQLITE_NOMEM;
			}
			*out = p;
		}
		(*out)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : vt_error(cur, rc, sqlite3_errmsg(db));
}

/* The schema an equality on the hidden column names (KV_SCHEMA), else "main", into *out (sqlite3_mprintf'd). */
static int vt_schema(sqlite3_vtab_cursor *cur, int idx, sqlite3_value **argv, char **out)
{
	const char *s = idx & KV_SCHEMA ? (const char *)sqlite3_value_text(argv[idx & KV_EQ ? 1 : 0]) : "main";
	*out = sqlite3_mprintf("%s", s ? s : "main");
	return *out ? SQLITE_OK : vt_error(cur, SQLITE_NOMEM, "out of memory");
}

static int kv_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct kv_cursor *c = (struct kv_cursor *)cur;
	int rc;
	(void)idxstr;
	(void)argc;
	kv_reset(c);
	c->used = ((unsigned)idx >> 1) & 0xffff;
	c->eof = 0;
	c->rowid = 0;
	if ((rc = vt_schema(cur, idx, argv, &c->schema)) != SQLITE_OK)
		return rc;
	rc = vt_sessions(cur, c->db, c->schema, idx & KV_EQ ? argv[0] : NULL, &c->sessions, &c->nsessions);
	if (rc != SQLITE_OK || !c->nsessions) {
		c->eof = 1;
		return rc;
	}
	return kv_advance(c);
}

static int kv_next(sqlite3_vtab_cursor *cur)
{
	struct kv_cursor *c = (struct kv_cursor *)cur;
	c->rowid++;
	return kv_advance(c);
}

static int kv_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct kv_cursor *)cur)->eof;
}

/* Column k of the row c is on (a used one). */
static int64_t kv_value(const struct kv_cursor *c, int k)
{
	if (k == KV_SESSION)
		return c->sessions[c->at];
	if (!c->chunked)
		return sqlite3_column_int64(c->st, k - 1);
	if (k == c->def->end)
		return c->col[colstore_specs[c->def->t].start_col][c->i] + c->col[c->def->chunk_col[k]][c->i];
	return c->col[c->def->chunk_col[k]][c->i];
}

static int kv_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct kv_cursor *c = (struct kv_cursor *)cur;
	if (k == c->def->ncols)
		sqlite3_result_text(ctx, c->schema, -1, SQLITE_TRANSIENT);
	else
		sqlite3_result_int64(ctx, kv_value(c, k));
	return SQLITE_OK;
}

static int kv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct kv_cursor *)cur)->rowid;
	return SQLITE_OK;
}

static sqlite3_module kv_module = {
	.iVersion = 0,
	.xCreate = NULL,	/* eponymous only: CREATE VIRTUAL TABLE is refused */
	.xConnect = kv_connect,
	.xBestIndex = kv_best_index,
	.xDisconnect = kv_disconnect,
	.xDestroy = kv_disconnect,
	.xOpen = kv_open,
	.xClose = kv_close,
	.xFilter = kv_filter,
	.xNext = kv_next,
	.xEof = kv_eof,
	.xColumn = kv_column,
	.xRowid = kv_rowid,
};


/*
 * kernel_stats: one row per session and kernel name, the statistics of its durations, in name_id order:
 * what `SELECT session_id, name_id, count(*), sum(dur_ns), avg(dur_ns), median(dur_ns), min(dur_ns),
 * max(dur_ns), stddev_samp(dur_ns) FROM kernel_columns GROUP BY 1, 2` gives (tests/vtab.py checks), but
 * grouped here in C: SQLite's GROUP BY sorts millions of rows and steps seven aggregates a row, ten
 * times the time (README "With sqlite3"). The statistics are lib/dstats.c's, as median's and the analyses'.
 */
enum { KS_SESSION, KS_NAME, KS_CALLS, KS_TOTAL, KS_AVG, KS_MED, KS_MIN, KS_MAX, KS_STDDEV, KS_COUNT };

/* Only its schema: kernel_stats reads kernel_columns' cursor (kernel_def), not a definition of its own. */
static const struct vt_def stats_def = {
	.t = CS_KERNELS,
	.schema = "CREATE TABLE x(session_id INTEGER, name_id INTEGER, calls INTEGER, total_ns INTEGER, "
		  "avg_ns REAL, med_ns REAL, min_ns INTEGER, max_ns INTEGER, stddev_ns REAL, schema TEXT HIDDEN)",
	.ncols = KS_COUNT,
};

struct ks_cursor {
	sqlite3_vtab_cursor base;
	sqlite3 *db;
	char *schema;		/* as kv_cursor's */
	int64_t *sessions;
	int nsessions, at;
	struct dstats *rows;	/* the current session's names (key: name_id) */
	size_t nrows, i;
	int eof;
};

static int ks_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct ks_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->db = ((struct kv_vtab *)v)->db;
	*out = &c->base;
	return SQLITE_OK;
}

static void ks_reset(struct ks_cursor *c)
{
	sqlite3_free(c->sessions);
	sqlite3_free(c->rows);
	sqlite3_free(c->schema);
	c->schema = NULL;
	c->sessions = NULL;
	c->rows = NULL;
	c->nsessions = c->at = 0;
	c->nrows = c->i = 0;
}

static int ks_close(sqlite3_vtab_cursor *cur)
{
	ks_reset((struct ks_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* What ks_load collects: name ids and durations, grown as chunks come. */
struct ks_load {
	int64_t *name, *dur;
	size_t n, alloc;
};

static int ks_take(void *ctx, const int64_t *const *v, size_t n)
{
	struct ks_load *l = ctx;
	if (l->n + n > l->alloc) {
		int64_t *a, *b;
		l->alloc = 2 * (l->n + n) + 1024;
		a = sqlite3_realloc64(l->name, l->alloc * sizeof(int64_t));
		if (a)
			l->name = a;
		b = sqlite3_realloc64(l->dur, l->alloc * sizeof(int64_t));
		if (b)
			l->dur = b;
		if (!a || !b)
			return SQLITE_NOMEM;
	}
	memcpy(l->name + l->n, v[KC_NAME], n * sizeof(int64_t));
	memcpy(l->dur + l->n, v[KC_DUR], n * sizeof(int64_t));
	l->n += n;
	return SQLITE_OK;
}

/* Session s's kernels as name ids and durations into *name, *dur (*n; sqlite3_malloc64'd), as sqlext_read reads them. */
static int ks_load(struct ks_cursor *c, int64_t s, int64_t **name, int64_t **dur, size_t *n)
{
	struct ks_load l = { NULL, NULL, 0, 0 };
	int rc = sqlext_read(c->base.pVtab, c->db, c->schema, s, 0, 1u << KC_NAME | 1u << KC_DUR, ks_take, &l);
	if (rc != SQLITE_OK) {
		sqlite3_free(l.name);
		sqlite3_free(l.dur);
		l.name = l.dur = NULL;
		l.n = 0;
	}
	*name = l.name;
	*dur = l.dur;
	*n = l.n;
	return rc;
}

int sqlext_read(sqlite3_vtab *vt, sqlite3 *db, const char *schema, int64_t s, int calls, unsigned used,
		int (*fn)(void *ctx, const int64_t *const *v, size_t n), void *ctx)
{
	struct kv_cursor k;
	const int64_t *v[16];
	int64_t row[16];
	int rc, j;
	memset(&k, 0, sizeof(k));
	k.base.pVtab = vt;
	k.db = db;
	k.def = calls ? &call_def : &kernel_def;
	k.used = used;
	k.sessions = &s;
	k.nsessions = 1;
	k.schema = (char *)schema;	/* not the cursor's: put back before kv_reset */
	for (rc = kv_advance(&k); rc == SQLITE_OK && !k.eof; rc = kv_advance(&k)) {
		size_t add = k.chunked ? k.n - k.i : 1;	/* a chunk's rows at once */
		for (j = 0; j < k.def->ncols; j++) {
			if (!(used >> j & 1))
				continue;
			if (k.chunked && j != k.def->end && j != KV_SESSION) {
				v[j] = k.col[k.def->chunk_col[j]] + k.i;
			} else {
				row[j] = kv_value(&k, j);	/* the rows' value; a chunk's end_ns is not offered */
				v[j] = &row[j];
				add = 1;
			}
		}
		if ((rc = fn(ctx, v, add)) != SQLITE_OK) {
			if (rc == SQLITE_NOMEM)
				rc = vt_error(&k.base, rc, "out of memory");
			break;
		}
		if (k.chunked)
			k.i += add - 1;
	}
	k.sessions = NULL;	/* s, not the cursor's */
	k.schema = NULL;
	kv_reset(&k);
	return rc;
}

static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The statistics of session sessions[at]'s names into c->rows. */
static int ks_session(struct ks_cursor *c)
{
	int64_t *name, *dur, *pair = NULL, *sorted = NULL, maxname = 0;
	size_t n, i, j, groups = 0;
	int rc = ks_load(c, c->sessions[c->at], &name, &dur, &n);
	sqlite3_free(c->rows);
	c->rows = NULL;
	c->nrows = c->i = 0;
	if (rc != SQLITE_OK || !n)
		goto out;
	/* Durations grouped by name into sorted[]: a counting sort when the ids are small (strings.id), else pairs sorted. */
	for (i = 0; i < n; i++)
		if (name[i] < 0 || name[i] > maxname)
			maxname = name[i] < 0 ? INT64_MAX : name[i];
	if (!(sorted = sqlite3_malloc64(n * sizeof(int64_t)))) {
		rc = SQLITE_NOMEM;
		goto out;
	}
	if (maxname < (int64_t)(4 * n + 65536)) {
		size_t *at = sqlite3_malloc64(((size_t)maxname + 2) * sizeof(size_t)), sum = 0;
		if (!at) {
			rc = SQLITE_NOMEM;
			goto out;
		}
		memset(at, 0, ((size_t)maxname + 2) * sizeof(size_t));
		for (i = 0; i < n; i++)
			at[name[i]]++;
		for (j = 0; j <= (size_t)maxname; j++) {
			size_t k = at[j];
			groups += k > 0;
			at[j] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			sorted[at[name[i]]++] = dur[i];
		/* at[j] is now the end of name j's durations. */
		if ((c->rows = sqlite3_malloc64(groups * sizeof(*c->rows))))
			for (j = 0, i = 0; j <= (size_t)maxname; i = at[j++])
				if (at[j] > i) {
					stats_of(sorted + i, at[j] - i, &c->rows[c->nrows]);
					c->rows[c->nrows++].key = (int64_t)j;
				}
		sqlite3_free(at);
		if (!c->rows)
			rc = SQLITE_NOMEM;
		goto out;
	}
	if (!(pair = sqlite3_malloc64(2 * n * sizeof(int64_t)))) {
		rc = SQLITE_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		pair[2 * i] = name[i];
		pair[2 * i + 1] = dur[i];
	}
	qsort(pair, n, 2 * sizeof(int64_t), cmp_pair);
	for (i = 0; i < n; i++)
		groups += !i || pair[2 * i] != pair[2 * i - 2];
	if (!(c->rows = sqlite3_malloc64(groups * sizeof(*c->rows)))) {
		rc = SQLITE_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && pair[2 * j] == pair[2 * i]; j++)
			sorted[j - i] = pair[2 * j + 1];
		stats_of(sorted, j - i, &c->rows[c->nrows]);
		c->rows[c->nrows++].key = pair[2 * i];
	}
out:
	sqlite3_free(name);
	sqlite3_free(dur);
	sqlite3_free(pair);
	sqlite3_free(sorted);
	if (rc == SQLITE_NOMEM)
		return vt_error(&c->base, rc, "out of memory");
	return rc;
}

/* Go to the next name (of this session, else of the next sessions with kernels). */
static int ks_advance(struct ks_cursor *c)
{
	int rc;
	while (c->i >= c->nrows) {
		if (c->rows)
			c->at++;
		if (c->at >= c->nsessions) {
			c->eof = 1;
			return SQLITE_OK;
		}
		if ((rc = ks_session(c)) != SQLITE_OK)
			return rc;
		if (!c->rows)
			c->at++;
	}
	return SQLITE_OK;
}

static int ks_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct ks_cursor *c = (struct ks_cursor *)cur;
	int rc;
	(void)idxstr;
	(void)argc;
	ks_reset(c);
	c->eof = 0;
	if ((rc = vt_schema(cur, idx, argv, &c->schema)) != SQLITE_OK)
		return rc;
	rc = vt_sessions(cur, c->db, c->schema, idx & KV_EQ ? argv[0] : NULL, &c->sessions, &c->nsessions);
	if (rc != SQLITE_OK || !c->nsessions) {
		c->eof = 1;
		return rc;
	}
	return ks_advance(c);
}

static int ks_next(sqlite3_vtab_cursor *cur)
{
	struct ks_cursor *c = (struct ks_cursor *)cur;
	c->i++;
	return ks_advance(c);
}

static int ks_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct ks_cursor *)cur)->eof;
}

static int ks_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct ks_cursor *c = (struct ks_cursor *)cur;
	const struct dstats *r = &c->rows[c->i];
	switch (k) {
	case KS_SESSION: sqlite3_result_int64(ctx, c->sessions[c->at]); break;
	case KS_NAME: sqlite3_result_int64(ctx, r->key); break;
	case KS_CALLS: sqlite3_result_int64(ctx, r->n); break;
	case KS_TOTAL: sqlite3_result_int64(ctx, r->total); break;
	case KS_AVG: sqlite3_result_double(ctx, r->mean); break;
	case KS_MED: sqlite3_result_double(ctx, r->median); break;
	case KS_MIN: sqlite3_result_int64(ctx, r->min); break;
	case KS_MAX: sqlite3_result_int64(ctx, r->max); break;
	case KS_STDDEV: sqlite3_result_double(ctx, r->stddev); break;
	default: sqlite3_result_text(ctx, c->schema, -1, SQLITE_TRANSIENT); break;
	}
	return SQLITE_OK;
}

static int ks_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct ks_cursor *c = (struct ks_cursor *)cur;
	*rowid = (sqlite3_int64)c->at << 32 | (sqlite3_int64)c->i;
	return SQLITE_OK;
}

static sqlite3_module ks_module = {
	.iVersion = 0,
	.xConnect = kv_connect,
	.xBestIndex = kv_best_index,
	.xDisconnect = kv_disconnect,
	.xDestroy = kv_disconnect,
	.xOpen = ks_open,
	.xClose = ks_close,
	.xFilter = ks_filter,
	.xNext = ks_next,
	.xEof = ks_eof,
	.xColumn = ks_column,
	.xRowid = ks_rowid,
};

/*
 * hotspots as schemas/views.sql has it (the same columns, order and numbers), from kernel_stats: a TEMP
 * view shadows the database's for unqualified names. The stored view stays plain SQL, so that a database
 * answers without the extension too, slowly (the stored view's comment says how to load it).
 */
static const char hotspots_sql[] =
	"CREATE TEMP VIEW IF NOT EXISTS hotspots AS\n"
	"SELECT g.session_id, s.value AS name, calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns,\n"
	"       100.0 * total_ns / sum(total_ns) OVER (PARTITION BY g.session_id) AS time_pct\n"
	"FROM kernel_stats g JOIN strings s ON s.session_id = g.session_id AND s.id = g.name_id\n"
	"ORDER BY g.session_id, total_ns DESC, name";

int gpuprof_sqlite_views(sqlite3 *db)
{
	return sqlite3_exec(db, hotspots_sql, NULL, NULL, NULL);
}

int gpuprof_sqlite_tables(sqlite3 *db)
{
	int rc = sqlite3_create_module(db, "kernel_columns", &kv_module, (void *)&kernel_def);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module(db, "api_columns", &kv_module, (void *)&call_def);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module(db, "kernel_stats", &ks_module, (void *)&stats_def);
	return rc == SQLITE_OK ? sqlext_window_register(db) : rc;
}
