/*
 * Unit tests for gpuprof_module (analyze/ext/sqlext_module.c) as gpuprof's programs link it (so the
 * sanitizer build runs it): no rows; the defaults it fills in and computes again; the includes it runs
 * once per parameters; a prelude by name; a baseline; its errors. tests/modules_shell.py runs it in the
 * sqlite3 shell against gpuprof-analyze.
 */
#include "check.h"
#include "db.h"
#include "sqlext.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sqlite3 *db;
static char text[4096];

/* The first column of sql's first row as text ("" for none, "NULL" for NULL, "error: ..." on an error). */
static const char *one(const char *sql)
{
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(text, sizeof(text), "error: %s", sqlite3_errmsg(db));
		return text;
	}
	text[0] = '\0';
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !text[0])
		snprintf(text, sizeof(text), "%s", sqlite3_column_type(st, 0) == SQLITE_NULL ? "NULL" :
			 (const char *)sqlite3_column_text(st, 0));
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		snprintf(text, sizeof(text), "error: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return text;
}

/* temp.sqlite_parameters' value of key. */
static const char *param(const char *key)
{
	char sql[128];
	snprintf(sql, sizeof(sql), "SELECT value FROM temp.sqlite_parameters WHERE key = '%s'", key);
	return one(sql);
}

static int exec(const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK;
}

/* A session database with sessions 1 and 2 (no events), open for writing. */
static sqlite3 *make_db(const char *path)
{
	sqlite3 *d = db_open(path, DB_WRITE);
	if (d && sqlite3_exec(d, "INSERT INTO sessions(id, uuid, source, start_ns, ingested_at) VALUES "
			      "(1, 'a', 'test', 1, 0), (2, 'b', 'test', 2, 0)", NULL, NULL, NULL) != SQLITE_OK)
		fprintf(stderr, "make_db: %s\n", sqlite3_errmsg(d));
	return d;
}

static void test_defaults(void)
{
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('hotspots')"), "0");
	CHECK_EQ_STR(param(":session"), "2");	/* the newest, as gpuprof-analyze */
	CHECK_EQ_STR(param(":top"), "-1");
	CHECK_EQ_STR(param(":short"), "0");
	CHECK_EQ_STR(param(":folded"), "0");
	CHECK_EQ_STR(param(":match"), "NULL");
	CHECK_EQ_STR(param(":exclude"), "NULL");
	CHECK_EQ_STR(one("SELECT count(*) FROM temp.name_groups"), "0");
	/* What is set wins; a default computes again from what changed since. */
	CHECK(!exec("UPDATE temp.sqlite_parameters SET value = 1 WHERE key = ':short'"));
	CHECK(!exec("REPLACE INTO temp.sqlite_parameters VALUES (':top', 5)"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('hotspots')"), "0");
	CHECK_EQ_STR(param(":folded"), "1");
	CHECK_EQ_STR(param(":top"), "5");
	CHECK(!exec("DELETE FROM temp.sqlite_parameters WHERE key = ':short'"));
	CHECK(!exec("INSERT INTO temp.name_groups VALUES (0, 'g', 'gemm')"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('hotspots')"), "0");
	CHECK_EQ_STR(param(":short"), "0");
	CHECK_EQ_STR(param(":folded"), "1");	/* a group folds */
	CHECK(!exec("DELETE FROM temp.name_groups"));
	/* A module's options: compare's, and ranks' :threshold_given (whether :threshold was set). */
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('ranks')"), "0");
	CHECK_EQ_STR(param(":threshold_given"), "0");
	CHECK(!exec("DELETE FROM temp.sqlite_parameters WHERE key = ':threshold'"));
	CHECK(!exec("INSERT INTO temp.sqlite_parameters VALUES (':threshold', 0.2)"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('ranks')"), "0");
	CHECK_EQ_STR(param(":threshold_given"), "1");
	CHECK_EQ_STR(param(":threshold"), "0.2");
	CHECK_EQ_STR(param(":class_rules_file"), "analyze/kernel-classes.rules");
	CHECK(strlen(param(":class_rules")) > 100);
}

static void test_includes(void)
{
	CHECK(!exec("DELETE FROM temp.gpuprof_modules; DELETE FROM temp.sqlite_parameters"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('memory')"), "0");
	CHECK_EQ_STR(one("SELECT group_concat(name, ' ') FROM (SELECT name FROM temp.gpuprof_modules ORDER BY name)"),
		     "memory-events views");
	CHECK_EQ_STR(one("SELECT count(*) FROM temp.mem_key"), "1");	/* memory-events.sql ran */
	/* Not again with the same parameters: a row of ours in its table stays. */
	CHECK(!exec("INSERT INTO temp.mem_key VALUES (-1, 0, 0, 0)"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('leaks')"), "0");
	CHECK_EQ_STR(one("SELECT count(*) FROM temp.mem_key"), "2");
	/* Again when a parameter it reads changes: :session. */
	CHECK(!exec("REPLACE INTO temp.sqlite_parameters VALUES (':session', 1)"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('leaks')"), "0");
	CHECK_EQ_STR(one("SELECT session_id FROM temp.mem_key WHERE session_id IS NOT -1"), "1");
	/* Not when one it does not read changes. */
	{
		char before[4096];
		snprintf(before, sizeof(before), "%s", one("SELECT signature FROM temp.gpuprof_modules WHERE name = "
							   "'memory-events'"));
		CHECK(!exec("REPLACE INTO temp.sqlite_parameters VALUES (':top', 3)"));
		CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('leaks')"), "0");
		CHECK_EQ_STR(one("SELECT signature FROM temp.gpuprof_modules WHERE name = 'memory-events'"), before);
	}
	/* A rolled-back transaction forgets what ran in it, with what it made. */
	CHECK(!exec("DROP TABLE temp.gpuprof_modules"));
	CHECK(!exec("BEGIN"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('stalls')"), "0");
	CHECK_EQ_STR(one("SELECT count(*) > 0 FROM temp.gpuprof_modules WHERE name = 'stall-samples'"), "1");
	CHECK(!exec("ROLLBACK"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('stalls')"), "0");
	CHECK_EQ_STR(one("SELECT count(*) FROM temp.gpuprof_modules WHERE name = 'stall-samples'"), "1");
	/* A prelude by name runs itself too. */
	CHECK(!exec("DELETE FROM temp.gpuprof_modules WHERE name = 'comm'"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('comm')"), "0");
	CHECK_EQ_STR(one("SELECT count(*) FROM temp.gpuprof_modules WHERE name = 'comm'"), "1");
}

static void test_errors(void)
{
	CHECK_EQ_STR(one("SELECT * FROM gpuprof_module('no_such')"),
		     "error: gpuprof_module: no module 'no_such' (analyze/no_such.sql)");
	CHECK_EQ_STR(one("SELECT * FROM gpuprof_module(NULL)"), "error: gpuprof_module: needs a module name");
	CHECK_EQ_STR(one("SELECT * FROM gpuprof_module()"), "error: no query solution");
	/* In a view of the database: no (it writes; TEMP views are the connection's own, as SQLite has it). */
	CHECK(!exec("CREATE VIEW main.gm AS SELECT * FROM gpuprof_module('hotspots')"));
	CHECK(strstr(one("SELECT * FROM gm"), "unsafe use of virtual table") != NULL);
	CHECK(!exec("DROP VIEW main.gm"));
	/* A database without sessions: one message, no NULL :session left behind. */
	CHECK(!exec("DELETE FROM temp.sqlite_parameters; DELETE FROM sessions"));
	CHECK_EQ_STR(one("SELECT * FROM gpuprof_module('hotspots')"),
		     "error: gpuprof_module: the database holds no session");
	CHECK_EQ_STR(param(":session"), "");
}

/* compare: the database itself attached as base, the session before :session; none before 1. */
static void test_baseline(void)
{
	CHECK(!exec("DELETE FROM temp.sqlite_parameters"));
	CHECK_EQ_STR(one("SELECT count(*) FROM gpuprof_module('compare')"), "0");
	CHECK_EQ_STR(param(":base_session"), "1");
	CHECK_EQ_STR(one("SELECT count(*) FROM pragma_database_list WHERE name = 'base'"), "1");
	CHECK_EQ_STR(one("SELECT count(*) FROM temp.base_ops"), "0");
	CHECK_EQ_STR(param(":threshold"), "0.05");
	CHECK_EQ_STR(param(":min_delta"), "10000");
	CHECK_EQ_STR(param(":min_calls"), "1");
	CHECK(!exec("DELETE FROM temp.sqlite_parameters; INSERT INTO temp.sqlite_parameters VALUES (':session', 1)"));
	CHECK(strstr(one("SELECT * FROM gpuprof_module('compare')"), "no session before :session") != NULL);
	CHECK_EQ_STR(param(":base_session"), "");
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/test_sqlext_module.XXXXXX", path[64];
	(void)argc;
	util_init(argv[0]);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/s.db", dir);
	db = make_db(path);
	CHECK(db != NULL);
	if (db) {
		test_defaults();
		test_includes();
		test_baseline();
		test_errors();
		db_close(db);
	}
	unlink(path);
	rmdir(dir);
	return check_done("test_sqlext_module");
}
