/*
 * rows: what gpuprof-report reads of a session besides the analyses' tables (the trace export, the HTML
 * report's timeline and time charts), from the views and TEMP tables of modules: analyze/NAME.sql files
 * whose header says `-- module: NAME`. report/ renders those rows; it holds no SQL (tests/rows.py checks).
 *
 * A module's statements run in order with their parameters (:session, ...) bound by name; the views it
 * makes take no parameters (SQLite allows none in a view), so a module keeps the values its views read in
 * a TEMP table of its own (temp.trace_args, temp.timeline_args). Its `-- include: NAME` header lines name
 * modules run before it (analyze/views.sql's gpu_nodes, for one). Every statement is idempotent: a module
 * runs again whenever it is asked for, with the new values.
 *
 * Statements returned here are the caller's: it steps them and finalizes them.
 */
#ifndef GPUPROF_ROWS_H
#define GPUPROF_ROWS_H

#include <sqlite3.h>
#include <stdint.h>

/* A value bound to a module's parameter `name` (":session"): text when text is not NULL, else i or NULL. */
struct rows_param {
	const char *name;
	const char *text;
	int64_t i;
	int null;
};
#define ROWS_INT(n, v) { (n), NULL, (v), 0 }
#define ROWS_TEXT(n, s) { (n), (s), 0, (s) == NULL }
#define ROWS_NULL(n) { (n), NULL, 0, 1 }

/*
 * Run module `name` (the embedded analyze/NAME.sql), its includes first, each statement with the n params
 * bound by name (parameters not among them are NULL). 0, or -1 with a message.
 */
int rows_module(sqlite3 *db, const char *name, const struct rows_param *params, int n);
/* Every row of view (or table) `view` of the modules, in the view's order: prepared, not stepped; NULL with a message. */
sqlite3_stmt *rows_open(sqlite3 *db, const char *view);
/* The rows of `view` whose column `col` equals ?1 (bound by the caller, again after each sqlite3_reset). */
sqlite3_stmt *rows_open_by(sqlite3 *db, const char *view, const char *col);
/*
 * Hand each row of `view` to fn, streamed: fn returns 0 to go on, else rows_each stops and returns that.
 * 0 after the last row, or -1 with a message.
 */
int rows_each(sqlite3 *db, const char *view, int (*fn)(void *ctx, sqlite3_stmt *st), void *ctx);
/* Finalize st, whose last step returned rc: 0 when that was SQLITE_DONE, else -1 with a message. */
int rows_end(sqlite3_stmt *st, int rc);

/*
 * What gpuprof-report asks of a session before its sections (report/main.c), behind one function each:
 * whether session s has processes of rank r (when not, a message says which ranks it has: 0; -1 on a
 * database error); how many GPUs ran something (gpu_busy's rows; -1 with a message); and
 * gpuprof_kernel_cache(1), which keeps the decoded kernels for the sections that read them through
 * several tables (0, or -1 with a message).
 */
int rows_has_rank(sqlite3 *db, int64_t s, int64_t r);
int64_t rows_active_gpus(sqlite3 *db, int64_t s);
int rows_kernel_cache(sqlite3 *db);

#endif
