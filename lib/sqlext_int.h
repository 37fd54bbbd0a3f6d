/*
 * sqlext_int: what the extension's virtual tables share among their files (not for gpuprof's programs).
 *
 * Ownership: sqlext_read lends fn the decoded columns until fn returns.
 */
#ifndef GPUPROF_SQLEXT_INT_H
#define GPUPROF_SQLEXT_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* kernel_columns' column numbers (api_columns': pid 1, start_ns 2, thread_id 4, correlation_id 6). */
enum { SX_PID = 1, SX_START = 2, SX_STREAM = 5, SX_NAME = 6, SX_CORR = 7, SX_DUR = 8, SX_THREAD = 4, SX_CALL_CORR = 6 };

/*
 * Session s of schema (a database name: "main", "base") as kernel_columns reads it (api_columns with
 * calls), in table order: fn gets the used columns (a bit per column number; end_ns and session_id one row
 * at a time) as v[column][0..n-1], a chunk's rows at once. SQLITE_OK, fn's code, or an error code with
 * vt's message set.
 */
int sqlext_read(sqlite3_vtab *vt, sqlite3 *db, const char *schema, int64_t s, int calls, unsigned used,
		int (*fn)(void *ctx, const int64_t *const *v, size_t n), void *ctx);

/* The kernel windows table of lib/sqlext_window.c, registered by gpuprof_sqlite_tables. */
int sqlext_window_register(sqlite3 *db);

#endif
