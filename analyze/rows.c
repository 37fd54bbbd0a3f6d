/*
 * rows: the modules' views as rows for gpuprof-report (rows.h).
 */
#include "rows.h"
#include "db.h"
#include "embed.h"
#include "module.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#define MAX_INCLUDE_DEPTH 8	/* modules including modules: deeper is a cycle */

/* Bind each of params that st names; the others stay NULL. */
static void params_bind(sqlite3_stmt *st, const struct rows_param *params, int n)
{
	int k, i;
	for (k = 0; k < n; k++) {
		if (!(i = sqlite3_bind_parameter_index(st, params[k].name)) || params[k].null)
			continue;
		if (params[k].text)
			sqlite3_bind_text(st, i, params[k].text, -1, SQLITE_STATIC);
		else
			sqlite3_bind_int64(st, i, params[k].i);
	}
}

static int module_run(sqlite3 *db, const char *name, const struct rows_param *params, int n, int depth)
{
	char file[128];
	const char *sql, *tail;
	struct module m;
	int i;
	snprintf(file, sizeof(file), "analyze/%s.sql", name);
	if (depth > MAX_INCLUDE_DEPTH)
		return error("internal: %s: modules include each other", file);
	if (!(sql = embed_get(file)))
		return error("internal: no module %s", file);
	/* The header's `-- include: NAME` lines (module_parse): each runs first. */
	if (module_parse(file, sql, &m))
		return -1;
	for (i = 0; i < m.nincludes; i++)
		if (module_run(db, m.includes[i], params, n, depth + 1)) {
			module_release(&m);
			return -1;
		}
	module_release(&m);
	for (tail = sql; tail && *tail;) {
		sqlite3_stmt *st = NULL;
		int rc;
		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK)
			return error("%s: %s", file, sqlite3_errmsg(db));
		if (!st)
			continue;
		params_bind(st, params, n);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		if (rc != SQLITE_DONE) {
			error("%s: %s", file, sqlite3_errmsg(db));
			sqlite3_finalize(st);
			return -1;
		}
		sqlite3_finalize(st);
	}
	return 0;
}

int rows_module(sqlite3 *db, const char *name, const struct rows_param *params, int n)
{
	return module_run(db, name, params, n, 0);
}

sqlite3_stmt *rows_open_by(sqlite3 *db, const char *view, const char *col)
{
	char *sql = col ? sqlite3_mprintf("SELECT * FROM \"%w\" WHERE \"%w\" = ?1", view, col)
			: sqlite3_mprintf("SELECT * FROM \"%w\"", view);
	sqlite3_stmt *st = NULL;
	if (!sql) {
		error("out of memory");
		return NULL;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(db);
		st = NULL;
	}
	sqlite3_free(sql);
	return st;
}

sqlite3_stmt *rows_open(sqlite3 *db, const char *view)
{
	return rows_open_by(db, view, NULL);
}

int rows_end(sqlite3_stmt *st, int rc)
{
	int ret = rc == SQLITE_DONE ? 0 : db_error(sqlite3_db_handle(st));
	sqlite3_finalize(st);
	return ret;
}

int rows_each(sqlite3 *db, const char *view, int (*fn)(void *ctx, sqlite3_stmt *st), void *ctx)
{
	sqlite3_stmt *st = rows_open(db, view);
	int rc, stop = 0;
	if (!st)
		return -1;
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW)
		stop = fn(ctx, st);
	if (stop) {
		sqlite3_finalize(st);
		return stop;
	}
	return rows_end(st, rc);
}

int rows_has_rank(sqlite3 *db, int64_t s, int64_t r)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT sum(rank = ?2), min(rank), max(rank) FROM processes WHERE session_id = ?1");
	int has = 0, rc;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s);
	sqlite3_bind_int64(st, 2, r);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		has = sqlite3_column_int64(st, 0) > 0;
		if (!has && sqlite3_column_type(st, 1) == SQLITE_NULL)
			error("--rank %lld: the session's processes have no ranks", (long long)r);
		else if (!has)
			error("--rank %lld: the session has ranks %lld to %lld", (long long)r,
			      (long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 2));
	} else if (rc != SQLITE_DONE)
		has = db_error(db);
	sqlite3_finalize(st);
	return has;
}

int64_t rows_active_gpus(sqlite3 *db, int64_t s)
{
	sqlite3_stmt *st;
	int64_t n = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM gpu_busy WHERE session_id = ? AND first_ns IS NOT NULL", -1,
			       &st, NULL) != SQLITE_OK)
		return db_error(db);
	sqlite3_bind_int64(st, 1, s);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	else
		db_error(db);
	sqlite3_finalize(st);
	return n;
}

int rows_kernel_cache(sqlite3 *db)
{
	return db_exec(db, "SELECT gpuprof_kernel_cache(1)");
}
