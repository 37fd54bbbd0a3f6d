/*
 * range_path: an NVTX range's nesting path, as a window function (see sqlext.h). Compiled twice like
 * analyze/ext/sqlext.c: into gpuprof's programs and into the extension.
 *
 * The rows of a partition come in nesting order (start, the longest first); the function keeps the stack
 * of the ranges still open. A range pops what does not contain it (what ended before it starts, or before
 * it ends: the stack's ends never grow upwards, so those are on top), takes the top's path and its name,
 * and is pushed. Said in SQL, that is a recursive walk carrying the stack as text: about 0.5 s over the
 * 75,000 ranges of the 5M-kernel bench session (tests/vtab.py keeps that form as the reference); here a
 * few milliseconds.
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"

#include <stdint.h>
#include <string.h>

/* An open range: where it ends (INT64_MAX when it never did) and the length of its path. */
struct nest_open {
	int64_t end;
	size_t len;
};

/* A partition's walk: the stack, the top's path (each open range's is a prefix of it), and the current row's path. */
struct nest {
	struct nest_open *stack;
	size_t depth, cap;
	char *path, *row;
	size_t path_cap, row_len, row_cap;
	int row_is_top;		/* the current row's path is path (kind 1, 3); else row (kind 2) */
};

/* range_path(start_ns, end_ns, kind, name) OVER (PARTITION BY ... ORDER BY nesting order): one row. */
static void nest_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct nest *n = sqlite3_aggregate_context(ctx, sizeof(*n));
	int64_t start = sqlite3_value_int64(argv[0]);
	int64_t end = sqlite3_value_type(argv[1]) == SQLITE_NULL ? INT64_MAX : sqlite3_value_int64(argv[1]);
	int64_t bound = end > start ? end : start + 1;	/* an open range contains this one: its end >= bound */
	const char *name = (const char *)sqlite3_value_text(argv[3]);
	size_t name_len = (size_t)sqlite3_value_bytes(argv[3]), at;
	(void)argc;
	if (!n)
		goto nomem;
	if (!name)
		name = "", name_len = 0;
	if (sqlite3_value_int(argv[2]) == 2) {	/* start/end: neither nests nor closes anything */
		if (sqlext_grow((void **)&n->row, &n->row_cap, name_len + 1, 1))
			goto nomem;
		memcpy(n->row, name, name_len + 1);
		n->row_len = name_len;
		n->row_is_top = 0;
		return;
	}
	while (n->depth && n->stack[n->depth - 1].end < bound)
		n->depth--;
	at = n->depth ? n->stack[n->depth - 1].len + 1 : 0;	/* the parent's path and a '/' */
	if (sqlext_grow((void **)&n->stack, &n->cap, n->depth + 1, sizeof(*n->stack)) ||
	    sqlext_grow((void **)&n->path, &n->path_cap, at + name_len + 1, 1))
		goto nomem;
	if (at)
		n->path[at - 1] = '/';
	memcpy(n->path + at, name, name_len + 1);
	n->stack[n->depth].end = end;
	n->stack[n->depth].len = at + name_len;
	n->depth++;
	n->row_is_top = 1;
	return;
nomem:
	sqlite3_result_error_nomem(ctx);
}

static void nest_value(sqlite3_context *ctx)
{
	struct nest *n = sqlite3_aggregate_context(ctx, 0);
	if (!n || (n->row_is_top ? !n->depth : !n->row))
		return;		/* no row yet: NULL */
	if (n->row_is_top)
		sqlite3_result_text(ctx, n->path, (int)n->stack[n->depth - 1].len, SQLITE_TRANSIENT);
	else
		sqlite3_result_text(ctx, n->row, (int)n->row_len, SQLITE_TRANSIENT);
}

/* A frame that drops its first rows: the walk cannot take a range back. */
static void nest_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc, (void)argv;
	sqlite3_result_error(ctx, "range_path() needs a frame from the partition's first row "
			     "(ROWS UNBOUNDED PRECEDING)", -1);
}

static void nest_final(sqlite3_context *ctx)
{
	struct nest *n = sqlite3_aggregate_context(ctx, 0);
	if (!n)
		return;
	nest_value(ctx);
	sqlite3_free(n->stack);
	sqlite3_free(n->path);
	sqlite3_free(n->row);
}

int gpuprof_sqlite_nest(sqlite3 *db)
{
	return sqlite3_create_window_function(db, "range_path", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
					      NULL, nest_step, nest_final, nest_value, nest_inverse, NULL);
}
