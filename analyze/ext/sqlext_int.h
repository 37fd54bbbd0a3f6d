/*
 * sqlext_int: what the extension's virtual-table files share (analyze/ext/sqlext_vtab.c defines it): the
 * description of a table read from column chunks, the xConnect/xBestIndex/xDisconnect of tables whose one
 * constraint is `session_id = S`, the sessions a scan reads, a cursor computed a session at a time, and a
 * reader of one session's kernels as kernel_columns reads them. Not for gpuprof's programs (analyze/ext/sqlext.h
 * is the public side).
 *
 * Ownership: the arrays handed to a batch callback are the reader's, valid during the call only.
 */
#ifndef GPUPROF_SQLEXT_INT_H
#define GPUPROF_SQLEXT_INT_H

#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
#else
#include <sqlite3.h>
#endif
#include <stddef.h>
#include <stdint.h>

#include "colstore.h"

/*
 * What a table of chunk rows is: its columns (session_id first, then what the chunks hold, then end_ns =
 * start_ns + the duration column), the chunk column each decodes from, and the rows fallback, which
 * gives the same values as the chunks hold (colstore.h), in the table's column order after session_id.
 * A table that only declares a schema (sqlext_vt_connect's aux) sets the rest to 0.
 */
struct vt_def {
	enum colstore_table t;
	const char *schema;
	int ncols;		/* table columns */
	int chunk_col[24];	/* per table column: the chunk column; -1 for session_id */
	int end;		/* the end_ns column: chunk start + chunk duration */
	int nullable;		/* columns from this one on are NULL where they hold INT64_MIN */
	const char *rows_sql;	/* one session's rows (?1) */
	int rows_since;		/* the schema version rows_sql needs; before it, old_rows_sql */
	const char *old_rows_sql;
};

/* kernel_columns' columns. */
enum {
	KC_SESSION, KC_PID, KC_START, KC_END, KC_DEV, KC_STREAM, KC_NAME, KC_CORR, KC_DUR, KC_GRID_X, KC_GRID_Y,
	KC_GRID_Z, KC_BLOCK_X, KC_BLOCK_Y, KC_BLOCK_Z, KC_REGS, KC_SSMEM, KC_DSMEM, KC_SMEM, KC_COUNT
};

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
/* xConnect of an eponymous read-only table whose aux is a struct vt_def (only its schema is read). */
int sqlext_vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err);
int sqlext_vt_disconnect(sqlite3_vtab *v);
/*
 * xBestIndex of kernel_columns and the tables like it: an equality on column 0 (session_id) is taken as
 * argv[0] and idxNum's bit 0 set; idxNum's other bits are the columns used (colUsed << 1); ranges on
 * start_ns and end_ns go to idxStr (analyze/ext/sqlext_vtab.c).
 */
int sqlext_vt_best_index(sqlite3_vtab *v, sqlite3_index_info *ix);
/*
 * The sessions a scan reads into *out (*n; sqlite3_malloc64'd): the one eq names (none when it is not an
 * integer), or with eq NULL every session in id order. Errors leave their message on cur's table.
 */
int sqlext_sessions(sqlite3_vtab_cursor *cur, sqlite3 *db, sqlite3_value *eq, int64_t **out, int *n);
/* The connection of a cursor's table (one that sqlext_connect made). */
sqlite3 *sqlext_vt_db(sqlite3_vtab_cursor *cur);
/* Set the vtab's error message to what and return rc. */
int sqlext_vt_error(sqlite3_vtab_cursor *cur, int rc, const char *what);

/* n rows of a batch, column k at col[k] (NULL for a column not asked for); non-zero stops the reading. */
typedef int sqlext_batch_fn(void *arg, const int64_t *const *col, size_t n);
/*
 * Session s's kernels as kernel_columns reads them (the column chunks, else the rows), in batches of up
 * to a chunk to each: the columns `used` names (bit 1 << KC_x; KC_SESSION is not given; launch columns
 * hold INT64_MIN for NULL). Errors leave their message on vt. SQLITE_OK, each's non-zero return, or an
 * SQLite error code.
 */
int sqlext_kernels(sqlite3_vtab *vt, sqlite3 *db, int64_t s, unsigned used, sqlext_batch_fn *each, void *arg);

/*
 * A cursor whose rows are computed a session at a time (kernel_launches, kernel_busy): the first member
 * of such a table's cursor. load computes session sessions[at]'s rows and sets n; i is the current one.
 */
struct session_cursor {
	sqlite3_vtab_cursor base;
	int (*load)(struct session_cursor *c);
	int64_t *sessions;	/* sqlite3_malloc64'd */
	int nsessions, at;
	size_t n, i;
	int eof;
};
/* xFilter's part: the sessions eq names (NULL: every session), then the first row. */
int sqlext_session_filter(struct session_cursor *c, sqlite3_value *eq);
/* Free the sessions (xClose, or before a new scan). */
void sqlext_session_reset(struct session_cursor *c);
int sqlext_session_next(sqlite3_vtab_cursor *cur);
int sqlext_session_eof(sqlite3_vtab_cursor *cur);
/* A rowid from the session's index and the row's. */
int sqlext_session_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid);

/* kernel_columns' column numbers as kernel_windows names them (api_columns': thread_id 4, correlation_id 6). */
enum { SX_PID = KC_PID, SX_START = KC_START, SX_STREAM = KC_STREAM, SX_NAME = KC_NAME, SX_CORR = KC_CORR,
       SX_DUR = KC_DUR, SX_THREAD = 4, SX_NAME_CALL = 5, SX_CALL_CORR = 6, SX_DUR_CALL = 7 };
/*
 * Session s of schema (a database name: "main", "base"; NULL for main) as kernel_columns reads it
 * (api_columns with calls), in table order, as sqlext_kernels gives it (from the connection's kept columns
 * for main's kernels). SQLITE_OK, each's non-zero return, or an error code with vt's message set.
 */
int sqlext_read(sqlite3_vtab *vt, sqlite3 *db, const char *schema, int64_t s, int calls, unsigned used,
		sqlext_batch_fn *each, void *arg);
/*
 * The data version of schema's file (SQLITE_FCNTL_DATA_VERSION): it changes with every commit to that
 * file, this connection's and others', and not with writes to TEMP tables; -1 when unknown. What the
 * per-connection caches (kept kernel columns, gpu_busy's figures, kernel_windows' joins) are keyed by.
 */
int64_t sqlext_data_version(sqlite3 *db, const char *schema);
/* Grow *p (of *cap elements of size sz; sqlite3_realloc64'd) to hold n; 0, or -1 when out of memory. */
int sqlext_grow(void **p, size_t *cap, size_t n, size_t sz);
/*
 * A keys table (kernel_stats' keys, kernel_exec_summary's): the (id, key) rows of the table or view t names
 * (`name` or `schema.name`) into *map, sorted by id (*n rows; sqlite3_malloc64'd, NULL for none); rows
 * whose id or key is not an integer are left out. An id twice is an error. Errors leave their message,
 * naming `who`, on cur's table. SQLITE_OK or an error code.
 */
int sqlext_keys_read(sqlite3_vtab_cursor *cur, sqlite3 *db, const char *who, const char *t, int64_t (**map)[2],
		     size_t *n);
/* 1 with *key set when map (n rows by id, sqlext_keys_read's) has id, else 0. */
int sqlext_keys_find(const int64_t (*map)[2], size_t n, int64_t id, int64_t *key);
/*
 * A session's nodes (analyze/ext/sqlext_nodes.c): the (host, rank) of its processes, numbered from 0, which with
 * a device number name a GPU. A pid the session's processes lack is node 0.
 */
struct sqlext_nodes {
	struct { int64_t pid, node; } *v;	/* by pid; sqlite3_realloc64'd */
	size_t n, alloc, hit;
	int64_t count;		/* nodes: 1 for a session of one host and one rank */
};
/* Session s's nodes of schema's processes (NULL: main) into m. SQLITE_OK or an error code (m empty). */
int sqlext_nodes_read(sqlite3 *db, const char *schema, int64_t s, struct sqlext_nodes *m);
/* The node of pid. */
int64_t sqlext_node(struct sqlext_nodes *m, int64_t pid);
void sqlext_nodes_free(struct sqlext_nodes *m);

/* kernel_windows (analyze/ext/sqlext_window.c), for gpuprof_sqlite_tables to register. */
int sqlext_window_register(sqlite3 *db);

/*
 * gpu_busy, gpu_stream_busy, gpu_gaps (analyze/ext/sqlext_busy.c), for gpuprof_sqlite_tables to register.
 * SQLITE_OK or SQLite's error code.
 */
int sqlext_busy_tables(sqlite3 *db);
/* Register kernel_launches (analyze/ext/sqlext_launch.c) on db. */
int gpuprof_sqlite_launches(sqlite3 *db);
/* Register kernel_exec (analyze/ext/sqlext_exec.c) on db. SQLITE_OK or SQLite's error code. */
int gpuprof_sqlite_exec(sqlite3 *db);
/* Register class_rules and kernel_busy (analyze/ext/sqlext_classes.c) on db. */
int gpuprof_sqlite_classes(sqlite3 *db);
/*
 * xBestIndex of a table-valued function: equalities on the hidden columns from first on are the
 * arguments, in column order; bit k of idxNum says argument k is there. SQLITE_CONSTRAINT when a required
 * one (mask) is not usable (analyze/ext/sqlext_classes.c).
 */
int sqlext_args_best_index(sqlite3_index_info *ix, int first, int nargs, int required);

/*
 * What the readers of rules files (class_rules, gpu_peaks) share (analyze/ext/sqlext_classes.c): lines of
 * blank-separated fields, `#` comments, names, patterns, and a cursor over the rows loaded.
 */
/* Replace *msg (sqlite3_malloc'd) with the formatted message; returns -1. */
int sqlext_fail(char **msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A space, a tab or a CR. */
int sqlext_is_blank(char c);
/* A name: a lowercase letter, then up to 31 lowercase letters, digits and "_". */
int sqlext_valid_name(const char *s, size_t len);
/*
 * The next line of *text that is neither blank nor a `#` comment: kw..end, its blanks trimmed, with *text
 * moved past it and *line counting every line read. 0 at the end of the text.
 */
int sqlext_rules_line(const char **text, int *line, const char **kw, const char **end);
/* The fields of one line: up to n words, the last one the rest of the line; those missing empty at end. */
struct sqlext_words {
	const char *w[4];
	size_t len[4];
	int n;			/* the fields there */
};
void sqlext_split(const char *s, const char *end, int n, struct sqlext_words *out);
/* pattern compiled (UTF), or NULL with why set to PCRE2's message and "at offset N" (pcre2_code_free it). */
void *sqlext_regex(const char *pattern, char why[300]);
/*
 * A cursor over rows 0..n-1 of what its xFilter loaded: the first member of such a table's cursor, whose
 * xFilter sets n (and i to 0). sqlext_list_open allocates size bytes (the table's cursor), zeroed.
 */
struct sqlext_list_cursor {
	sqlite3_vtab_cursor base;
	size_t i, n;
};
int sqlext_list_open(sqlite3_vtab_cursor **out, size_t size);
int sqlext_list_next(sqlite3_vtab_cursor *cur);
int sqlext_list_eof(sqlite3_vtab_cursor *cur);
int sqlext_list_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid);
/* Register gpu_peaks (analyze/ext/sqlext_peaks.c) on db. */
int gpuprof_sqlite_peaks(sqlite3 *db);

#endif
