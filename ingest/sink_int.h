/*
 * sink_int: the sink's insides, shared by the files that make up the sink (never included outside ingest/sink*.c):
 *   sink.c          the sink's life: open and free, transactions, sessions and processes, and the
 *                   bookkeeping tables (drops, collector_errors, ingest_skipped, ingest_errors)
 *   sink_strings.c  string interning: the strings table and its in-memory map for the current session
 *   sink_rows.c     row writing: one prepared INSERT per record type (records.h), time shifts
 *   sink_chunks.c   column chunks (colstore.h): encoding the current process's kernels and API calls,
 *                   and rebuilding missing chunks (sink_reindex)
 *   sink_combine.c  a gpuprof database as an input
 *   sink_spool.c    a sink that writes its calls to a file, and their replay (gpuprof-ingest -j)
 *
 * Ownership: struct sink owns every statement, the string map (its strings freed by sink_strings_clear)
 * and the chunk writer; all of it is freed by sink_free. The connection is borrowed (sink.h).
 * Functions return 0 on success, -1 with a message printed, unless said otherwise.
 */
#ifndef GPUPROF_SINK_INT_H
#define GPUPROF_SINK_INT_H

#include "sink.h"
#include "colstore.h"
#include "db.h"
#include "util.h"

struct strmap_entry;	/* sink_strings.c */

/* sink_check.c: the checks of a checking sink, called by sink_spool.c; each abort()s on a broken contract. */
void sink_check_tx(struct sink *s, int tag);
void sink_check_process(struct sink *s, const struct sink_process *p);
void sink_check_end(struct sink *s);
/* call is allowed only inside a process. */
void sink_check_in_process(const struct sink *s, const char *call);
void sink_check_add(const struct sink *s, enum rec_type t, const struct value *vals);

struct sink {
	sqlite3 *db;		/* NULL for a spooling sink */
	FILE *spool;		/* a spooling sink's file (sink_spool.c), else NULL */
	char *spool_session;	/* and the session its string ids are of (owned) */
	int check;		/* a checking sink (sink_check.c): owns spool, checks every call */
	int check_tx, check_process;	/* its state: a transaction, a process open */
	sqlite3_stmt *insert[R_COUNT];
	/*
	 * SQLite keeps bindings across sqlite3_reset, so a value equal to the one already bound in that
	 * column is not bound again (launch configurations, devices and streams repeat row after row).
	 */
	struct value bound[R_COUNT][REC_MAX_FIELDS];
	int bound_valid[R_COUNT];
	/*
	 * The rows of tables whose fields are all integers (kernels, API calls...) wait here and go
	 * SINK_MANY at a time in one INSERT: SQLite's cost of a statement (step, reset, begin and end of the
	 * program, its cursor) is then paid once for them, a quarter of a row's insert. sink_rows_flush
	 * writes the rows waiting, before anything reads or changes the tables (a time shift, a process's
	 * end, a commit); a rollback drops them.
	 */
	sqlite3_stmt *insert_many[R_COUNT];	/* SINK_MANY rows; NULL: the table's rows go one at a time */
	struct value *waiting[R_COUNT];		/* SINK_MANY rows of the table's fields (xmalloc'd) */
	int nwaiting[R_COUNT];
	struct value *bound_many[R_COUNT];	/* insert_many's bound values, as bound[] (xmalloc'd) */
	int bound_many_valid[R_COUNT];
	sqlite3_stmt *str_find, *str_add, *err_add, *drop_add, *cerr_add;
	sqlite3_stmt *str_get;	/* a string of the session by id (sink_rows.c, for one this process has not seen) */
	sqlite3_stmt *str_add_once;	/* INSERT OR IGNORE of a string kept out of the map (sink_strings.c) */
	int in_tx;
	int64_t commits;	/* transactions committed (tx_close) */
	int outer;		/* inside sink_batch_begin's transaction: an input's is a savepoint */

	int64_t repairs[SINK_REPAIRS];	/* the current process's (sink.h), recorded by sink_process_end */
	char *file;		/* the current process's file (else path), repaired, for ingest_repairs; owned */
	struct buf fix;		/* sink_fix's repaired text */

	int64_t session_id;	/* current session, 0 outside a process */
	int session_is_new;	/* created by this process: no earlier strings to look up */
	int64_t pid;
	char *hostname;		/* of the current process, owned */
	char *clash;		/* the warning sink_process_end gives for it (owned), or NULL */
	int64_t next_string_id;
	int64_t min_ns, max_ns;	/* event times seen in this process */
	int64_t counts[R_COUNT];
	int64_t rows;		/* records written since sink_open, read by sink_rows (another thread) */
	int64_t first_rowid[R_COUNT];	/* where the current process's rows of each table begin */

	struct strmap_entry *map;	/* the current session's strings (sink_strings.c) */
	size_t map_cap, map_used;
	char **by_id;		/* id -> string, for sink_string_value */
	size_t by_id_alloc;

	/* Column chunks (colstore.h) of the current process. */
	struct colstore_writer *cs;	/* rows not yet written */
	int64_t cs_next_row[CS_TABLES];	/* first_row of the next chunk */
	int64_t cs_first_chunk;		/* id of the current process's first chunk */
	sqlite3_stmt *cs_add, *cs_set_add;
};

/* Step a statement that returns nothing to read, and reset it. 0, or -1. */
static inline int sink_step(struct sink *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_error(s->db);
	return 0;
}

/* sink.c */
/*
 * Text v as it is stored: v itself when it is valid UTF-8 (or NULL), else its repair in s->fix (valid until
 * the next call); when count, the sequences replaced are added to the current process's repairs.
 */
const char *sink_fix(struct sink *s, const char *v, int count);
/*
 * Run a one-row, one-column query with ?1 bound to text, or to a when text is NULL: 1 with *out, 0 when
 * there is no row or it is NULL, -1 on error.
 */
int sink_query_i64(struct sink *s, const char *sql, const char *text, int64_t a, int64_t *out);
/*
 * Set s->pid to the pid OS pid `pid` of host s->hostname is stored under in session s->session_id: pid,
 * or pid + k * 2^32 when another host's process has it (ingest/sink.c), said with info() when say is 1. 0, or
 * -1 with a message.
 */
int sink_session_pid(struct sink *s, int64_t pid, int say);
/*
 * Whether session has the process: with content NULL, the one of hostname and OS pid pid (stored as pid or
 * pid + k * 2^32), and when file is not NULL (a wire-format process), read from a file of that name in any
 * folder; with content (sink_process's), one of the same content, or of hostname, pid and file name that
 * has no content kept. 1, 0, or -1.
 */
int sink_has_process(struct sink *s, int64_t session, const char *hostname, int64_t pid, const char *file,
		     const char *content);

/* sink_spool.c: a spooling sink's side of each public function (sink.h). */
int sink_spool_tx(struct sink *s, int tag);	/* 'B'egin, 'C'ommit, 'R'ollback */
int sink_spool_process(struct sink *s, const struct sink_process *p);
int sink_spool_end(struct sink *s, int clean_end, int64_t end_ns);
void sink_spool_string(struct sink *s, int64_t id, const char *v, size_t len);
int sink_spool_add(struct sink *s, enum rec_type t, const struct value *vals);
int sink_spool_shift(struct sink *s, int64_t offset_ns);
int sink_spool_drop(struct sink *s, int64_t ts_ns, const char *source, const char *what, int64_t count);
int sink_spool_window(struct sink *s, int64_t start_ns, int64_t end_ns, int64_t ranges_cut);
int sink_spool_cerr(struct sink *s, int64_t ts_ns, const char *what, const char *reason);
int sink_spool_skipped(struct sink *s, const char *file, const char *cat, const char *ph, int64_t count, int64_t gpu);
int sink_spool_ierr(struct sink *s, const char *file, int64_t line, const char *reason, const char *excerpt);
int sink_spool_rank(struct sink *s, int64_t rank);
int sink_spool_repaired(struct sink *s, enum sink_repair what, int64_t count);

/* sink_check.c: the checks of a checking sink, called by sink_spool.c; each abort()s on a broken contract. */
void sink_check_tx(struct sink *s, int tag);
void sink_check_process(struct sink *s, const struct sink_process *p);
void sink_check_end(struct sink *s);
/* call is allowed only inside a process. */
void sink_check_in_process(const struct sink *s, const char *call);
void sink_check_add(const struct sink *s, enum rec_type t, const struct value *vals);

/* sink_strings.c */
/* Forget the current session's strings (the map and the id index). */
void sink_strings_clear(struct sink *s);

/* sink_rows.c */
/* The INSERT of record type t, or NULL with a message. */
sqlite3_stmt *sink_rows_prepare(sqlite3 *db, enum rec_type t);
/* Rows a table's insert_many takes. */
#define SINK_MANY 16
/* Prepare s->insert_many[t] when table t's rows can wait (every field an integer). 0, or -1. */
int sink_rows_prepare_many(struct sink *s, enum rec_type t);
/* Write the rows waiting (all tables). 0, or -1. */
int sink_rows_flush(struct sink *s);
/* Forget the rows waiting (a rollback). */
void sink_rows_drop(struct sink *s);

/* sink_chunks.c */
/* Drop the triggers that retire chunks when kernels or api_calls change (sink_tx_commit puts them back). */
int sink_chunks_triggers_drop(struct sink *s);
/* Where the current process's chunks go: after the session's earlier ones. */
int sink_chunks_begin(struct sink *s);
/* The current process is complete: its last chunks, and its column_sets rows. */
int sink_chunks_end(struct sink *s);
/* Seal table t's buffered rows into a chunk and write the one before; wait: write this one too. */
int sink_chunks_flush(struct sink *s, enum colstore_table t, int wait);
/* Add offset_ns to the times of the current process's chunks, written and buffered. */
int sink_chunks_shift(struct sink *s, int64_t offset_ns);
/*
 * Chunks for the rows of session that table t holds from rowid from[t] on (rows just added, process
 * after process), after the session's chunks, with a column_sets row per process. 0, or -1.
 */
int sink_chunks_append(struct sink *s, int64_t session, const int64_t from[CS_TABLES]);

#endif
