/*
 * kernel_columns: the kernels of sessions as an eponymous, read-only virtual table (see sqlext.h), read
 * from the column chunks (lib/colstore.h) where a session has a complete set, else from the kernels
 * table's rows. Compiled twice like analyze/ext/sqlext.c: into gpuprof's programs and into the extension.
 *
 * Accelerators of plain-SQL references: analyze/ref/{kernel_columns,api_columns,kernel_stats,api_stats}.sql
 * (tests/refs.py checks they agree). Measured on the 5M-kernel bench session in the sqlite3 shell (C best of 3,
 * reference one run, 2 shared cores under load, 2026-11-28): kernel_columns 1.47 s against 2.58 s (1.8x);
 * api_columns 1.59 s against 2.00 s (1.3x); kernel_stats 0.56 s against 23.95 s (43x); api_stats 0.77 s against
 * 10.23 s (13x).
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"
#include "colstore.h"
#include "db.h"
#include "dstats.h"
#include "embed.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The launch columns of the kernels table, NULL as INT64_MIN like the chunks; shared_mem is `smem`. */
#define KV_LAUNCH(smem) \
	"coalesce(grid_x, -9223372036854775808), coalesce(grid_y, -9223372036854775808), " \
	"coalesce(grid_z, -9223372036854775808), coalesce(block_x, -9223372036854775808), " \
	"coalesce(block_y, -9223372036854775808), coalesce(block_z, -9223372036854775808), " \
	"coalesce(registers, -9223372036854775808), coalesce(static_smem, -9223372036854775808), " \
	"coalesce(dynamic_smem, -9223372036854775808), coalesce(" smem ", -9223372036854775808)"

static const struct vt_def kernel_def = {
	CS_KERNELS,
	"CREATE TABLE x(session_id INTEGER, pid INTEGER, start_ns INTEGER, end_ns INTEGER, device_id INTEGER, "
	"stream_id INTEGER, name_id INTEGER, correlation_id INTEGER, dur_ns INTEGER, grid_x INTEGER, "
	"grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, registers INTEGER, "
	"static_smem INTEGER, dynamic_smem INTEGER, shared_mem INTEGER, schema TEXT HIDDEN)",
	19, { -1, CSK_PID, CSK_START, CSK_DUR, CSK_DEV, CSK_STREAM, CSK_NAME, CSK_CORR, CSK_DUR, CSK_GRID_X,
	      CSK_GRID_Y, CSK_GRID_Z, CSK_BLOCK_X, CSK_BLOCK_Y, CSK_BLOCK_Z, CSK_REGS, CSK_SSMEM, CSK_DSMEM,
	      CSK_SMEM }, 3, KC_GRID_X,
	"SELECT pid, start_ns, end_ns, device_id, coalesce(stream_id, -1), name_id, coalesce(correlation_id, 0), "
	"end_ns - start_ns, " KV_LAUNCH("coalesce(shared_mem, static_smem + dynamic_smem)")
	" FROM \"%w\".kernels WHERE session_id = ?1",
	DB_V_SHARED_MEM,
	/* Before kernels.shared_mem, Kineto's static_smem held the total and its dynamic_smem was NULL. */
	"SELECT pid, start_ns, end_ns, device_id, coalesce(stream_id, -1), name_id, coalesce(correlation_id, 0), "
	"end_ns - start_ns, " KV_LAUNCH("coalesce(static_smem + dynamic_smem, static_smem)")
	" FROM \"%w\".kernels WHERE session_id = ?1"
};

static const struct vt_def call_def = {
	CS_CALLS,
	"CREATE TABLE x(session_id INTEGER, pid INTEGER, start_ns INTEGER, end_ns INTEGER, thread_id INTEGER, "
	"name_id INTEGER, correlation_id INTEGER, dur_ns INTEGER, schema TEXT HIDDEN)",
	8, { -1, CSC_PID, CSC_START, CSC_DUR, CSC_THREAD, CSC_NAME, CSC_CORR, CSC_DUR }, 3, 8,
	"SELECT pid, start_ns, end_ns, coalesce(thread_id, 0), coalesce(name_id, 0), coalesce(correlation_id, 0), "
	"end_ns - start_ns FROM \"%w\".api_calls WHERE session_id = ?1", 0, NULL
};

#define KV_SESSION 0

/*
 * idxNum: bit 0 an equality on session_id (argv[0]), bit KV_SCHEMA one on the hidden schema column (the
 * next argv), bits 1 to 20 the columns used (colUsed << 1). idxStr: the range constraints taken (tables
 * with an end_ns column), one character each, their values the next arguments in order: 'a' start_ns < x,
 * 'b' start_ns <= x, 'c' end_ns > x, 'd' end_ns >= x.
 */
#define KV_EQ 1
#define KV_SCHEMA (1 << 22)
#define KV_USED 0xfffffu	/* the columns used, after idxNum >> 1 */
#define KV_START 2		/* the start_ns column of kernel_def and call_def */

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
	int64_t next_first;	/* chunks: the first_row the next chunk must have */
	size_t n, i;		/* chunks: rows decoded, the current one */
	int64_t *col[CSK_COUNT];	/* chunks: decoded columns, COLSTORE_ROWS each, for the used ones */
	int64_t pos;		/* rows: the current row's position among its session's rows */
	int ranged;		/* rows must have start_ns <= start_max and end_ns >= end_min */
	int64_t start_max, end_min;
	/* Per chunk of one session, in order: its smallest start and largest end, once decoded (bounds
	 * skip chunks without decoding them when a join filters again and again with other ranges). */
	int64_t bounds_session;
	int64_t (*bounds)[2];	/* sqlite3_realloc64'd */
	size_t nbounds, chunk;	/* chunks known, the current chunk's index */
};

int sqlext_connect(sqlite3 *db, const char *schema, const void *def, sqlite3_vtab **out)
{
	struct sqlext_vtab *v;
	int rc;
	if ((rc = sqlite3_declare_vtab(db, schema)) != SQLITE_OK)
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

int sqlext_vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc;
	(void)argv;
	(void)err;
	return sqlext_connect(db, ((const struct vt_def *)aux)->schema, aux, out);
}

sqlite3 *sqlext_vt_db(sqlite3_vtab_cursor *cur)
{
	return ((struct sqlext_vtab *)cur->pVtab)->db;
}

int sqlext_vt_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/*
 * An equality on session_id is used (and checked by SQLite no more); without one, every session. Ranges
 * start_ns < (<=) x and end_ns > (>=) x are used too, to skip rows and chunks (SQLite checks them again).
 */
int sqlext_vt_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	const struct vt_def *def = ((struct sqlext_vtab *)v)->def;
	char ranges[9];
	int i, eq = -1, sch = -1, nranges = 0, arg = 1, schema_col = def->ncols > 0 ? def->ncols : -1;
	for (i = 0; i < ix->nConstraint; i++) {
		int col = ix->aConstraint[i].iColumn;
		if (ix->aConstraint[i].op != SQLITE_INDEX_CONSTRAINT_EQ || (col != KV_SESSION && col != schema_col))
			continue;
		/*
		 * A join on schema waits for its value (the other table outside): a plan that reads every session
		 * of main first would miss another schema's rows. A join on session_id need not: reading every
		 * session once and joining costs what one session costs, where waiting reads the whole session
		 * again for each row outside (the hotspots view's strings: 321 reads, 160 s on the bench session).
		 */
		if (!ix->aConstraint[i].usable) {
			if (col == schema_col)
				return SQLITE_CONSTRAINT;
			continue;
		}
		if (col == KV_SESSION)
			eq = i;
		else
			sch = i;
	}
	ix->idxNum = (int)((ix->colUsed & KV_USED) << 1);
	if (eq >= 0) {
		ix->aConstraintUsage[eq].argvIndex = arg++;
		ix->aConstraintUsage[eq].omit = 1;
		ix->idxNum |= KV_EQ;
		ix->estimatedCost = 1e5;
		ix->estimatedRows = 100000;
	} else {
		ix->estimatedCost = 1e7;
		ix->estimatedRows = 1000000;
	}
	if (sch >= 0) {
		ix->aConstraintUsage[sch].argvIndex = arg++;
		ix->aConstraintUsage[sch].omit = 1;
		ix->idxNum |= KV_SCHEMA;
	}
	for (i = 0; def->end && i < ix->nConstraint && nranges < 8; i++) {
		const struct sqlite3_index_constraint *k = &ix->aConstraint[i];
		char code = 0;
		if (!k->usable)
			continue;
		if (k->iColumn == KV_START && k->op == SQLITE_INDEX_CONSTRAINT_LT)
			code = 'a';
		else if (k->iColumn == KV_START && k->op == SQLITE_INDEX_CONSTRAINT_LE)
			code = 'b';
		else if (k->iColumn == KV_START + 1 && k->op == SQLITE_INDEX_CONSTRAINT_GT)
			code = 'c';
		else if (k->iColumn == KV_START + 1 && k->op == SQLITE_INDEX_CONSTRAINT_GE)
			code = 'd';
		if (!code)
			continue;
		ranges[nranges++] = code;
		ix->aConstraintUsage[i].argvIndex = arg++;
	}
	if (nranges) {
		ranges[nranges] = 0;
		if (!(ix->idxStr = sqlite3_mprintf("%s", ranges)))
			return SQLITE_NOMEM;
		ix->needToFreeIdxStr = 1;
	}
	return SQLITE_OK;
}

static int kv_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct kv_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->db = ((struct sqlext_vtab *)v)->db;
	c->def = ((struct sqlext_vtab *)v)->def;
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
	sqlite3_free(((struct kv_cursor *)cur)->bounds);
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
int sqlext_vt_error(sqlite3_vtab_cursor *cur, int rc, const char *what)
{
	sqlite3_vtab *v = cur->pVtab;
	sqlite3_free(v->zErrMsg);
	v->zErrMsg = sqlite3_mprintf("%s", what);
	return rc;
}

int64_t sqlext_data_version(sqlite3 *db, const char *schema)
{
	unsigned v = 0;
	return sqlite3_file_control(db, schema ? schema : "main", SQLITE_FCNTL_DATA_VERSION, &v) == SQLITE_OK
		       ? (int64_t)v : -1;
}

int sqlext_grow(void **p, size_t *cap, size_t n, size_t sz)
{
	void *q;
	size_t c = *cap ? *cap : 16;
	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	if (!(q = sqlite3_realloc64(*p, (sqlite3_uint64)(c * sz))))
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

/* One integer from sql, or 0 when it fails. */
static int64_t vt_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
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
	char *sql = sqlite3_mprintf("PRAGMA \"%w\".user_version", schema);
	int64_t v = sql ? vt_int(db, sql) : 0;
	sqlite3_free(sql);
	if (v)
		return v;
	sql = sqlite3_mprintf("SELECT value FROM \"%w\".meta WHERE key = 'schema_version'", schema);
	v = sql ? vt_int(db, sql) : 0;
	sqlite3_free(sql);
	return v == 2 ? 4 : v;
}

/* 1 when session s's rows of table t are all in readable chunks, else 0. */
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
	const char *rows_sql = c->def->rows_sql, *schema = c->schema ? c->schema : "main";
	char *sql;
	int rc;
	sqlite3_finalize(c->st);
	c->st = NULL;
	c->chunked = kv_complete(c->db, schema, s, c->def->t);
	c->n = c->i = 0;
	c->next_first = 0;
	c->pos = -1;
	c->chunk = 0;
	if (c->bounds_session != s || !c->chunked) {
		c->bounds_session = s;
		c->nbounds = 0;
	}
	if (!c->chunked && c->def->old_rows_sql && vt_version(c->db, schema) < c->def->rows_since)
		rows_sql = c->def->old_rows_sql;
	sql = sqlite3_mprintf(c->chunked ? "SELECT first_row, rows, base_ns, data FROM \"%w\".column_chunks "
			      "WHERE tbl = ?2 AND session_id = ?1 ORDER BY id" : rows_sql, schema);
	if (!sql)
		return sqlext_vt_error(&c->base, SQLITE_NOMEM, "out of memory");
	rc = sqlite3_prepare_v2(c->db, sql, -1, &c->st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return sqlext_vt_error(&c->base, rc, sqlite3_errmsg(c->db));
	sqlite3_bind_int64(c->st, 1, s);
	if (c->chunked)
		sqlite3_bind_text(c->st, 2, colstore_specs[c->def->t].table, -1, SQLITE_STATIC);
	return SQLITE_OK;
}

/* Whether the row c is on is inside c's ranges. */
static int kv_inside(const struct kv_cursor *c)
{
	int64_t start;
	if (!c->ranged)
		return 1;
	start = c->chunked ? c->col[colstore_specs[c->def->t].start_col][c->i] : sqlite3_column_int64(c->st, KV_START - 1);
	return start <= c->start_max &&
	       (c->chunked ? start + c->col[c->def->chunk_col[c->def->end]][c->i]
			   : sqlite3_column_int64(c->st, c->def->end - 1)) >= c->end_min;
}

/* Remember chunk number `chunk`'s smallest start and largest end (decoded in c->col). */
static int kv_bound(struct kv_cursor *c, size_t chunk, size_t rows)
{
	const int64_t *start = c->col[colstore_specs[c->def->t].start_col], *dur = c->col[c->def->chunk_col[c->def->end]];
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i;
	if (chunk != c->nbounds)
		return SQLITE_OK;	/* known, or an earlier one is not: keep the list a prefix */
	for (i = 0; i < rows; i++) {
		if (start[i] < lo)
			lo = start[i];
		if (start[i] + dur[i] > hi)
			hi = start[i] + dur[i];
	}
	if (!(c->nbounds & (c->nbounds + 1))) {	/* 0, 1, 3, 7, ...: grow to twice */
		int64_t (*b)[2] = sqlite3_realloc64(c->bounds, 2 * (c->nbounds + 1) * sizeof(*b));
		if (!b)
			return SQLITE_NOMEM;
		c->bounds = b;
	}
	c->bounds[c->nbounds][0] = lo;
	c->bounds[c->nbounds][1] = hi;
	c->nbounds++;
	return SQLITE_OK;
}

/*
 * Decode the chunk c->st is on into c->col (the used columns). With ranges, a chunk whose rows all fall
 * outside them is skipped (c->n = 0), undecoded when its bounds are known.
 */
static int kv_decode(struct kv_cursor *c)
{
	const struct vt_def *def = c->def;
	const struct colstore_spec *sp = &colstore_specs[def->t];
	int64_t first = sqlite3_column_int64(c->st, 0), rows = sqlite3_column_int64(c->st, 1);
	int64_t base;
	const unsigned char *blob;
	size_t len, chunk = c->chunk++;
	unsigned need = 0, range = 1u << sp->start_col | 1u << def->chunk_col[def->end];
	int k, pass;
	if (!colstore_chunk_follows(c->next_first, first, rows))
		goto damaged;
	c->next_first += rows;
	c->n = 0;
	c->i = 0;
	if (c->ranged && chunk < c->nbounds &&
	    (c->bounds[chunk][0] > c->start_max || c->bounds[chunk][1] < c->end_min))
		return SQLITE_OK;
	base = sqlite3_column_int64(c->st, 2);
	blob = sqlite3_column_blob(c->st, 3);
	len = (size_t)sqlite3_column_bytes(c->st, 3);
	for (k = 1; k < def->ncols; k++)
		if (c->used >> k & 1)
			need |= 1u << def->chunk_col[k];
	if (c->used >> def->end & 1)
		need |= 1u << sp->start_col;
	/* Pass 0 decodes what the ranges test (then the chunk may be skipped), pass 1 the rest. */
	for (pass = c->ranged ? 0 : 1; pass < 2; pass++) {
		for (k = 0; k < sp->ncols; k++) {
			if (!((pass ? need & ~(c->ranged ? range : 0) : range) >> k & 1))
				continue;
			if (!c->col[k] && !(c->col[k] = sqlite3_malloc64(COLSTORE_ROWS * sizeof(int64_t))))
				return SQLITE_NOMEM;
			if (colstore_decode(blob, len, sp->ncols, k, (size_t)rows, k == sp->start_col ? base : 0,
					    c->col[k]))
				goto damaged;
		}
		if (!pass) {
			if (kv_bound(c, chunk, (size_t)rows) != SQLITE_OK)
				return SQLITE_NOMEM;
			if (chunk < c->nbounds &&
			    (c->bounds[chunk][0] > c->start_max || c->bounds[chunk][1] < c->end_min))
				return SQLITE_OK;
		}
	}
	c->n = (size_t)rows;
	return SQLITE_OK;
damaged:
	return kv_error(c, SQLITE_CORRUPT, "%s: column chunks are damaged: `DELETE FROM column_sets` retires them, "
			"`gpuprof-ingest --reindex` rebuilds them", sp->table);
}

/* Go to the next row inside the ranges (of this session, else of the next sessions); c->eof past the last. */
static int kv_advance(struct kv_cursor *c)
{
	int rc;
	for (;;) {
		if (c->chunked && c->i + 1 < c->n) {
			c->i++;
			if (kv_inside(c))
				return SQLITE_OK;
			continue;
		}
		if (c->st) {
			rc = sqlite3_step(c->st);
			if (rc == SQLITE_ROW) {
				if (c->chunked && (rc = kv_decode(c)) != SQLITE_OK)
					return rc;
				if (!c->chunked)
					c->pos++;
				if ((!c->chunked || c->n) && kv_inside(c))
					return SQLITE_OK;
				continue;
			}
			if (rc != SQLITE_DONE)
				return sqlext_vt_error(&c->base, rc, sqlite3_errmsg(c->db));
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

/* sqlext_sessions of a database: every session of schema when eq is NULL. */
static int sessions_in(sqlite3_vtab_cursor *cur, sqlite3 *db, const char *schema, sqlite3_value *eq, int64_t **out,
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
		return sqlext_vt_error(cur, rc, sqlite3_errmsg(db));
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
	return rc == SQLITE_DONE ? SQLITE_OK : sqlext_vt_error(cur, rc, sqlite3_errmsg(db));
}

int sqlext_sessions(sqlite3_vtab_cursor *cur, sqlite3 *db, sqlite3_value *eq, int64_t **out, int *n)
{
	return sessions_in(cur, db, "main", eq, out, n);
}

/* The schema an equality on the hidden column names (KV_SCHEMA), else "main", into *out (sqlite3_mprintf'd). */
static int vt_schema(sqlite3_vtab_cursor *cur, int idx, sqlite3_value **argv, char **out)
{
	const char *s = idx & KV_SCHEMA ? (const char *)sqlite3_value_text(argv[idx & KV_EQ ? 1 : 0]) : "main";
	*out = sqlite3_mprintf("%s", s ? s : "main");
	return *out ? SQLITE_OK : sqlext_vt_error(cur, SQLITE_NOMEM, "out of memory");
}

/*
 * Take the ranges idxstr names (kv_best_index) from their arguments: integers only (SQLite checks the
 * others, and every range again). 0, or 1 when a range admits no row.
 */
static int kv_ranges(struct kv_cursor *c, const char *idxstr, sqlite3_value **argv)
{
	c->ranged = 0;
	c->start_max = INT64_MAX;
	c->end_min = INT64_MIN;
	for (; idxstr && *idxstr; idxstr++, argv++) {
		int64_t x;
		if (sqlite3_value_numeric_type(*argv) != SQLITE_INTEGER)
			continue;
		x = sqlite3_value_int64(*argv);
		if ((*idxstr == 'a' && x == INT64_MIN) || (*idxstr == 'c' && x == INT64_MAX))
			return 1;
		if (*idxstr <= 'b') {
			x -= *idxstr == 'a';		/* start < x: start <= x - 1 */
			if (x < c->start_max)
				c->start_max = x;
		} else {
			x += *idxstr == 'c';		/* end > x: end >= x + 1 */
			if (x > c->end_min)
				c->end_min = x;
		}
		c->ranged = 1;
	}
	if (c->ranged)
		c->used |= 1u << KV_START | 1u << c->def->end;	/* kv_inside reads them */
	return 0;
}

static int kv_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct kv_cursor *c = (struct kv_cursor *)cur;
	int rc;
	(void)argc;
	kv_reset(c);
	c->used = ((unsigned)idx >> 1 & KV_USED) & ((1u << c->def->ncols) - 1);
	c->eof = 0;
	if ((rc = vt_schema(cur, idx, argv, &c->schema)) != SQLITE_OK)
		return rc;
	if (kv_ranges(c, idxstr, argv + (idx & KV_EQ) + (idx & KV_SCHEMA ? 1 : 0))) {
		c->eof = 1;
		return SQLITE_OK;
	}
	rc = sessions_in(cur, c->db, c->schema, idx & KV_EQ ? argv[0] : NULL, &c->sessions, &c->nsessions);
	if (rc != SQLITE_OK || !c->nsessions) {
		c->eof = 1;
		return rc;
	}
	return kv_advance(c);
}

static int kv_next(sqlite3_vtab_cursor *cur)
{
	return kv_advance((struct kv_cursor *)cur);
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
	int64_t v;
	if (k == c->def->ncols) {	/* the hidden schema column */
		sqlite3_result_text(ctx, c->schema, -1, SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
	v = kv_value(c, k);
	if (k < c->def->nullable || v != INT64_MIN)
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

void sqlext_session_reset(struct session_cursor *c)
{
	sqlite3_free(c->sessions);
	c->sessions = NULL;
	c->nsessions = c->at = 0;
	c->n = c->i = 0;
}

/* Go to the next row (of this session, else of the next sessions with rows); first: at the first. */
static int session_advance(struct session_cursor *c, int first)
{
	int rc;
	while (c->i >= c->n) {
		if (!first)
			c->at++;
		first = 0;
		c->n = c->i = 0;
		if (c->at >= c->nsessions) {
			c->eof = 1;
			return SQLITE_OK;
		}
		if ((rc = c->load(c)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

int sqlext_session_filter(struct session_cursor *c, sqlite3_value *eq)
{
	int rc;
	sqlext_session_reset(c);
	c->eof = 0;
	rc = sqlext_sessions(&c->base, sqlext_vt_db(&c->base), eq, &c->sessions, &c->nsessions);
	if (rc != SQLITE_OK || !c->nsessions) {
		c->eof = 1;
		return rc;
	}
	return session_advance(c, 1);
}

int sqlext_session_next(sqlite3_vtab_cursor *cur)
{
	struct session_cursor *c = (struct session_cursor *)cur;
	c->i++;
	return session_advance(c, 0);
}

int sqlext_session_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct session_cursor *)cur)->eof;
}

int sqlext_session_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct session_cursor *c = (struct session_cursor *)cur;
	*rowid = (sqlite3_int64)c->at << 32 | (sqlite3_int64)c->i;
	return SQLITE_OK;
}

/* The row's position among its session's rows (table order), plus the session's index in the scan << 40. */
static int kv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct kv_cursor *c = (struct kv_cursor *)cur;
	*rowid = (sqlite3_int64)c->at << 40 | (c->chunked ? c->next_first - (int64_t)c->n + (int64_t)c->i : c->pos);
	return SQLITE_OK;
}

static sqlite3_module kv_module = {
	.iVersion = 0,
	.xCreate = NULL,	/* eponymous only: CREATE VIRTUAL TABLE is refused */
	.xConnect = sqlext_vt_connect,
	.xBestIndex = sqlext_vt_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
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
 * times the time (README "With sqlite3"). The statistics are analyze/ext/dstats.c's, as median's and the analyses'.
 *
 * Grouped by other keys: `WHERE keys = 'T'` names a table or view T (`schema.name` or `name`) of columns
 * (id, key) that maps name ids to keys; then a row is a key's, name_id holds the key and the statistics are
 * of all the durations of the names mapped to it (names T lacks are left out): what
 * `... FROM kernel_columns k JOIN T ON T.id = k.name_id GROUP BY k.session_id, T.key` gives (a family of
 * names with --short or --group, whose median needs every duration of every name in it).
 */
enum { KS_SESSION, KS_NAME, KS_CALLS, KS_TOTAL, KS_AVG, KS_MED, KS_MIN, KS_MAX, KS_STDDEV, KS_COUNT };
#define KS_SCHEMA KS_COUNT		/* the hidden columns */
#define KS_KEYS (KS_COUNT + 1)
#define KS_KEYED (1 << 23)		/* idxNum: an equality on keys, the last argument */

/*
 * Only its schema and table: kernel_stats reads kernel_columns' cursor (kernel_def), api_stats, the same
 * statistics of the API calls by name, api_columns' (call_def; the api analysis reads it).
 */
static const struct vt_def stats_def = {
	.t = CS_KERNELS,
	.schema = "CREATE TABLE x(session_id INTEGER, name_id INTEGER, calls INTEGER, total_ns INTEGER, "
		  "avg_ns REAL, med_ns REAL, min_ns INTEGER, max_ns INTEGER, stddev_ns REAL, schema TEXT HIDDEN, "
		  "keys TEXT HIDDEN)",
	.ncols = KS_COUNT,
};
static const struct vt_def api_stats_def = {
	.t = CS_CALLS,
	.schema = "CREATE TABLE x(session_id INTEGER, name_id INTEGER, calls INTEGER, total_ns INTEGER, "
		  "avg_ns REAL, med_ns REAL, min_ns INTEGER, max_ns INTEGER, stddev_ns REAL, schema TEXT HIDDEN, "
		  "keys TEXT HIDDEN)",
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
	char *keys;		/* the keys table named, or NULL: by name id; sqlite3_mprintf'd */
	int64_t (*map)[2];	/* its (id, key) rows by id, distinct ids; sqlite3_malloc64'd */
	size_t nmap;
};

static int ks_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct ks_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->db = ((struct sqlext_vtab *)v)->db;
	*out = &c->base;
	return SQLITE_OK;
}

static void ks_reset(struct ks_cursor *c)
{
	sqlite3_free(c->sessions);
	sqlite3_free(c->rows);
	sqlite3_free(c->schema);
	sqlite3_free(c->keys);
	sqlite3_free(c->map);
	c->schema = c->keys = NULL;
	c->map = NULL;
	c->nmap = 0;
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

/*
 * Session s of schema as the table def reads it (kernel_columns, api_columns), in batches to each: the
 * columns `used` names (bit per column number; not session_id). sqlext_kernels without the cache.
 */
static int table_read(sqlite3_vtab *vt, sqlite3 *db, const struct vt_def *def, const char *schema, int64_t s,
		      unsigned used, sqlext_batch_fn *each, void *arg)
{
	struct kv_cursor k;
	int64_t *buf[KC_COUNT] = { NULL };
	const int64_t *col[KC_COUNT];
	size_t nbuf = 0;
	int rc, j;
	memset(&k, 0, sizeof(k));
	k.base.pVtab = vt;
	k.db = db;
	k.def = def;
	k.used = used & ~(1u << KV_SESSION) & ((1u << def->ncols) - 1);
	k.sessions = &s;
	k.nsessions = 1;
	k.schema = (char *)schema;	/* not the cursor's: put back before kv_reset */
	for (rc = kv_advance(&k); rc == SQLITE_OK && !k.eof; rc = kv_advance(&k)) {
		if (k.chunked) {	/* a chunk's rows at once */
			size_t n = k.n - k.i, i;
			for (j = 0; j < KC_COUNT; j++)
				col[j] = j < def->ncols && k.used >> j & 1 && j != def->end ? k.col[def->chunk_col[j]] + k.i
											     : NULL;
			if (k.used >> def->end & 1) {	/* start + duration */
				const int64_t *st = k.col[colstore_specs[def->t].start_col] + k.i;
				const int64_t *dur = k.col[def->chunk_col[def->end]] + k.i;
				if (!buf[def->end] && !(buf[def->end] = sqlite3_malloc64(COLSTORE_ROWS * sizeof(int64_t)))) {
					rc = sqlext_vt_error(&k.base, SQLITE_NOMEM, "out of memory");
					goto out;
				}
				for (i = 0; i < n; i++)
					buf[def->end][i] = st[i] + dur[i];
				col[def->end] = buf[def->end];
			}
			if ((rc = each(arg, col, n)))
				break;
			k.i = k.n - 1;
			continue;
		}
		/* Rows, gathered into batches as big as a chunk. */
		for (j = 0; j < KC_COUNT; j++) {
			col[j] = NULL;
			if (!(k.used >> j & 1))
				continue;
			if (!buf[j] && !(buf[j] = sqlite3_malloc64(COLSTORE_ROWS * sizeof(int64_t)))) {
				rc = sqlext_vt_error(&k.base, SQLITE_NOMEM, "out of memory");
				goto out;
			}
			buf[j][nbuf] = kv_value(&k, j);
			col[j] = buf[j];
		}
		if (++nbuf == COLSTORE_ROWS) {
			if ((rc = each(arg, col, nbuf)))
				break;
			nbuf = 0;
		}
	}
	if (rc == SQLITE_OK && nbuf) {
		for (j = 0; j < KC_COUNT; j++)
			col[j] = buf[j];
		rc = each(arg, col, nbuf);
	}
out:
	for (j = 0; j < KC_COUNT; j++)
		sqlite3_free(buf[j]);
	k.sessions = NULL;	/* s, not the cursor's */
	k.schema = NULL;
	kv_reset(&k);
	return rc;
}

/*
 * ---- what a connection may keep: one session's kernel columns, for the next table that reads them ----
 *
 * A report asks kernel_stats, gpu_busy, kernel_busy and the ranges' windows of one session: each would
 * decode the millions of kernels of the column chunks again. With gpuprof_kernel_cache(1) a connection
 * keeps the columns it read (those asked, and KC_KEPT; a later read that asks for more decodes only
 * those) while the database file stays as it was: the same session and sqlext_data_version (any commit
 * to main, this connection's or another's; the TEMP tables the analyses write leave it).
 *
 * Kept narrow: the rows in blocks as they were read (a chunk each), each column of a block as its least
 * value and every value's offset from it in the fewest of 0, 1, 2 or 4 bytes that hold them all (8: the
 * values themselves). Ids, devices and streams take a byte or two, times within a chunk four: on the
 * 5M-kernel bench session the seven columns a report keeps take 80 MB (16 bytes a kernel; 280 MB as
 * int64 arrays, which the report's peak memory was), widened a block at a time as they are given. end_ns
 * is not kept: it is start_ns + dur_ns, as the chunks have it. Off by default.
 */
#define KC_KEPT (1u << KC_DEV | 1u << KC_STREAM | 1u << KC_NAME | 1u << KC_START | 1u << KC_DUR)

/* One column of a block: value i is base + the unsigned offset data[i] of `width` bytes (0: base itself). */
struct kcol {
	int64_t base;
	unsigned char width;	/* 0, 1, 2, 4; 8: data holds the values */
	void *data;		/* sqlite3_malloc64'd; NULL when width is 0 */
};

/* Rows of the session as one read gave them, consecutive. */
struct kblock {
	size_t n;
	struct kcol col[KC_COUNT];	/* those in kcache.cols */
};

struct kcache {
	sqlite3 *db;
	int on;			/* gpuprof_kernel_cache(1) */
	int64_t key[2];		/* session, sqlext_data_version of main */
	unsigned cols;		/* the columns held (bit 1 << KC_*; never KC_END); 0: nothing held */
	size_t n;		/* rows held */
	struct kblock *blocks;	/* sqlite3_realloc64'd */
	size_t nblocks, ablocks;
	struct kcache *next;
};

/* Every connection's, found by its connection (the caches are few: one per open connection). */
static struct kcache *kcaches;

static sqlite3_mutex *kcache_mutex(void)
{
	return sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
}

static void kcache_empty(struct kcache *c)
{
	size_t b;
	int j;
	for (b = 0; b < c->nblocks; b++)
		for (j = 0; j < KC_COUNT; j++)
			sqlite3_free(c->blocks[b].col[j].data);
	sqlite3_free(c->blocks);
	c->blocks = NULL;
	c->nblocks = c->ablocks = 0;
	c->cols = 0;
	c->n = 0;
}

/* v[0..n) into k, as narrow as they allow; SQLITE_OK or SQLITE_NOMEM (k then holds nothing). */
static int kcol_set(struct kcol *k, const int64_t *v, size_t n)
{
	int64_t lo = n ? v[0] : 0, hi = lo;
	uint64_t range;
	size_t i;
	sqlite3_free(k->data);
	k->data = NULL;
	for (i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	range = (uint64_t)hi - (uint64_t)lo;
	k->base = lo;
	k->width = range == 0 ? 0 : range <= UINT8_MAX ? 1 : range <= UINT16_MAX ? 2 : range <= UINT32_MAX ? 4 : 8;
	if (!k->width)
		return SQLITE_OK;
	if (!(k->data = sqlite3_malloc64(n * k->width))) {
		k->width = 0;
		return SQLITE_NOMEM;
	}
	switch (k->width) {
	case 1:
		for (i = 0; i < n; i++)
			((uint8_t *)k->data)[i] = (uint8_t)((uint64_t)v[i] - (uint64_t)lo);
		break;
	case 2:
		for (i = 0; i < n; i++)
			((uint16_t *)k->data)[i] = (uint16_t)((uint64_t)v[i] - (uint64_t)lo);
		break;
	case 4:
		for (i = 0; i < n; i++)
			((uint32_t *)k->data)[i] = (uint32_t)((uint64_t)v[i] - (uint64_t)lo);
		break;
	default:
		k->base = 0;
		memcpy(k->data, v, n * sizeof(int64_t));
	}
	return SQLITE_OK;
}

/* The n values of k into out[n]. */
static void kcol_get(const struct kcol *k, int64_t *out, size_t n)
{
	uint64_t base = (uint64_t)k->base;
	size_t i;
	switch (k->width) {
	case 0:
		for (i = 0; i < n; i++)
			out[i] = k->base;
		break;
	case 1:
		for (i = 0; i < n; i++)
			out[i] = (int64_t)(base + ((const uint8_t *)k->data)[i]);
		break;
	case 2:
		for (i = 0; i < n; i++)
			out[i] = (int64_t)(base + ((const uint16_t *)k->data)[i]);
		break;
	case 4:
		for (i = 0; i < n; i++)
			out[i] = (int64_t)(base + ((const uint32_t *)k->data)[i]);
		break;
	default:
		memcpy(out, k->data, n * sizeof(int64_t));
	}
}

static struct kcache *kcache_find(sqlite3 *db)
{
	struct kcache *c;
	sqlite3_mutex_enter(kcache_mutex());
	for (c = kcaches; c && c->db != db; c = c->next)
		;
	sqlite3_mutex_leave(kcache_mutex());
	return c;
}

/* gpuprof_kernel_cache's user data is let go (its connection closes): the cache goes with it. */
static void kcache_free(void *p)
{
	struct kcache *c = p, **pp;
	sqlite3_mutex_enter(kcache_mutex());
	for (pp = &kcaches; *pp && *pp != c; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = c->next;
	sqlite3_mutex_leave(kcache_mutex());
	kcache_empty(c);
	sqlite3_free(c);
}

/*
 * gpuprof_data_version(): sqlext_data_version of main, what the connection's caches are keyed by (-1 when
 * unknown): the analyses key the TEMP tables they keep between them by it too (analyze/comm.sql).
 */
static void sql_data_version(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	sqlite3_result_int64(ctx, sqlext_data_version(sqlite3_context_db_handle(ctx), "main"));
}

/* gpuprof_kernel_cache([on]): turn keeping on (1) or off (0, emptied); the kernels kept now. */
static void sql_kernel_cache(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct kcache *c = sqlite3_user_data(ctx);
	if (argc && sqlite3_value_type(argv[0]) != SQLITE_NULL) {
		c->on = sqlite3_value_int(argv[0]) != 0;
		if (!c->on)
			kcache_empty(c);
	}
	sqlite3_result_int64(ctx, (sqlite3_int64)c->n);
}

/*
 * gpuprof_kernel_cache_bytes(): the bytes the kept columns take (their offsets; what the blocks and their
 * bases add is not counted), for the tests that hold the cache narrow.
 */
static void sql_kernel_cache_bytes(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct kcache *c = sqlite3_user_data(ctx);
	sqlite3_int64 bytes = 0;
	size_t b;
	int j;
	(void)argc;
	(void)argv;
	for (b = 0; b < c->nblocks; b++)
		for (j = 0; j < KC_COUNT; j++)
			bytes += (sqlite3_int64)(c->blocks[b].n * c->blocks[b].col[j].width);
	sqlite3_result_int64(ctx, bytes);
}

static int kcache_register(sqlite3 *db)
{
	struct kcache *c = sqlite3_malloc(sizeof(*c));
	int rc;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->db = db;
	sqlite3_mutex_enter(kcache_mutex());
	c->next = kcaches;
	kcaches = c;
	sqlite3_mutex_leave(kcache_mutex());
	/* The function owns the cache: freed when the connection closes, or at once when this fails. */
	rc = sqlite3_create_function_v2(db, "gpuprof_kernel_cache", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, c,
					sql_kernel_cache, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		kcache_free(c);
		return rc;
	}
	rc = sqlite3_create_function_v2(db, "gpuprof_kernel_cache", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, c,
					sql_kernel_cache, NULL, NULL, kcache_free);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_create_function(db, "gpuprof_kernel_cache_bytes", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, c,
				     sql_kernel_cache_bytes, NULL, NULL);
	if (rc != SQLITE_OK)
		return rc;
	return sqlite3_create_function(db, "gpuprof_data_version", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
				       sql_data_version, NULL, NULL);
}

/* Keeping a read: the caller's callback, and the batches kept as blocks or added to them. */
struct kcache_fill {
	struct kcache *c;
	sqlext_batch_fn *each;
	void *arg;
	int stopped;		/* the caller stopped: what is kept is partial */
	unsigned adding;	/* columns read into the kept blocks (each is NULL); 0: blocks appended */
	size_t block;		/* adding: the next block to fill */
};

/*
 * Adding columns to the kept blocks: batch n's values into block `block`. A read of the same session at
 * the same data version gives the same batches (its chunks, or rows gathered COLSTORE_ROWS at a time),
 * so each batch is the next block whole; SQLITE_ERROR when it is not (the rows changed).
 */
static int kcache_add(struct kcache_fill *f, const int64_t *const *col, size_t n)
{
	struct kblock *b;
	int j, rc;
	if (f->block == f->c->nblocks || f->c->blocks[f->block].n != n)
		return n ? SQLITE_ERROR : SQLITE_OK;
	b = &f->c->blocks[f->block++];
	for (j = 0; j < KC_COUNT; j++)
		if (f->adding >> j & 1 && (rc = kcol_set(&b->col[j], col[j], n)) != SQLITE_OK)
			return rc;
	return SQLITE_OK;
}

static int kcache_take(void *arg, const int64_t *const *col, size_t n)
{
	struct kcache_fill *f = arg;
	struct kcache *c = f->c;
	struct kblock *b;
	int j, rc;
	if (f->adding)
		return kcache_add(f, col, n);
	if (n > COLSTORE_ROWS)
		return SQLITE_ERROR;	/* (batches are chunks, or rows gathered as big as one) */
	if (n) {
		if (sqlext_grow((void **)&c->blocks, &c->ablocks, c->nblocks + 1, sizeof(*c->blocks)))
			return SQLITE_NOMEM;
		b = &c->blocks[c->nblocks++];
		memset(b, 0, sizeof(*b));
		b->n = n;
		for (j = 0; j < KC_COUNT; j++)
			if (c->cols >> j & 1 && (rc = kcol_set(&b->col[j], col[j], n)) != SQLITE_OK)
				return rc;
		c->n += n;
	}
	if ((rc = f->each(f->arg, col, n)))
		f->stopped = 1;
	return rc;
}

/* The kept rows' columns `used` names (KC_END made from start and duration), a block at a time to each. */
static int kcache_give(struct kcache *c, unsigned used, sqlext_batch_fn *each, void *arg)
{
	unsigned widen = used & ~(1u << KC_END);	/* the kept columns widened for each block */
	int64_t *buf[KC_COUNT] = { NULL };
	const int64_t *col[KC_COUNT];
	size_t b, i;
	int rc = SQLITE_OK, j;
	if (used >> KC_END & 1)
		widen |= 1u << KC_START | 1u << KC_DUR;
	for (j = 0; j < KC_COUNT; j++)
		if ((widen | used) >> j & 1 && !(buf[j] = sqlite3_malloc64(COLSTORE_ROWS * sizeof(int64_t))))
			rc = SQLITE_NOMEM;
	for (b = 0; rc == SQLITE_OK && b < c->nblocks; b++) {
		const struct kblock *k = &c->blocks[b];
		for (j = 0; j < KC_COUNT; j++)
			if (widen >> j & 1)
				kcol_get(&k->col[j], buf[j], k->n);
		if (used >> KC_END & 1)
			for (i = 0; i < k->n; i++)
				buf[KC_END][i] = buf[KC_START][i] + buf[KC_DUR][i];
		for (j = 0; j < KC_COUNT; j++)
			col[j] = used >> j & 1 ? buf[j] : NULL;
		rc = each(arg, col, k->n);
	}
	for (j = 0; j < KC_COUNT; j++)
		sqlite3_free(buf[j]);
	return rc;
}

/* How many rows of table tbl session s has in schema's column chunks (0 where it has none). */
static int64_t chunked_rows(sqlite3 *db, const char *schema, const char *tbl, int64_t s)
{
	char *sql = sqlite3_mprintf("SELECT coalesce(sum(rows), 0) FROM \"%w\".column_sets WHERE tbl = %Q "
				    "AND session_id = %lld", schema ? schema : "main", tbl, (long long)s);
	int64_t rows = sql ? vt_int(db, sql) : 0;
	sqlite3_free(sql);
	return rows;
}

/* rc, with what on vt. */
static int kcache_fail(sqlite3_vtab *vt, int rc, const char *what)
{
	sqlite3_free(vt->zErrMsg);
	vt->zErrMsg = sqlite3_mprintf("%s", what);
	return rc;
}

/* Nothing to do with a batch (reading columns into the kept rows). */
static int batch_ignore(void *arg, const int64_t *const *col, size_t n)
{
	(void)arg, (void)col, (void)n;
	return SQLITE_OK;
}

int sqlext_kernels(sqlite3_vtab *vt, sqlite3 *db, int64_t s, unsigned used, sqlext_batch_fn *each, void *arg)
{
	struct kcache *c = kcache_find(db);
	struct kcache_fill f;
	int64_t key[2];
	int rc;
	used &= ~(1u << KC_SESSION);
	if (!c || !c->on)
		return table_read(vt, db, &kernel_def, "main", s, used, each, arg);
	key[0] = s;
	key[1] = sqlext_data_version(db, "main");
	memset(&f, 0, sizeof(f));
	f.c = c;
	if (c->cols && !memcmp(key, c->key, sizeof(key)) && key[1] >= 0) {
		/* Kept: decode only the columns that are not (a read of those alone), then give them. */
		f.adding = used & ~c->cols & ~(1u << KC_END);
		if (f.adding) {
			f.each = batch_ignore;
			rc = table_read(vt, db, &kernel_def, "main", s, f.adding, kcache_take, &f);
			if (rc != SQLITE_OK || f.block != c->nblocks) {
				kcache_empty(c);
				if (rc == SQLITE_NOMEM)
					return kcache_fail(vt, rc, "out of memory");
				if (rc != SQLITE_OK && (vt->zErrMsg || rc != SQLITE_ERROR))
					return rc;
				return kcache_fail(vt, SQLITE_ERROR, "kernel rows changed while read");
			}
			c->cols |= f.adding;
		}
		return kcache_give(c, used, each, arg);
	}
	kcache_empty(c);
	memcpy(c->key, key, sizeof(key));
	c->cols = (used | KC_KEPT) & ~(1u << KC_END);
	f.each = each;
	f.arg = arg;
	rc = table_read(vt, db, &kernel_def, "main", s, c->cols | (used & 1u << KC_END), kcache_take, &f);
	if (rc != SQLITE_OK || f.stopped)
		kcache_empty(c);
	if (rc == SQLITE_NOMEM && !f.stopped && !vt->zErrMsg)
		vt->zErrMsg = sqlite3_mprintf("out of memory");
	return rc;
}

int sqlext_read(sqlite3_vtab *vt, sqlite3 *db, const char *schema, int64_t s, int calls, unsigned used,
		sqlext_batch_fn *each, void *arg)
{
	if (!calls && (!schema || !strcmp(schema, "main")))
		return sqlext_kernels(vt, db, s, used, each, arg);	/* kept, or kept now */
	return table_read(vt, db, calls ? &call_def : &kernel_def, schema ? schema : "main", s, used, each, arg);
}

/* Name ids and durations of a session's kernels (or calls), as kernel_stats (api_stats) gathers them. */
struct ks_load {
	int64_t *name, *dur;	/* sqlite3_realloc64'd */
	size_t n, alloc;
	int name_col, dur_col;	/* in the batches: kernel_columns' or api_columns' */
};

static int ks_take(void *arg, const int64_t *const *col, size_t n)
{
	struct ks_load *l = arg;
	if (l->n + n > l->alloc) {
		int64_t *a, *b;
		l->alloc = 2 * (l->n + n) + 1024;
		if ((a = sqlite3_realloc64(l->name, l->alloc * sizeof(int64_t))))
			l->name = a;
		if ((b = sqlite3_realloc64(l->dur, l->alloc * sizeof(int64_t))))
			l->dur = b;
		if (!a || !b)
			return SQLITE_NOMEM;
	}
	memcpy(l->name + l->n, col[l->name_col], n * sizeof(int64_t));
	memcpy(l->dur + l->n, col[l->dur_col], n * sizeof(int64_t));
	l->n += n;
	return SQLITE_OK;
}

/* Session s's kernels as name ids and durations into *name, *dur (*n; sqlite3_malloc64'd). */
static int ks_load(struct ks_cursor *c, int64_t s, int64_t **name, int64_t **dur, size_t *n)
{
	int calls = ((const struct vt_def *)((struct sqlext_vtab *)c->base.pVtab)->def)->t == CS_CALLS;
	struct ks_load l = { NULL, NULL, 0, 0, calls ? SX_NAME_CALL : KC_NAME, calls ? SX_DUR_CALL : KC_DUR };
	int64_t rows = chunked_rows(c->db, c->schema, calls ? "api_calls" : "kernels", s);
	int rc;
	/* Sized once when the chunks say how many kernels there are (growing 40 MB arrays costs more). */
	if (rows > 0 && (l.name = sqlite3_malloc64((size_t)rows * sizeof(int64_t))) &&
	    (l.dur = sqlite3_malloc64((size_t)rows * sizeof(int64_t))))
		l.alloc = (size_t)rows;
	rc = sqlext_read(c->base.pVtab, c->db, c->schema, s, calls, 1u << l.name_col | 1u << l.dur_col, ks_take, &l);
	if (rc == SQLITE_NOMEM)
		rc = sqlext_vt_error(&c->base, rc, "out of memory");
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

static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

int sqlext_keys_find(const int64_t (*map)[2], size_t n, int64_t id, int64_t *key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (map[mid][0] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && map[lo][0] == id) {
		*key = map[lo][1];
		return 1;
	}
	return 0;
}

/*
 * ---- what kernel_stats keeps: a session's durations grouped by name ----
 *
 * Grouping decodes the session's kernels (two columns) and sorts them by name; a connection keeps the
 * result for the last KS_KEPT (schema, session) pairs while the database file is unchanged (its
 * sqlext_data_version), so that the next scan, by names or by other keys (hotspots --short asks the
 * names, then the families, then the total), groups again without decoding. It holds 8 bytes a kernel
 * (its duration; 40 MB for 5M kernels) and a row per name, per kept session, until the connection
 * closes. The kept durations of a name are in no particular order (stats_of reorders them).
 */
#define KS_KEPT 2

struct ks_kept {
	char *schema;		/* NULL: an empty slot; sqlite3_malloc'd */
	int64_t session, version;
	int64_t *dur;		/* every duration, a name's together, names by id */
	size_t n;
	struct dstats *rows;	/* per name, by id: its statistics; its durations are dur[at[i]..at[i+1]) */
	size_t *at;		/* nrows + 1 */
	size_t nrows;
	unsigned age;
};

struct ks_vtab {
	struct sqlext_vtab base;
	struct ks_kept kept[KS_KEPT];
	unsigned clock;
};

static void ks_kept_free(struct ks_kept *k)
{
	sqlite3_free(k->schema);
	sqlite3_free(k->dur);
	sqlite3_free(k->rows);
	sqlite3_free(k->at);
	memset(k, 0, sizeof(*k));
}

static int ks_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	struct ks_vtab *v;
	int rc;
	(void)argc;
	(void)argv;
	(void)err;
	if ((rc = sqlite3_declare_vtab(db, ((const struct vt_def *)aux)->schema)) != SQLITE_OK)
		return rc;
	if (!(v = sqlite3_malloc(sizeof(*v))))
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->base.db = db;
	v->base.def = aux;
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*out = &v->base.base;
	return SQLITE_OK;
}

static int ks_disconnect(sqlite3_vtab *vt)
{
	struct ks_vtab *v = (struct ks_vtab *)vt;
	int i;
	for (i = 0; i < KS_KEPT; i++)
		ks_kept_free(&v->kept[i]);
	sqlite3_free(v);
	return SQLITE_OK;
}

/*
 * Group n durations by name id into k (dur, rows, at; name and dur are consumed: freed here, whatever
 * happens): a counting sort when the ids are small (strings.id), else pairs sorted. SQLITE_OK or NOMEM.
 */
static int ks_group(struct ks_kept *k, int64_t *name, int64_t *dur, size_t n)
{
	int64_t *pair = NULL, *sorted = NULL, maxname = 0;
	size_t i, j, groups = 0, *at = NULL;
	int rc = SQLITE_NOMEM;
	for (i = 0; i < n; i++)
		if (name[i] < 0 || name[i] > maxname)
			maxname = name[i] < 0 ? INT64_MAX : name[i];
	if (!(sorted = sqlite3_malloc64((n ? n : 1) * sizeof(int64_t))))
		goto out;
	if (maxname < (int64_t)(4 * n + 65536)) {
		size_t sum = 0;
		if (!(at = sqlite3_malloc64(((size_t)maxname + 2) * sizeof(size_t))))
			goto out;
		memset(at, 0, ((size_t)maxname + 2) * sizeof(size_t));
		for (i = 0; i < n; i++)
			at[name[i]]++;
		for (j = 0; j <= (size_t)maxname; j++) {
			size_t c = at[j];
			groups += c > 0;
			at[j] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			sorted[at[name[i]]++] = dur[i];
		/* at[j] is now the end of name j's durations. */
		if (!(k->rows = sqlite3_malloc64((groups ? groups : 1) * sizeof(*k->rows))) ||
		    !(k->at = sqlite3_malloc64((groups + 1) * sizeof(size_t))))
			goto out;
		k->at[0] = 0;
		for (j = 0, i = 0; j <= (size_t)maxname; i = at[j++])
			if (at[j] > i) {
				k->rows[k->nrows].key = (int64_t)j;
				k->at[++k->nrows] = at[j];
			}
	} else {
		if (!(pair = sqlite3_malloc64(2 * n * sizeof(int64_t))))
			goto out;
		for (i = 0; i < n; i++) {
			pair[2 * i] = name[i];
			pair[2 * i + 1] = dur[i];
		}
		qsort(pair, n, 2 * sizeof(int64_t), cmp_pair);
		for (i = 0; i < n; i++) {
			groups += !i || pair[2 * i] != pair[2 * i - 2];
			sorted[i] = pair[2 * i + 1];
		}
		if (!(k->rows = sqlite3_malloc64((groups ? groups : 1) * sizeof(*k->rows))) ||
		    !(k->at = sqlite3_malloc64((groups + 1) * sizeof(size_t))))
			goto out;
		k->at[0] = 0;
		for (i = 0; i < n; i = j) {
			for (j = i; j < n && pair[2 * j] == pair[2 * i]; j++)
				;
			k->rows[k->nrows].key = pair[2 * i];
			k->at[++k->nrows] = j;
		}
	}
	for (i = 0; i < k->nrows; i++) {
		int64_t key = k->rows[i].key;
		stats_of(sorted + k->at[i], k->at[i + 1] - k->at[i], &k->rows[i]);
		k->rows[i].key = key;
	}
	k->dur = sorted;
	k->n = n;
	sorted = NULL;
	rc = SQLITE_OK;
out:
	sqlite3_free(name);
	sqlite3_free(dur);
	sqlite3_free(pair);
	sqlite3_free(sorted);
	sqlite3_free(at);
	return rc;
}

/* Session sessions[at]'s durations grouped by name: kept, or read and kept now (*out). */
static int ks_grouped(struct ks_cursor *c, const struct ks_kept **out)
{
	struct ks_vtab *v = (struct ks_vtab *)c->base.pVtab;
	int64_t s = c->sessions[c->at], version = sqlext_data_version(c->db, c->schema), *name, *dur;
	struct ks_kept *k = &v->kept[0];
	size_t n;
	int i, rc;
	for (i = 0; i < KS_KEPT; i++)
		if (v->kept[i].schema && version >= 0 && v->kept[i].session == s && v->kept[i].version == version &&
		    !strcmp(v->kept[i].schema, c->schema)) {
			v->kept[i].age = ++v->clock;
			*out = &v->kept[i];
			return SQLITE_OK;
		}
	for (i = 1; i < KS_KEPT; i++)	/* an empty slot, else the oldest */
		if (k->schema && (!v->kept[i].schema || v->kept[i].age < k->age))
			k = &v->kept[i];
	ks_kept_free(k);
	if ((rc = ks_load(c, s, &name, &dur, &n)) != SQLITE_OK)
		return rc;
	if ((rc = ks_group(k, name, dur, n)) != SQLITE_OK || !(k->schema = sqlite3_mprintf("%s", c->schema))) {
		ks_kept_free(k);
		return sqlext_vt_error(&c->base, SQLITE_NOMEM, "out of memory");
	}
	k->session = s;
	k->version = version;
	k->age = ++v->clock;
	*out = k;
	return SQLITE_OK;
}

/* A name of the kept grouping with its key, for grouping by keys. */
struct ks_keyed {
	int64_t key;
	size_t row;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct ks_keyed *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key ? 1 : x->row < y->row ? -1 : x->row > y->row;
}

/* The statistics of session sessions[at]'s names (or keys) into c->rows. */
static int ks_session(struct ks_cursor *c)
{
	const struct ks_kept *k;
	struct ks_keyed *keyed = NULL;
	int64_t *buf = NULL;
	size_t i, j, nk = 0, groups = 0;
	int rc;
	sqlite3_free(c->rows);
	c->rows = NULL;
	c->nrows = c->i = 0;
	if ((rc = ks_grouped(c, &k)) != SQLITE_OK || !k->nrows)
		return rc;
	if (!c->keys) {	/* by name: the kept rows */
		if (!(c->rows = sqlite3_malloc64(k->nrows * sizeof(*c->rows))))
			return sqlext_vt_error(&c->base, SQLITE_NOMEM, "out of memory");
		memcpy(c->rows, k->rows, k->nrows * sizeof(*c->rows));
		c->nrows = k->nrows;
		return SQLITE_OK;
	}
	/* By key: the names the map has, by key; a key's durations are its names' together. */
	if (!(keyed = sqlite3_malloc64(k->nrows * sizeof(*keyed))))
		goto nomem;
	for (i = 0; i < k->nrows; i++)
		if (sqlext_keys_find((const int64_t (*)[2])c->map, c->nmap, k->rows[i].key, &keyed[nk].key))
			keyed[nk++].row = i;
	if (!nk)
		goto out;
	qsort(keyed, nk, sizeof(*keyed), cmp_keyed);
	for (i = 0; i < nk; i++)
		groups += !i || keyed[i].key != keyed[i - 1].key;
	if (!(c->rows = sqlite3_malloc64(groups * sizeof(*c->rows))) ||
	    !(buf = sqlite3_malloc64((k->n ? k->n : 1) * sizeof(int64_t))))
		goto nomem;
	for (i = 0; i < nk; i = j) {
		size_t len = 0;
		for (j = i; j < nk && keyed[j].key == keyed[i].key; j++) {
			size_t r = keyed[j].row, m = k->at[r + 1] - k->at[r];
			memcpy(buf + len, k->dur + k->at[r], m * sizeof(int64_t));
			len += m;
		}
		stats_of(buf, len, &c->rows[c->nrows]);
		c->rows[c->nrows++].key = keyed[i].key;
	}
out:
	sqlite3_free(keyed);
	sqlite3_free(buf);
	return SQLITE_OK;
nomem:
	sqlite3_free(keyed);
	sqlite3_free(buf);
	return sqlext_vt_error(&c->base, SQLITE_NOMEM, "out of memory");
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

static int cmp_id(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1];
}

int sqlext_keys_read(sqlite3_vtab_cursor *cur, sqlite3 *db, const char *who, const char *t, int64_t (**map)[2],
		     size_t *n)
{
	const char *dot = t ? strchr(t, '.') : NULL;
	sqlite3_stmt *st = NULL;
	size_t alloc = 0, i;
	char *sql, *m;
	int rc;
	*map = NULL;
	*n = 0;
	if (!t) {
		m = sqlite3_mprintf("%s: keys must name a table of (id, key)", who);
		rc = sqlext_vt_error(cur, SQLITE_ERROR, m ? m : "out of memory");
		sqlite3_free(m);
		return rc;
	}
	sql = dot ? sqlite3_mprintf("SELECT id, key FROM \"%.*w\".\"%w\"", (int)(dot - t), t, dot + 1)
		  : sqlite3_mprintf("SELECT id, key FROM \"%w\"", t);
	if (!sql)
		return sqlext_vt_error(cur, SQLITE_NOMEM, "out of memory");
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		m = sqlite3_mprintf("%s: keys '%s': %s", who, t, sqlite3_errmsg(db));
		rc = sqlext_vt_error(cur, rc, m ? m : "out of memory");
		sqlite3_free(m);
		return rc;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_type(st, 1) != SQLITE_INTEGER)
			continue;	/* a NULL or text id matches no name id; a NULL key joins no group */
		if (sqlext_grow((void **)map, &alloc, *n + 1, sizeof(**map))) {
			sqlite3_finalize(st);
			return sqlext_vt_error(cur, SQLITE_NOMEM, "out of memory");
		}
		(*map)[*n][0] = sqlite3_column_int64(st, 0);
		(*map)[(*n)++][1] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlext_vt_error(cur, rc, sqlite3_errmsg(db));
	if (*n)
		qsort(*map, *n, sizeof(**map), cmp_id);
	for (i = 1; i < *n; i++)
		if ((*map)[i][0] == (*map)[i - 1][0]) {
			m = sqlite3_mprintf("%s: keys '%s': id %lld twice", who, t, (long long)(*map)[i][0]);
			rc = sqlext_vt_error(cur, SQLITE_ERROR, m ? m : "out of memory");
			sqlite3_free(m);
			return rc;
		}
	return SQLITE_OK;
}

/* The keys table `v` names into c->map and c->keys (the name, which the keys column gives back). */
static int ks_map(struct ks_cursor *c, sqlite3_value *v)
{
	const char *t = (const char *)sqlite3_value_text(v);
	const char *who = ((const struct vt_def *)((struct sqlext_vtab *)c->base.pVtab)->def)->t == CS_CALLS
				  ? "api_stats" : "kernel_stats";
	if (t && !(c->keys = sqlite3_mprintf("%s", t)))
		return sqlext_vt_error(&c->base, SQLITE_NOMEM, "out of memory");
	return sqlext_keys_read(&c->base, c->db, who, t, &c->map, &c->nmap);
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
	if (idx & KS_KEYED &&
	    (rc = ks_map(c, argv[(idx & KV_EQ ? 1 : 0) + (idx & KV_SCHEMA ? 1 : 0)])) != SQLITE_OK)
		return rc;
	rc = sessions_in(cur, c->db, c->schema, idx & KV_EQ ? argv[0] : NULL, &c->sessions, &c->nsessions);
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
	case KS_KEYS:
		if (c->keys)
			sqlite3_result_text(ctx, c->keys, -1, SQLITE_TRANSIENT);
		break;
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

/* sqlext_vt_best_index's plan, with an equality on keys as the last argument (waited for, like schema). */
static int ks_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	int i, keys = -1, args = 0, rc;
	for (i = 0; i < ix->nConstraint; i++)
		if (ix->aConstraint[i].iColumn == KS_KEYS && ix->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ) {
			if (!ix->aConstraint[i].usable)
				return SQLITE_CONSTRAINT;
			keys = i;
		}
	if ((rc = sqlext_vt_best_index(v, ix)) != SQLITE_OK || keys < 0)
		return rc;
	for (i = 0; i < ix->nConstraint; i++)
		if (ix->aConstraintUsage[i].argvIndex > args)
			args = ix->aConstraintUsage[i].argvIndex;
	ix->aConstraintUsage[keys].argvIndex = args + 1;
	ix->aConstraintUsage[keys].omit = 1;
	ix->idxNum |= KS_KEYED;
	return SQLITE_OK;
}

static sqlite3_module ks_module = {
	.iVersion = 0,
	.xConnect = ks_connect,
	.xBestIndex = ks_best_index,
	.xDisconnect = ks_disconnect,
	.xDestroy = ks_disconnect,
	.xOpen = ks_open,
	.xClose = ks_close,
	.xFilter = ks_filter,
	.xNext = ks_next,
	.xEof = ks_eof,
	.xColumn = ks_column,
	.xRowid = ks_rowid,
};

int gpuprof_sqlite_views(sqlite3 *db)
{
	const char *sql = embed_get("schemas/views-ext.sql");
	return sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_INTERNAL;
}

int gpuprof_sqlite_tables(sqlite3 *db)
{
	int rc = kcache_register(db);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module(db, "kernel_columns", &kv_module, (void *)&kernel_def);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module(db, "api_columns", &kv_module, (void *)&call_def);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module(db, "kernel_stats", &ks_module, (void *)&stats_def);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_module(db, "api_stats", &ks_module, (void *)&api_stats_def);
	if (rc == SQLITE_OK)
		rc = sqlext_busy_tables(db);
	if (rc == SQLITE_OK)
		rc = gpuprof_sqlite_launches(db);
	if (rc == SQLITE_OK)
		rc = gpuprof_sqlite_exec(db);
	if (rc == SQLITE_OK)
		rc = gpuprof_sqlite_classes(db);
	if (rc == SQLITE_OK)
		rc = gpuprof_sqlite_peaks(db);
	return rc == SQLITE_OK ? sqlext_window_register(db) : rc;
}
