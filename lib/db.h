/*
 * db: opening session.db, its schema, and small SQLite helpers shared by every program.
 *
 * db_open returns a connection the caller closes with db_close. It registers gpuprof's SQL functions
 * (lib/sqlext.h: regexp, so `name REGEXP ?` works, median, busy_union, ...).
 * Helpers that fail print a message with error() and return -1 (or NULL).
 */
#ifndef GPUPROF_DB_H
#define GPUPROF_DB_H

#include <sqlite3.h>
#include <stdint.h>

#define DB_SCHEMA_VERSION 2	/* 2: kernels.shared_mem, ingest_skipped */

enum db_mode {
	DB_READ,	/* analyses and reports: the file must exist and carry our schema */
	DB_WRITE	/* ingest: created if missing, schema and views applied */
};

sqlite3 *db_open(const char *path, enum db_mode mode);
void db_close(sqlite3 *db);
/* Another read-only connection to db's file, with the same SQL functions (for a second thread); NULL with a message. */
sqlite3 *db_clone(sqlite3 *db);

/* Run SQL text with no results; -1 with a message on failure. */
int db_exec(sqlite3 *db, const char *sql);
/* Prepare one statement; NULL with a message on failure. */
sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql);

/*
 * Pick a session: `want` is NULL (the newest, i.e. highest id), a numeric id, or a session uuid.
 * Returns 0 and sets *id, or -1 with a message.
 */
int db_session(sqlite3 *db, const char *want, int64_t *id);

/* 0 if pattern is a valid PCRE2 expression, else -1 with a message. */
int db_regex_check(const char *pattern);

/* Current UTC time as ISO 8601 ("2026-11-22T15:13:58Z") into out[32]. */
void db_timestamp(char out[32]);

#endif
