#include "db.h"
#include "embed.h"
#include "sqlext.h"
#include "util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int db_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("sqlite: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		error("sqlite: %s", sqlite3_errmsg(db));
		return NULL;
	}
	return st;
}

static int schema_version(sqlite3 *db, int64_t *version)
{
	sqlite3_stmt *st;
	int rc;
	*version = 0;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st, NULL)
	    != SQLITE_OK)
		return -1;	/* no meta table: not one of ours, or empty */
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/*
 * Schema version 1 to 2: kernels gain shared_mem (static + dynamic for the rows already there), whose
 * column chunks (lib/colstore.h) then lack a column: they are dropped (analyses read the rows until
 * `gpuprof-ingest --reindex`), and the view that shows it is made again. 0, or -1.
 */
static int migrate_v1(sqlite3 *db)
{
	return db_exec(db, "ALTER TABLE kernels ADD COLUMN shared_mem INTEGER;"
		       "DELETE FROM column_chunks WHERE tbl = 'kernels';"
		       "DELETE FROM column_sets WHERE tbl = 'kernels';"
		       "UPDATE kernels SET shared_mem = static_smem + dynamic_smem;"
		       "DROP VIEW IF EXISTS kernel_events;"
		       "UPDATE meta SET value = '2' WHERE key = 'schema_version';");
}

/* A connection to path with what every connection has: a busy timeout and gpuprof's SQL functions; NULL, or a message. */
static sqlite3 *open_conn(const char *path, int flags)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		error("%s: cannot open database: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 5000);
	if (gpuprof_sqlite_register(db) != SQLITE_OK) {
		error("%s: cannot register the SQL functions: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

sqlite3 *db_clone(sqlite3 *db)
{
	/* SQLite's default page cache: a clone scans a slice once, which a bigger cache does not speed up. */
	return open_conn(sqlite3_db_filename(db, "main"), SQLITE_OPEN_READONLY);
}

sqlite3 *db_open(const char *path, enum db_mode mode)
{
	sqlite3 *db;
	int flags = mode == DB_WRITE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	int64_t version;

	static int configured;
	if (!configured) {
		/*
		 * The writer (ingest) uses SQLite from one thread only (its decoder thread never touches it), so
		 * SQLite's mutexes are pure cost on the insert path. Readers scan big tables on several
		 * connections, one per thread (analyze/scan.c), which multi-thread mode allows.
		 */
		sqlite3_config(mode == DB_WRITE ? SQLITE_CONFIG_SINGLETHREAD : SQLITE_CONFIG_MULTITHREAD);
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		configured = 1;
	}
	if (mode == DB_READ && access(path, F_OK)) {
		error("%s: no such file", path);
		return NULL;
	}
	if (!(db = open_conn(path, flags)))
		return NULL;
	if (schema_version(db, &version) == 0) {
		if (version > DB_SCHEMA_VERSION) {
			error("%s: schema version %lld is newer than this gpuprof understands (%d)", path,
			      (long long)version, DB_SCHEMA_VERSION);
			goto fail;
		}
		if (version < DB_SCHEMA_VERSION && mode == DB_READ) {
			error("%s: written by an older gpuprof (schema version %lld): `gpuprof-ingest --reindex -o %s` "
			      "upgrades it", path, (long long)version, path);
			goto fail;
		}
	} else if (mode == DB_READ) {
		error("%s: not a gpuprof session database (no schema version in table 'meta')", path);
		goto fail;
	} else {
		/* New or foreign file: a fresh database gets big pages, which suit bulk event tables. */
		sqlite3_stmt *st = db_prepare(db, "SELECT count(*) FROM sqlite_master");
		int empty = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0;
		sqlite3_finalize(st);
		if (!st)
			goto fail;
		if (!empty) {
			error("%s: exists and is not a gpuprof session database", path);
			goto fail;
		}
		if (db_exec(db, "PRAGMA page_size = 65536"))
			goto fail;
	}
	/* After page_size: a cache size in KiB is turned into pages with the page size in force. */
	if (db_exec(db, "PRAGMA cache_size = -16384"))
		goto fail;
	if (mode == DB_WRITE) {
		if (db_exec(db, "PRAGMA synchronous = NORMAL") ||
		    db_exec(db, "BEGIN") ||
		    db_exec(db, embed_get("schemas/session.sql")) ||
		    (version == 1 && migrate_v1(db)) ||
		    db_exec(db, embed_get("schemas/views.sql")) ||
		    db_exec(db, "COMMIT"))
			goto fail;
	}
	return db;
fail:
	sqlite3_close(db);
	return NULL;
}

void db_close(sqlite3 *db)
{
	sqlite3_stmt *st;
	if (!db)
		return;
	while ((st = sqlite3_next_stmt(db, NULL)))
		sqlite3_finalize(st);
	sqlite3_close(db);
}

int db_session(sqlite3 *db, const char *want, int64_t *id)
{
	sqlite3_stmt *st;
	int64_t n;
	int rc;
	if (!want)
		st = db_prepare(db, "SELECT max(id) FROM sessions");
	else if (!parse_i64(want, strlen(want), &n))
		st = db_prepare(db, "SELECT id FROM sessions WHERE id = ?1 OR uuid = ?2");
	else
		st = db_prepare(db, "SELECT id FROM sessions WHERE uuid = ?2");
	if (!st)
		return -1;
	if (want) {
		if (!parse_i64(want, strlen(want), &n))
			sqlite3_bind_int64(st, 1, n);
		sqlite3_bind_text(st, 2, want, -1, SQLITE_TRANSIENT);
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL) {
		sqlite3_finalize(st);
		if (want)
			return error("no session '%s' in the database", want);
		return error("the database holds no session");
	}
	*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

void db_timestamp(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int db_regex_check(const char *pattern)
{
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode, &erroff,
				       NULL);
	char msg[256];
	if (re) {
		pcre2_code_free(re);
		return 0;
	}
	pcre2_get_error_message(errcode, (PCRE2_UCHAR *)msg, sizeof(msg));
	return error("bad regular expression '%s': %s at offset %zu", pattern, msg, (size_t)erroff);
}
