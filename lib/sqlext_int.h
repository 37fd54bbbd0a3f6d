/*
 * sqlext_int: what the extension's own files share beyond sqlext.h; not for gpuprof's programs.
 *
 * Ownership: the arrays handed to a batch callback are the reader's, valid during the call only.
 */
#ifndef GPUPROF_SQLEXT_INT_H
#define GPUPROF_SQLEXT_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The columns of kernel_columns, in order. */
enum { SK_SESSION, SK_PID, SK_START, SK_END, SK_DEV, SK_STREAM, SK_NAME, SK_CORR, SK_DUR, SK_COUNT };

/* n rows of a batch, column k at col[k] (NULL for a column not asked for); non-zero stops the reading. */
typedef int sqlext_batch_fn(void *arg, const int64_t *const *col, size_t n);

/*
 * Session s's kernels as kernel_columns reads them (lib/sqlext_vtab.c: the column chunks, else the rows),
 * in batches to each: the columns `used` names (bit 1 << SK_x; not SK_SESSION or SK_END). Errors leave
 * their message on vt. SQLITE_OK, each's non-zero return, or an SQLite error code.
 */
int sqlext_kernels(sqlite3_vtab *vt, sqlite3 *db, int64_t s, unsigned used, sqlext_batch_fn *each, void *arg);

/* What the extension's tables keep: their connection and the definition their module was made with. */
struct sqlext_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	const void *def;	/* the module's client data */
};

/*
 * Declare an eponymous table's schema on db and make its struct sqlext_vtab (def: the module's client
 * data) into *out, innocuous. SQLITE_OK or SQLite's error code.
 */
int sqlext_connect(sqlite3 *db, const char *schema, const void *def, sqlite3_vtab **out);

/*
 * The sessions a scan reads into *out (*n; sqlite3_malloc64'd): the one eq names (none when it is not an
 * integer), or with eq NULL every session in id order. Errors leave their message on cur's table.
 */
int sqlext_sessions(sqlite3_vtab_cursor *cur, sqlite3 *db, sqlite3_value *eq, int64_t **out, int *n);

/*
 * gpu_busy, gpu_stream_busy, gpu_gaps (lib/sqlext_busy.c), for gpuprof_sqlite_tables to register.
 * SQLITE_OK or SQLite's error code.
 */
int sqlext_busy_tables(sqlite3 *db);

#endif
