/*
 * nsys_check: the one validation path. Every value read from the export goes through nsys_get_int,
 * nsys_get_text or nsys_get_string; a row that fails is rejected (nsys_reject): printed (the first
 * MAX_PRINTED), recorded in ingest_errors, or kept pending until the first process is begun.
 */
#include "nsys.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PRINTED 20			/* rejected rows printed one by one; then only a count */

/*
 * The string id cache's key for nsys id `id`: id plus one (ids may be 0, which intmap cannot store), wrapped
 * round in unsigned arithmetic, so INT64_MAX is INT64_MIN and not an overflow, and every id has a key of
 * its own; -1's is 0, which is never cached.
 */
static int64_t idcache_key(int64_t id)
{
	return (int64_t)((uint64_t)id + 1);
}

/* Our string id for nsys id `id`, or -1 when not cached. */
static int64_t idcache_get(const struct intmap *m, int64_t id)
{
	int64_t v;
	return intmap_get(m, idcache_key(id), &v) ? v : -1;
}

/* Cache our string id db for nsys id `id` (not for -1, whose key is intmap's empty mark). */
static void idcache_put(struct intmap *m, int64_t id, int64_t db)
{
	if (idcache_key(id))
		intmap_put(m, idcache_key(id), db);
}

/* The row of st whose rowid is result column i (NULL for a table without rowids). */
struct row nsys_row_at(const char *table, sqlite3_stmt *st, int i)
{
	struct row r = { table, st, sqlite3_column_int64(st, i), sqlite3_column_type(st, i) != SQLITE_NULL };
	return r;
}

/* 1 with *x when d is an integral value in int64_t's range (what INTEGER affinity would store), else 0. */
int nsys_integral(double d, int64_t *x)
{
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || (double)(int64_t)d != d)
		return 0;
	*x = (int64_t)d;
	return 1;
}

/* Append "name = value" for result column i of st to b: the excerpt of a rejected row. */
static void describe(struct buf *b, sqlite3_stmt *st, int i, const char *name, int len)
{
	const char *t;
	int tl;
	buf_addf(b, "%.*s = ", len, name);
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		buf_addstr(b, "NULL");
		break;
	case SQLITE_INTEGER:
		buf_addi64(b, sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		buf_addf(b, "%.17g", sqlite3_column_double(st, i));
		break;
	case SQLITE_TEXT:
		t = (const char *)sqlite3_column_text(st, i);
		tl = sqlite3_column_bytes(st, i);
		buf_addf(b, "'%.*s'%s", tl > 60 ? 60 : tl, t, tl > 60 ? "..." : "");
		break;
	default:
		buf_addf(b, "a blob of %d bytes", sqlite3_column_bytes(st, i));
	}
}

/* Print (the first MAX_PRINTED of a file) and record one rejected row; -1 on a sink failure. */
static int record(struct nsys *n, int64_t rowid, const char *reason, const char *excerpt)
{
	if (n->rejected < MAX_PRINTED)
		error("%s: %s", n->path, reason);
	else if (n->rejected == MAX_PRINTED)
		error("%s: more rows are rejected; all are recorded in table ingest_errors", n->path);
	n->rejected++;
	return sink_ingest_error(n->sink, n->path, rowid, reason, excerpt);
}

/*
 * Reject the current row of r: print "FILE: TABLE rowid N: reason" (the first MAX_PRINTED rows of the
 * file, then one line that more follow) and record it in ingest_errors with line = the rowid and the value
 * of result column i (the export's column name/len; i < 0: none) as excerpt (record). Before any process
 * is begun it waits in n->pending for the first one that is not in the database already (so a re-ingest
 * says nothing). Returns 1, or -1 on a sink failure.
 */
int nsys_reject(struct nsys *n, const struct row *r, int i, const char *name, int len, const char *fmt, ...)
{
	struct buf reason, excerpt;
	va_list ap;
	int rc = 0;
	buf_init(&reason);
	buf_init(&excerpt);
	if (r->has_rowid)
		buf_addf(&reason, "%s rowid %lld: ", r->table, (long long)r->rowid);
	else
		buf_addf(&reason, "%s: ", r->table);
	va_start(ap, fmt);
	buf_vaddf(&reason, fmt, ap);
	va_end(ap);
	if (i >= 0)
		describe(&excerpt, r->st, i, name, len);
	if (!n->in_process) {
		struct pending *p;
		ALLOC_GROW(n->pending, n->npending + 1, n->pending_alloc);
		p = &n->pending[n->npending++];
		p->rowid = r->rowid;
		p->reason = reason.s;
		p->excerpt = i >= 0 ? excerpt.s : NULL;
		if (i < 0)
			buf_release(&excerpt);
		return 1;
	}
	rc = record(n, r->rowid, reason.s, i >= 0 ? excerpt.s : NULL);
	buf_release(&reason);
	buf_release(&excerpt);
	return rc ? -1 : 1;
}

/*
 * Result column i of r's row (the export's column name/len) as an integer: 0 with *x (or *isnull set when
 * NULL and nullable), 1 when the row is rejected, -1 on a sink failure. An integer is an INTEGER, or a
 * REAL with an integral value in range (what a column of INTEGER affinity would have stored); a TEXT,
 * BLOB or fractional REAL is none, even when its text reads as a number.
 */
int nsys_get_int(struct nsys *n, const struct row *r, int i, const char *name, int len, int nullable,
		 int64_t *x, int *isnull)
{
	double d;
	*x = 0;
	*isnull = 0;
	switch (sqlite3_column_type(r->st, i)) {
	case SQLITE_INTEGER:
		*x = sqlite3_column_int64(r->st, i);
		return 0;
	case SQLITE_NULL:
		*isnull = 1;
		return nullable ? 0 : nsys_reject(n, r, i, name, len, "\"%.*s\" is NULL", len, name);
	case SQLITE_FLOAT:
		d = sqlite3_column_double(r->st, i);
		if (nsys_integral(d, x))
			return 0;
		return nsys_reject(n, r, i, name, len, "\"%.*s\" is %.17g, not an integer", len, name, d);
	case SQLITE_TEXT:
		return nsys_reject(n, r, i, name, len, "\"%.*s\" is text, not an integer", len, name);
	default:
		return nsys_reject(n, r, i, name, len, "\"%.*s\" is a blob, not an integer", len, name);
	}
}

/* Result column i of r's row as text, like nsys_get_int: 0 with *s (NULL when NULL and nullable), 1, or -1. */
int nsys_get_text(struct nsys *n, const struct row *r, int i, const char *name, int len, int nullable,
		  const char **s)
{
	*s = NULL;
	switch (sqlite3_column_type(r->st, i)) {
	case SQLITE_TEXT:
		*s = (const char *)sqlite3_column_text(r->st, i);
		return 0;
	case SQLITE_NULL:
		return nullable ? 0 : nsys_reject(n, r, i, name, len, "\"%.*s\" is NULL", len, name);
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		return nsys_reject(n, r, i, name, len, "\"%.*s\" is a number, not text", len, name);
	default:
		return nsys_reject(n, r, i, name, len, "\"%.*s\" is a blob, not text", len, name);
	}
}

/* Length of an API name without its "_v<digits>" suffix (cudaLaunchKernel_v7000 -> cudaLaunchKernel). */
static size_t api_name_len(const char *s)
{
	size_t len = strlen(s), i = len;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i < len && i >= 3 && s[i - 1] == 'v' && s[i - 2] == '_')
		return i - 2;
	return len;
}

/*
 * Our string id for StringIds id `id`, read from result column i of r's row (the export's column name/len;
 * api: a CUDA API name, its version suffix dropped), into *out: 0, 1 when the id is not in StringIds (the
 * row is rejected), -1 on a failure (n->err set when the export failed).
 */
int nsys_get_string(struct nsys *n, const struct row *r, int i, const char *name, int len, int64_t id,
		    int api, int64_t *out)
{
	int64_t db = idcache_get(&n->strs, id);
	int rc;
	if (db >= 0) {
		*out = db;
		return 0;
	}
	sqlite3_bind_int64(n->str_st, 1, id);
	rc = sqlite3_step(n->str_st);
	if (rc == SQLITE_ROW && sqlite3_column_type(n->str_st, 0) != SQLITE_NULL) {
		const char *text = (const char *)sqlite3_column_text(n->str_st, 0);
		db = sink_string(n->sink, text, api ? api_name_len(text) : strlen(text));
		sqlite3_reset(n->str_st);
		if (db < 0)
			return -1;
		idcache_put(&n->strs, id, db);
		*out = db;
		return 0;
	}
	sqlite3_reset(n->str_st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		nsys_src_error(n, "StringIds");
		return -1;
	}
	return nsys_reject(n, r, i, name, len, "\"%.*s\" %lld is not in StringIds", len, name, (long long)id);
}

/* A process is begun: record the rejections that waited for one. 0, or -1 on a sink failure. */
int nsys_record_pending(struct nsys *n)
{
	size_t i;
	n->in_process = 1;
	for (i = 0; i < n->npending; i++)
		if (record(n, n->pending[i].rowid, n->pending[i].reason, n->pending[i].excerpt))
			return -1;	/* release frees them */
	for (i = 0; i < n->npending; i++) {
		free(n->pending[i].reason);
		free(n->pending[i].excerpt);
	}
	n->npending = 0;
	return 0;
}
