/*
 * db: opening session.db, its schema, and small SQLite helpers shared by every program.
 *
 * db_open returns a connection the caller closes with db_close. It registers gpuprof's SQL functions
 * (analyze/ext/sqlext.h: regexp, so `name REGEXP ?` works, median, busy_union, ...).
 * Helpers that fail print a message with error() and return -1 (or NULL).
 *
 * Schema versions (the history is in schemas/session.sql's header): PRAGMA user_version holds the
 * version, PRAGMA application_id DB_APPLICATION_ID says the file is ours. db_open for DB_WRITE brings an
 * older database up to this build's version in one transaction (schemas/migrate-N.sql, version N-1 to
 * N); for DB_READ it reads it as it is, given what later versions brought as empty TEMP tables where
 * schemas/read-N.sql says how, and analyses ask db_schema_version what else it lacks (DB_V_*). A
 * database newer than this build is refused by both, untouched. Databases from before user_version
 * (0 there) are told by their tables, once, at open.
 */
#ifndef GPUPROF_DB_H
#define GPUPROF_DB_H

#include <sqlite3.h>
#include <stdint.h>

#define DB_SCHEMA_VERSION 6		/* this build's; schemas/session.sql sets it */
#define DB_APPLICATION_ID 0x47505246	/* "GPRF" */

/* The versions that brought what analyses read. */
#define DB_V_CHUNKS 2		/* column_chunks and column_sets; api_calls chunks as read today */
#define DB_V_OVERHEADS 3	/* overheads, overhead_kinds, object_kinds */
#define DB_V_SHARED_MEM 4	/* kernels.shared_mem, ingest_skipped; kernel chunks with shared_mem */
#define DB_V_WINDOWS 5		/* trace_windows, processes.options */
#define DB_V_HOST_IO 5		/* host_metrics' disk and network counters, flop_ops */
#define DB_V_ALLOC_FAILURES 5	/* alloc_failures (read as none before: read-5.sql) */
#define DB_V_REPAIRS 6		/* ingest_repairs (no analysis reads it) */
#define DB_V_OPS 6		/* ops, op_links, api_calls.external_id (read as none before: read-6.sql) */

enum db_mode {
	DB_READ,	/* analyses and reports: the file must exist and carry our schema, any version up to ours */
	DB_WRITE	/* ingest: created if missing, brought to this version, schema and views applied */
};

sqlite3 *db_open(const char *path, enum db_mode mode);
/* 1 when the last db_open failed on what the file holds (not ours, newer schema: exit 3), else 0. */
int db_refused(void);
/*
 * The exit code for the last failed db_open or db_session: EXIT_USAGE for a session asked for that is
 * not there, EXIT_SYSTEM for a file that cannot be read (missing, an I/O error), else EXIT_DATA (not a
 * session database, one that holds no session).
 */
int db_exit_code(void);
/*
 * The schema version of db's file as db_open found it (DB_SCHEMA_VERSION once opened for writing); also
 * SQL function gpuprof_schema_version() on connections of db_open. -1 with a message on a
 * connection they did not make.
 */
int db_schema_version(sqlite3 *db);
void db_close(sqlite3 *db);

/*
 * Print db's last error and return -1: "sqlite: MSG", or for a system error (I/O, a full disk, a lock
 * held, no memory: db_system_error) the file and what failed, "PATH: disk I/O error (write failed)", after
 * which db_exit_code says EXIT_SYSTEM.
 */
int db_error(sqlite3 *db);
/* 1 when SQLite's (extended) error code rc is the system's fault rather than the data's or the SQL's. */
int db_system_error(int rc);

/*
 * db_stop_on_signal: a statement of db stops (SQLITE_INTERRUPT, which rolls back the open transaction)
 * once util_stop_signal() says a stop signal came: a progress handler asks every 1000 steps. db_open does
 * so for DB_WRITE. db_rollback runs sql (a ROLLBACK, ROLLBACK TO or DETACH) quietly and never stopped so.
 */
void db_stop_on_signal(sqlite3 *db);
void db_rollback(sqlite3 *db, const char *sql);

/* Run SQL text with no results; -1 with a message on failure. */
int db_exec(sqlite3 *db, const char *sql);
/* Prepare one statement; NULL with a message on failure. */
sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql);

/*
 * Pick a session: `want` is NULL (the newest, i.e. highest id), a numeric id, or a session uuid.
 * Returns 0 and sets *id, or -1 with a message (db_exit_code says which kind of failure).
 */
int db_session(sqlite3 *db, const char *want, int64_t *id);

/*
 * The start of session id (sessions.start_ns, its first event), the origin of the JSON offsets: 1 and *ns
 * when it has one, 0 when it has none (no events), -1 with a message on error.
 */
int db_session_start(sqlite3 *db, int64_t id, int64_t *ns);

/* 0 if pattern is a valid PCRE2 expression, else -1 with a message. */
int db_regex_check(const char *pattern);

/* Current UTC time as ISO 8601 ("2026-11-22T15:13:58Z") into out[32]. */
void db_timestamp(char out[32]);

#endif
