/*
 * sink: the one way into session.db. Every reader (wire format, Kineto, nsys) hands typed records to a
 * sink, which writes them with prepared statements inside one transaction per input.
 *
 * Ownership: sink_open borrows the sqlite3 connection (the caller closes it after sink_free). Strings
 * passed in are copied when kept. Functions return 0 on success, -1 with a message printed.
 *
 * Order of calls for one input:
 *   sink_tx_begin; { sink_process_begin; sink_string/sink_add/sink_drop...; sink_process_end }...;
 *   sink_tx_commit (or sink_tx_rollback to leave the database as it was).
 */
#ifndef GPUPROF_SINK_H
#define GPUPROF_SINK_H

#include <sqlite3.h>
#include <stdint.h>
#include <stddef.h>
#include "records.h"

#include <stdio.h>

struct sink;

/* What a reader knows about the session and the process it is reading. */
struct sink_process {
	const char *uuid;	/* session id; required */
	const char *source;	/* "ndjson", "kineto", "nsys" */
	const char *path;	/* the input as given */
	const char *file;	/* the file this process came from */
	const char *program, *args_json, *hostname, *engine, *collector, *options_json;
	int64_t format_version;
	int64_t origin_ns;
	int64_t pid, ppid;
	int64_t rank;		/* -1 when unknown */
	/*
	 * What tells this process apart when the session has one of its host and pid already. NULL (the wire
	 * format, nsys): that one is this one (the wire format: when also of a file of the same name). Else a
	 * digest of the input (Kineto: the file's hash), stored as processes.options' "content_hash": the
	 * process is in the database only when one of the session has the same digest (or, ingested before
	 * digests were kept, the same host, pid and file name); another is kept under pid + k * 2^32, with a
	 * warning at sink_process_end naming both files.
	 */
	const char *content;
	int session_copy;	/* the input is gpuprof's own export of session uuid: in the database when it is */
};

struct sink *sink_open(sqlite3 *db);
/*
 * A sink that writes every call to f instead of a database (ingest/sink_spool.c), for a reader in another
 * process: it answers as a database would for a new process (sink_process_begin never says 1). f stays
 * the caller's. sink_replay makes those calls on s, a database's sink, in order: 0, or -1 when the spool
 * is damaged or a call failed (with a message; what names the input). *status is raised to EXIT_SYSTEM
 * when nothing of a transaction could be kept; *events counts the records added.
 */
struct sink *sink_spool_open(FILE *f);
int sink_replay(struct sink *s, FILE *f, const char *what, int *status, int64_t *events);
/*
 * A sink for fuzzing (ingest/sink_check.c): a spooling sink that writes nowhere and checks every call against
 * the contract above (order, string ids, value kinds); a broken one prints what and calls abort().
 * sink_check_done, after the reader returned, checks it closed its transaction; 0. NULL if no FILE.
 */
struct sink *sink_check_open(void);
int sink_check_done(struct sink *s);
void sink_free(struct sink *s);

int sink_tx_begin(struct sink *s);
/*
 * One transaction around many inputs' (gpuprof-ingest -j): until sink_batch_commit, each input's
 * transaction is a savepoint of it, so a failed input still leaves nothing and the disk is synced once.
 */
int sink_batch_begin(struct sink *s);
/* (sink_batch_commit and sink_tx_commit: -1 without a message when an error SQLite met rolled all back.) */
int sink_batch_commit(struct sink *s);
/* Whether a batch is open. */
int sink_batch_active(const struct sink *s);
/* Roll the batch back, every input's savepoint with it (a stop signal came). */
void sink_batch_rollback(struct sink *s);
/*
 * The transactions s committed (a batch is one): what a run stopped by a signal kept. Once a stop signal
 * came (util_stop_signal), every transaction rolls back, unless its COMMIT had begun.
 */
int64_t sink_commits(const struct sink *s);
int sink_tx_commit(struct sink *s);
void sink_tx_rollback(struct sink *s);

/*
 * Add the gpuprof database at path (ingest/sink_combine.c): each session into the session of its id, or
 * into `session` when not NULL; processes already there are skipped. Counts the event rows and processes
 * added. A session whose column chunks were incomplete loses them: sink_reindex after the last input.
 * 0; -2 when path is not a gpuprof database of this schema version (a message said so); -1 error.
 */
int sink_combine(struct sink *s, const char *path, const char *session, int64_t *events, int64_t *processes);

/* Start a process: 1 when it is already in the database (the caller skips it), 0 to go on, -1 error. */
int sink_process_begin(struct sink *s, const struct sink_process *p);
/* Finish it: clean_end 1 when its session-end record was read; end_ns 0 to use the last event. */
int sink_process_end(struct sink *s, int clean_end, int64_t end_ns);

/* The database id of string `v` in the current session (added if new); -1 on error. */
int64_t sink_string(struct sink *s, const char *v, size_t len);
/* The string for a database id seen in this process, or NULL (also for an emit_nvtx op's range text: one
   string per call, kept out of memory; ingest/sink_strings.c). */
const char *sink_string_value(struct sink *s, int64_t id);

/*
 * Add one record: vals[] in the field order of rec_specs[t], string ids already database ids. A push/pop
 * range whose text is an emit_nvtx op's also adds a row of ops (ingest/sink_rows.c).
 */
int sink_add(struct sink *s, enum rec_type t, const struct value *vals);
/* Records added per type in the current process. */
int64_t sink_count(const struct sink *s, enum rec_type t);
/* The records written since sink_open, all processes; may be read from another thread (progress). */
int64_t sink_rows(struct sink *s);

/*
 * Add offset_ns to every time the current process has written so far (a format whose time base comes
 * after its events, like Kineto's baseTimeNanoseconds). Returns 0 or -1.
 */
int sink_shift_times(struct sink *s, int64_t offset_ns);
/* Set the current process's distributed rank. */
int sink_set_rank(struct sink *s, int64_t rank);

/*
 * Rebuild the column chunks (colstore.h) of every session whose chunks are missing or incomplete (a
 * database from before chunks, or tables changed with sqlite3), in a transaction of its own; *rebuilt
 * says how many sessions. 0, or -1.
 */
int sink_reindex(struct sink *s, int64_t *rebuilt);

int sink_drop(struct sink *s, int64_t ts_ns, const char *source, const char *what, int64_t count);
int sink_collector_error(struct sink *s, int64_t ts_ns, const char *what, const char *reason);
/*
 * A trace window of the current process (table trace_windows): activity traced from start_ns to end_ns
 * (-1: not known yet; the process's end when it stays so), ranges_cut ranges left out at its edge. The
 * same start again updates it (its end only grows). 0, or -1.
 */
int sink_window(struct sink *s, int64_t start_ns, int64_t end_ns, int64_t ranges_cut);
/*
 * Record that `count` events of category cat and phase ph in file were not read, gpu of them looking like
 * GPU work (table ingest_skipped), for the current process. 0, or -1.
 */
int sink_skipped(struct sink *s, const char *file, const char *cat, const char *ph, int64_t count, int64_t gpu);
/*
 * Repairs: what the sink stores is valid UTF-8 (lib/utf8.h). Every string handed to it (sink_string, the
 * sink_process fields, F_TEXT values, the bookkeeping tables' text) has each invalid UTF-8 sequence
 * replaced with U+FFFD; the current process counts them (a string of the strings table once per session,
 * when it is first stored). A reader adds what it repaired itself: the \u0000 escapes its JSON parser
 * turned into U+FFFD (lib/json.h). sink_process_end records each nonzero count in table ingest_repairs and
 * prints one warning for the process ("FILE: 3 invalid UTF-8 sequences and 1 NUL replaced with U+FFFD");
 * the data is kept and the exit status is not changed by it.
 */
enum sink_repair { SINK_REPAIR_UTF8, SINK_REPAIR_NUL, SINK_REPAIRS };
extern const char *const sink_repair_names[SINK_REPAIRS];	/* ingest_repairs.what: "invalid UTF-8", "NUL" */
/* Add count repairs of kind what to the current process's. 0, or -1. */
int sink_repaired(struct sink *s, enum sink_repair what, int64_t count);

/* Record a rejected line; works inside or outside a transaction. session_id is NULL outside a process. */
int sink_ingest_error(struct sink *s, const char *file, int64_t line, const char *reason, const char *excerpt);

#endif
