#include "db.h"
#include "embed.h"
#include "sqlext.h"
#include "util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>

static int system_failed;	/* a db_error since the last db_open was the system's */

/* What failed, by SQLite's extended I/O error code: the words after "disk I/O error (". */
static const struct {
	int code;
	const char *what;
} io_errors[] = {
	{ SQLITE_IOERR_READ, "read failed" },
	{ SQLITE_IOERR_SHORT_READ, "short read" },
	{ SQLITE_IOERR_WRITE, "write failed" },
	{ SQLITE_IOERR_FSYNC, "sync failed" },
	{ SQLITE_IOERR_DIR_FSYNC, "directory sync failed" },
	{ SQLITE_IOERR_TRUNCATE, "truncate failed" },
	{ SQLITE_IOERR_FSTAT, "stat failed" },
	{ SQLITE_IOERR_LOCK, "lock failed" },
	{ SQLITE_IOERR_UNLOCK, "unlock failed" },
	{ SQLITE_IOERR_RDLOCK, "read lock failed" },
	{ SQLITE_IOERR_CHECKRESERVEDLOCK, "lock check failed" },
	{ SQLITE_IOERR_DELETE, "journal delete failed" },
	{ SQLITE_IOERR_DELETE_NOENT, "journal delete failed" },
	{ SQLITE_IOERR_ACCESS, "access check failed" },
	{ SQLITE_IOERR_NOMEM, "out of memory" },
	{ SQLITE_IOERR_MMAP, "memory map failed" },
};

int db_system_error(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_IOERR: case SQLITE_FULL: case SQLITE_CANTOPEN: case SQLITE_BUSY: case SQLITE_LOCKED:
	case SQLITE_NOMEM: case SQLITE_READONLY: case SQLITE_PERM: case SQLITE_NOLFS:
		return 1;
	}
	return 0;
}

int db_error(sqlite3 *db)
{
	int rc = sqlite3_extended_errcode(db);
	const char *path = sqlite3_db_filename(db, "main");
	size_t i;
	if (!db_system_error(rc))
		return error("sqlite: %s", sqlite3_errmsg(db));
	system_failed = 1;
	if ((rc & 0xff) == SQLITE_NOMEM || rc == SQLITE_IOERR_NOMEM)	/* one line, whoever ran out first */
		return error_oom("%s: out of memory", path && *path ? path : "database");
	for (i = 0; i < sizeof(io_errors) / sizeof(io_errors[0]); i++)
		if (io_errors[i].code == rc)
			return error("%s: %s (%s)", path && *path ? path : "database", sqlite3_errmsg(db),
				     io_errors[i].what);
	return error("%s: %s", path && *path ? path : "database", sqlite3_errmsg(db));
}

int db_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (db_system_error(sqlite3_extended_errcode(db)))
			db_error(db);
		else
			error("sqlite: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* The progress handler of a writer's connection: non-zero (stop the statement) once a stop signal came. */
static int stop_asked(void *arg)
{
	(void)arg;
	return util_stop_signal() != 0;
}

void db_stop_on_signal(sqlite3 *db)
{
	sqlite3_progress_handler(db, 1000, stop_asked, NULL);
}

void db_rollback(sqlite3 *db, const char *sql)
{
	sqlite3_progress_handler(db, 0, NULL, NULL);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	db_stop_on_signal(db);
}

sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(db);
		return NULL;
	}
	return st;
}

/* The steps from each older schema version to the next, in order (see schemas/session.sql's history). */
static const struct migration {
	int to;			/* the version the step makes */
	const char *sql;	/* embedded SQL file, run first */
	int (*fn)(sqlite3 *db);	/* what SQL cannot say, then; NULL when nothing (0, or -1 with a message) */
} migrations[] = {
	{ 2, "schemas/migrate-2.sql", NULL },
	{ 3, "schemas/migrate-3.sql", NULL },
	{ 4, "schemas/migrate-4.sql", NULL },
	{ 5, "schemas/migrate-5.sql", NULL },
	{ 6, "schemas/migrate-6.sql", NULL },
};

static int refused;	/* the last db_open failed on what the file holds */
static int reading;	/* the db_open in progress is for DB_READ */

static int no_session;	/* the last db_session failed: 1 no such session, 2 none at all */
static int unreadable;	/* the last db_open failed to read the file (missing, I/O error) */

int db_refused(void)
{
	return refused;
}

int db_exit_code(void)
{
	if (no_session)
		return no_session == 1 ? EXIT_USAGE : EXIT_DATA;
	return (unreadable || system_failed) && !refused ? EXIT_SYSTEM : EXIT_DATA;
}

/* One integer from a statement with no parameters (0 when no row); -1 on error, the message left to the caller. */
static int query_int(sqlite3 *db, const char *sql, int64_t *v)
{
	sqlite3_stmt *st;
	int rc;
	*v = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/*
 * views.sql: its views dropped and made again (an older database gets this build's), but only when meta's
 * `views` (a hash of the text that made them) says they are another build's: a database the same build
 * made is then not written to when nothing else is (a refused input leaves it as it was). 0, or -1.
 */
static int make_views(sqlite3 *db)
{
	const char *sql = embed_get("schemas/views.sql");
	char want[24], *set;
	sqlite3_stmt *st;
	int same = 0;
	if (!sql)
		return error("internal: schemas/views.sql is not embedded");
	snprintf(want, sizeof(want), "%016llx", (unsigned long long)fnv1a(FNV1A_INIT, sql, strlen(sql)));
	if (sqlite3_prepare_v2(db, "SELECT value = ?1 FROM meta WHERE key = 'views'", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, want, -1, SQLITE_STATIC);
		same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (same)
		return 0;
	if (db_exec(db, sql))
		return -1;
	set = sqlite3_mprintf("INSERT OR REPLACE INTO meta VALUES ('views', %Q)", want);
	if (!set)
		return error("out of memory");
	same = db_exec(db, set);
	sqlite3_free(set);
	return same ? -1 : 0;
}

/*
 * 1 when path holds what gpuprof-ingest reads: JSON (a trace, NDJSON), gzip, or an SQLite file with an
 * Nsight Systems export's tables (db, which may be unusable, is its connection).
 */
static int ingestible(sqlite3 *db, const char *path)
{
	unsigned char head[64];
	size_t n, i = 0;
	FILE *f = fopen(path, "rb");
	int64_t tables = 0;
	if (!f)
		return 0;
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	if (i < n && (head[i] == '{' || head[i] == '['))
		return 1;
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		return 1;
	return !query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
			  "('StringIds', 'TARGET_INFO_GPU', 'CUPTI_ACTIVITY_KIND_KERNEL', 'NVTX_EVENTS')", &tables) &&
	       tables > 0;
}

/*
 * Print that path is not a gpuprof session database (why), set refused, return -1. For a reader, a
 * profile that gpuprof-ingest takes gets the command that makes it one instead.
 */
static int not_ours(sqlite3 *db, const char *path, const char *why)
{
	char reason[256];
	refused = 1;
	snprintf(reason, sizeof(reason), "%s", why);	/* (it may be db's message, which a query replaces) */
	if (reading && ingestible(db, path))
		return error("%s: not a session database; ingest it first: gpuprof-ingest %s -o session.db", path, path);
	return error("%s: not a gpuprof session database (%s)", path, reason);
}

/*
 * The schema version of a database gpuprof made before it kept one in PRAGMA user_version: meta's
 * schema_version said 1 for versions 1 to 3 (told apart by the tables they brought) and 2 for version 4.
 * The only place gpuprof looks for tables. *version is 0 for an empty file; -1 with a message for a
 * file that is not a gpuprof session database (refused is set).
 */
static int legacy_version(sqlite3 *db, const char *path, int64_t *version)
{
	sqlite3_stmt *st;
	int64_t objects = 0, meta = 0, chunks = 0, overheads = 0, said = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*), coalesce(sum(name = 'meta'), 0), "
			       "coalesce(sum(name = 'column_chunks'), 0), coalesce(sum(name = 'overheads'), 0) "
			       "FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'", -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return not_ours(db, path, sqlite3_errmsg(db));
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		objects = sqlite3_column_int64(st, 0);
		meta = sqlite3_column_int64(st, 1);
		chunks = sqlite3_column_int64(st, 2);
		overheads = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	*version = 0;
	if (!objects)
		return 0;
	if (meta && query_int(db, "SELECT value FROM meta WHERE key = 'schema_version'", &said))
		return not_ours(db, path, sqlite3_errmsg(db));
	if (said == 1)
		*version = !chunks ? 1 : !overheads ? 2 : 3;
	else if (said == 2)
		*version = 4;
	else if (said > 2)
		*version = said;	/* made from session.sql by hand, without its PRAGMA user_version */
	return *version ? 0 : not_ours(db, path, "no schema version in table 'meta'");
}

/* gpuprof_schema_version(): the version db_open found, as db_schema_version returns it. */
static void sql_schema_version(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	sqlite3_result_int64(ctx, (int64_t)(intptr_t)sqlite3_user_data(ctx));
}

static int set_version(sqlite3 *db, int64_t version)
{
	if (sqlite3_create_function(db, "gpuprof_schema_version", 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    (void *)(intptr_t)version, sql_schema_version, NULL, NULL) != SQLITE_OK)
		return error("cannot register gpuprof_schema_version(): %s", sqlite3_errmsg(db));
	return 0;
}

int db_schema_version(sqlite3 *db)
{
	int64_t v;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT gpuprof_schema_version()", -1, &st, NULL) != SQLITE_OK)
		return db_error(db);
	v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	return (int)v;
}

/*
 * The schema version of the file db holds (0 when empty), or -1 with a message (refused set) when it is
 * not a gpuprof session database or is newer than this build.
 */
static int find_version(sqlite3 *db, const char *path, int64_t *version)
{
	int64_t app;
	char why[64];
	if (query_int(db, "PRAGMA user_version", version) || query_int(db, "PRAGMA application_id", &app)) {
		if (sqlite3_errcode(db) == SQLITE_NOTADB)
			return not_ours(db, path, sqlite3_errmsg(db));
		unreadable = 1;
		return db_error(db);
	}
	if (!*version) {
		if (legacy_version(db, path, version))
			return -1;
	} else if (app != DB_APPLICATION_ID) {
		snprintf(why, sizeof(why), "application_id %lld", (long long)app);
		return not_ours(db, path, why);
	}
	if (*version > DB_SCHEMA_VERSION) {
		refused = 1;
		return error("%s: schema version %lld is newer than this gpuprof (%d): upgrade gpuprof", path,
			     (long long)*version, DB_SCHEMA_VERSION);
	}
	return 0;
}

/*
 * Bring db from schema version `from` (0: empty) to this build's, in the caller's transaction: the
 * migration steps after `from`, then session.sql (which makes what is missing, fills the lookup tables
 * and sets the version) and views.sql. 0, or -1 with a message.
 */
static int upgrade(sqlite3 *db, const char *path, int64_t from)
{
	size_t i;
	for (i = 0; from && i < sizeof(migrations) / sizeof(migrations[0]); i++) {
		const struct migration *m = &migrations[i];
		if (m->to <= from)
			continue;
		if (!embed_get(m->sql) || db_exec(db, embed_get(m->sql)) || (m->fn && m->fn(db)))
			return error("%s: cannot upgrade schema version %d to %d", path, m->to - 1, m->to);
	}
	return db_exec(db, embed_get("schemas/session.sql")) || make_views(db) ? -1 : 0;
}

/*
 * GPUPROF_PROFILE_SQL set: each statement's run time and its first line that is not a comment to stderr, when it ends
 * (sqlite3_trace_v2 profile events; a statement run through a trigger or view is one statement).
 */
static int profile_statement(unsigned type, void *ctx, void *p, void *x)
{
	const char *sql = sqlite3_sql(p);
	int len;
	(void)type, (void)ctx;
	while (sql && (*sql == ' ' || *sql == '\t' || *sql == '\n' || !strncmp(sql, "--", 2)))
		sql += strncmp(sql, "--", 2) ? 1 : strcspn(sql, "\n");
	len = sql ? (int)strcspn(sql, "\n") : 0;
	fprintf(stderr, "gpuprof: sql: %9.3f ms  %.*s\n", *(sqlite3_int64 *)x / 1e6, len > 100 ? 100 : len,
		sql ? sql : "");
	return 0;
}

/* A connection to path with what every connection has: a busy timeout and gpuprof's SQL functions; NULL, or a message. */
static sqlite3 *open_conn(const char *path, int flags)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		unreadable = 1;
		error("%s: cannot open database: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 5000);
	if (getenv("GPUPROF_PROFILE_SQL"))
		sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, profile_statement, NULL);
	if (gpuprof_sqlite_register(db) != SQLITE_OK) {
		error("%s: cannot register the SQL functions: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/*
 * A read-only connection to a database of an older version: each later version's schemas/read-N.sql
 * that exists gives it what version N brought, empty, as TEMP tables (the file is not changed), so that
 * the analyses' SQL reads this build's schema. 0, or -1 with a message.
 */
static int read_shims(sqlite3 *db, int64_t version)
{
	char name[48];
	int64_t v;
	for (v = version + 1; v <= DB_SCHEMA_VERSION; v++) {
		const char *sql;
		snprintf(name, sizeof(name), "schemas/read-%lld.sql", (long long)v);
		if ((sql = embed_get(name)) && db_exec(db, sql))
			return -1;
	}
	return 0;
}

/*
 * A reader's connection that cannot read because an ingest killed or failed midway left a hot journal,
 * which a read-only connection cannot roll back (SQLITE_READONLY_ROLLBACK): a read-write connection
 * rolls it back, as the next writer or sqlite3 would, giving the database as it was before that ingest.
 * 1 when it did (the caller opens again), 0 when there was none, -1 with a message when it cannot be.
 */
static int roll_back_journal(sqlite3 *db, const char *path)
{
	sqlite3 *rw = NULL;
	int rc;
	sqlite3_exec(db, "SELECT 1 FROM sqlite_master LIMIT 1", NULL, NULL, NULL);
	if (sqlite3_extended_errcode(db) != SQLITE_READONLY_ROLLBACK)
		return 0;
	rc = sqlite3_open_v2(path, &rw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(rw, 5000);
		rc = sqlite3_exec(rw, "SELECT 1 FROM sqlite_master LIMIT 1", NULL, NULL, NULL);
	}
	if (rc != SQLITE_OK) {
		system_failed = 1;
		error("%s: an interrupted ingest left a journal that this user cannot roll back: %s", path,
		      rw ? sqlite3_errmsg(rw) : "out of memory");
	}
	sqlite3_close(rw);
	return rc == SQLITE_OK ? 1 : -1;
}

static sqlite3 *writing;		/* the writer's connection (DB_WRITE), for oom_roll_back */
static pthread_t writing_thread;	/* the thread that opened it, the only one that may use it */

/*
 * Out of memory (util's out_of_memory): the writer's open transaction rolled back, so that the database is
 * as it was and no journal is left. Only on the thread that uses the connection (SQLite's single-thread
 * mode): on another, the journal stays and the next opener rolls it back.
 */
static void oom_roll_back(void)
{
	if (writing && pthread_equal(writing_thread, pthread_self()) && !sqlite3_get_autocommit(writing))
		sqlite3_exec(writing, "ROLLBACK", NULL, NULL, NULL);
}

sqlite3 *db_open(const char *path, enum db_mode mode)
{
	sqlite3 *db;
	int flags = mode == DB_WRITE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	int64_t version;
	struct stat st;
	int rc;

	static int configured;
	refused = 0;
	no_session = 0;
	unreadable = 0;
	system_failed = 0;
	reading = mode == DB_READ;
	if (!configured) {
		/*
		 * The writer (ingest) uses SQLite from one thread only (its decoder thread never touches it), so
		 * SQLite's mutexes are pure cost on the insert path. Readers may use a connection per
		 * thread, which multi-thread mode allows.
		 */
		sqlite3_config(mode == DB_WRITE ? SQLITE_CONFIG_SINGLETHREAD : SQLITE_CONFIG_MULTITHREAD);
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		configured = 1;
	}
	if (mode == DB_READ && is_nsys_report(path)) {
		refused = 1;
		error_nsys_report(path);
		return NULL;
	}
	if (mode == DB_READ && stat(path, &st)) {
		unreadable = 1;
		error("%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	if (strcmp(path, ":memory:") && !stat(path, &st) && S_ISDIR(st.st_mode)) {
		if (mode == DB_WRITE)
			return error("%s: is a directory; -o names the database file to write", path), NULL;
		refused = 1;
		error("%s: is a directory, not a session database; a recorded session directory is ingested first: "
		      "gpuprof-ingest %s -o session.db", path, path);
		return NULL;
	}
	if (!(db = open_conn(path, flags)))
		return NULL;
	if (mode == DB_WRITE)
		db_stop_on_signal(db);
	if (mode == DB_READ && (rc = roll_back_journal(db, path))) {
		sqlite3_close(db);
		if (rc < 0 || !(db = open_conn(path, flags)))
			return NULL;
	}
	if (find_version(db, path, &version))
		goto fail;
	if (!version && mode == DB_READ) {
		not_ours(db, path, "an empty database");
		goto fail;
	}
	/* A fresh database gets big pages, which suit bulk event tables. */
	if (!version && db_exec(db, "PRAGMA page_size = 65536"))
		goto fail;
	/* After page_size: a cache size in KiB is turned into pages with the page size in force. */
	if (db_exec(db, "PRAGMA cache_size = -16384"))
		goto fail;
	/*
	 * Writers bring an older database up to date in one transaction; readers read it as it is, with
	 * what it lacks given empty (read_shims) or asked of db_schema_version.
	 */
	if (mode == DB_WRITE) {
		/*
		 * IMMEDIATE: the write lock first. A deferred transaction that reads and then writes while
		 * another ingest writes gets SQLITE_BUSY at once, without the busy timeout (SQLite's deadlock
		 * avoidance): two ingests into one database failed with "database is locked".
		 */
		if (db_exec(db, "PRAGMA synchronous = NORMAL") || db_exec(db, "BEGIN IMMEDIATE"))
			goto fail;
		if (upgrade(db, path, version) || util_stop_signal() || db_exec(db, "COMMIT")) {
			db_rollback(db, "ROLLBACK");
			goto fail;
		}
		if (version && version < DB_SCHEMA_VERSION)
			info("%s: upgraded from schema version %lld to %d", path, (long long)version, DB_SCHEMA_VERSION);
		version = DB_SCHEMA_VERSION;
	}
	if (set_version(db, version) || (mode == DB_READ && read_shims(db, version)))
		goto fail;
	if (mode == DB_WRITE) {
		writing = db;
		writing_thread = pthread_self();
		util_at_oom(oom_roll_back);
	}
	/* The fast views the analyses read, as `.load gpuprof_sqlite` gives sqlite3 users (views-ext.sql). */
	if (mode == DB_READ && gpuprof_sqlite_views(db) != SQLITE_OK) {
		error("%s: cannot make the extension's views: %s", path, sqlite3_errmsg(db));
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
	if (db == writing)
		writing = NULL;
	while ((st = sqlite3_next_stmt(db, NULL)))
		sqlite3_finalize(st);
	sqlite3_close(db);
}

int db_session(sqlite3 *db, const char *want, int64_t *id)
{
	sqlite3_stmt *st;
	int64_t n;
	int rc;
	no_session = 0;
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
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return db_error(db);
		no_session = want ? 1 : 2;
		if (want)
			return error("no session '%s' in the database", want);
		return error("the database holds no session");
	}
	*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int db_session_start(sqlite3 *db, int64_t id, int64_t *ns)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT start_ns FROM sessions WHERE id = ?");
	int rc;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*ns = sqlite3_column_int64(st, 0);
		rc = 1;
	} else {
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_error(db);
	}
	sqlite3_finalize(st);
	return rc;
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
