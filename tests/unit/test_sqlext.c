/*
 * Unit tests for analyze/ext/sqlext: the SQL functions linked into gpuprof's programs give what the C analyses
 * compute (stats_of, to the bit), exact interval unions up to int64's ends, and SQL errors, not crashes.
 */
#include "check.h"
#include "db.h"
#include "dstats.h"
#include "sqlext.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sqlite3 *db;

/* Run sql (no results); 0 on success. */
static int exec(const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK;
}

static uint64_t seed = 88172645463325252ULL;
static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* Same bits (two NaNs never come from these functions). */
static int same(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

/* Groups of random sizes (0, 1, even, odd, with NULLs) against stats_of over the same values in the same order. */
static void test_stats_match(void)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 5, 10, 11, 100, 101, 4096, 4097, 100000 };
	sqlite3_stmt *ins, *q;
	size_t g, i;
	CHECK(!exec("CREATE TABLE v(k INTEGER, x INTEGER)"));
	ins = db_prepare(db, "INSERT INTO v VALUES (?, ?)");
	q = db_prepare(db, "SELECT median(x), stddev_samp(x), percentile(x, 50), percentile(x, 0), percentile(x, 100), "
			   "count(x) FROM v WHERE k = ?");
	for (g = 0; g < sizeof(sizes) / sizeof(sizes[0]); g++) {
		size_t n = sizes[g];
		int64_t *vals = xmalloc(n * sizeof(*vals));
		struct dstats s;
		int bad = 0;
		CHECK(!exec("BEGIN"));
		for (i = 0; i < n; i++) {
			/* Durations-like values, a few big ones; every seventh row also a NULL to ignore. */
			vals[i] = (int64_t)(rnd() % (i % 13 ? 100000 : 4000000000000ULL));
			sqlite3_bind_int64(ins, 1, (int64_t)g);
			sqlite3_bind_int64(ins, 2, vals[i]);
			bad += sqlite3_step(ins) != SQLITE_DONE;
			sqlite3_reset(ins);
			if (i % 7 == 3) {
				sqlite3_bind_null(ins, 2);
				bad += sqlite3_step(ins) != SQLITE_DONE;
				sqlite3_reset(ins);
			}
		}
		CHECK(!exec("COMMIT"));
		CHECK(!bad);
		stats_of(vals, n, &s);
		sqlite3_bind_int64(q, 1, (int64_t)g);
		CHECK(sqlite3_step(q) == SQLITE_ROW);
		CHECK_EQ_I64(sqlite3_column_int64(q, 5), n);
		CHECK(same(sqlite3_column_double(q, 0), s.median));
		CHECK(same(sqlite3_column_double(q, 1), s.stddev));
		if (n % 2)
			CHECK(same(sqlite3_column_double(q, 2), s.median));
		CHECK(same(sqlite3_column_double(q, 3), (double)s.min));
		CHECK(same(sqlite3_column_double(q, 4), (double)s.max));
		sqlite3_reset(q);
		free(vals);
	}
	/* No rows, or only NULLs: NULL. One value: stddev 0 (Nsight), not NULL. */
	sqlite3_bind_int64(q, 1, 999);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	CHECK(sqlite3_column_type(q, 0) == SQLITE_NULL && sqlite3_column_type(q, 1) == SQLITE_NULL &&
	      sqlite3_column_type(q, 2) == SQLITE_NULL);
	sqlite3_reset(q);
	sqlite3_bind_int64(q, 1, 0);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	CHECK(sqlite3_column_type(q, 1) == SQLITE_FLOAT && sqlite3_column_double(q, 1) == 0.0);
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
}

/* Look up one value: the first column of sql's first row as text ("NULL" for NULL), or the error message. */
static const char *one(const char *sql)
{
	static char out[256];
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(out, sizeof(out), "error: %s", sqlite3_errmsg(db));
		return out;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out, sizeof(out), "%s",
			 sqlite3_column_type(st, 0) == SQLITE_NULL ? "NULL" : (const char *)sqlite3_column_text(st, 0));
	else
		snprintf(out, sizeof(out), "error: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return out;
}

static void test_small(void)
{
	CHECK_EQ_STR(one("WITH t(x) AS (VALUES (1), (2), (3), (10), (NULL)) SELECT median(x) FROM t"), "2.5");
	CHECK_EQ_STR(one("WITH t(x) AS (VALUES (4), (1), (3)) SELECT median(x) FROM t"), "3.0");
	CHECK_EQ_STR(one("WITH t(x) AS (VALUES (1), (2.5), (4)) SELECT median(x) FROM t"), "2.5");
	CHECK_EQ_STR(one("WITH t(x) AS (VALUES (1), (2), (3), (4)) SELECT percentile(x, 25) FROM t"), "1.75");
	CHECK_EQ_STR(one("WITH t(x) AS (VALUES (1.0), (2), (3), (4)) SELECT percentile(x, 25) FROM t"), "1.75");
	CHECK_EQ_STR(one("WITH t(x) AS (VALUES (1), (2)) SELECT stddev_samp(x) FROM t"), "0.707106781186548");
	CHECK_EQ_STR(one("SELECT median(x) FROM (SELECT 1 AS x WHERE 0)"), "NULL");
	CHECK(!strncmp(one("WITH t(x) AS (VALUES (1)) SELECT percentile(x, 101) FROM t"), "error: percentile: p", 20));
	CHECK(!strncmp(one("WITH t(x, p) AS (VALUES (1, 10), (2, 20)) SELECT percentile(x, p) FROM t"),
		       "error: percentile: p must be the same", 37));
	CHECK_EQ_STR(one("WITH t(x) AS (VALUES (9223372036854775807), (1)) SELECT stddev_samp(x) FROM t"),
		     "error: stddev_samp: integer overflow");

	/* busy_union: overlapping, nested, touching, empty, inverted and NULL intervals. */
	CHECK_EQ_STR(one("WITH t(s, e) AS (VALUES (0, 10), (5, 20), (6, 7), (20, 25), (30, 31), (40, 40), (50, 45), "
			 "(NULL, 100), (60, NULL)) SELECT busy_union(s, e) FROM t"), "26");
	CHECK_EQ_STR(one("WITH t(s, e) AS (VALUES (5, 5)) SELECT busy_union(s, e) FROM t"), "0");
	CHECK_EQ_STR(one("WITH t(s, e) AS (VALUES (NULL, 5)) SELECT busy_union(s, e) FROM t"), "NULL");
	/* int64's ends: exact up to INT64_MAX, an error beyond. */
	CHECK_EQ_STR(one("WITH t(s, e) AS (VALUES (-9223372036854775808, -1), (-5, -1)) SELECT busy_union(s, e) FROM t"),
		     "9223372036854775807");
	CHECK_EQ_STR(one("WITH t(s, e) AS (VALUES (0, 9223372036854775807), (-1, 0)) SELECT busy_union(s, e) FROM t"),
		     "error: busy_union: integer overflow");
	CHECK_EQ_STR(one("WITH t(s, e) AS (VALUES (-9223372036854775808, 9223372036854775807)) "
			 "SELECT busy_union(s, e) FROM t"), "error: busy_union: integer overflow");
	CHECK_EQ_STR(one("SELECT busy_union('a', 5)"), "error: busy_union: start and end must be integers");
	CHECK_EQ_STR(one("SELECT busy_union(1.5, 5)"), "error: busy_union: start and end must be integers");
	CHECK_EQ_STR(one("SELECT busy_union(1.0, 5)"), "4");

	/* regexp: a match, none, NULLs, a bad pattern as an SQL error; the operator form. */
	CHECK_EQ_STR(one("SELECT 'ampere_sgemm_128x64' REGEXP '^ampere_.*gemm'"), "1");
	CHECK_EQ_STR(one("SELECT regexp('x{2}', 'axb')"), "0");
	CHECK_EQ_STR(one("SELECT regexp(NULL, 'a')"), "NULL");
	CHECK_EQ_STR(one("SELECT regexp('a', NULL)"), "NULL");
	CHECK_EQ_STR(one("SELECT 'a' REGEXP '('"), "error: bad regular expression '(': missing closing parenthesis at offset 1");
	CHECK_EQ_STR(one("WITH t(n) AS (VALUES ('gemm_a'), ('relu'), ('sgemm')) SELECT count(*) FROM t WHERE n REGEXP 'gemm'"),
		     "2");

	CHECK_EQ_STR(one("SELECT short_name('void at::native::vectorized_elementwise_kernel<4, at::native::X>(int, float)')"),
		     "vectorized_elementwise_kernel");
	CHECK_EQ_STR(one("SELECT fold_name('aten::linear, seq = 45328, op_id = 990724')"), "aten::linear");
	CHECK_EQ_STR(one("SELECT short_name(NULL) IS NULL AND fold_name(NULL) IS NULL"), "1");
}

/* Random intervals against a coverage bitmap: busy_union is the union's length. */
static void test_busy_random(void)
{
	static unsigned char covered[200000];
	sqlite3_stmt *ins;
	int round;
	ins = db_prepare(db, "INSERT INTO iv VALUES (?, ?)");
	for (round = 0; round < 4; round++) {
		size_t i, n = round == 3 ? 50000 : 1000, len = 0;
		int bad = 0;
		char buf[64];
		CHECK(!exec("DROP TABLE IF EXISTS iv; CREATE TABLE iv(s INTEGER, e INTEGER)"));
		sqlite3_finalize(ins);
		ins = db_prepare(db, "INSERT INTO iv VALUES (?, ?)");
		memset(covered, 0, sizeof(covered));
		CHECK(!exec("BEGIN"));
		for (i = 0; i < n; i++) {
			int64_t s = (int64_t)(rnd() % 190000), e = s + (int64_t)(rnd() % (round ? 500 : 5));
			memset(covered + s, 1, (size_t)(e - s));
			sqlite3_bind_int64(ins, 1, s + 1000000000000000000LL);
			sqlite3_bind_int64(ins, 2, e + 1000000000000000000LL);
			bad += sqlite3_step(ins) != SQLITE_DONE;
			sqlite3_reset(ins);
		}
		CHECK(!exec("COMMIT"));
		CHECK(!bad);
		for (i = 0; i < sizeof(covered); i++)
			len += covered[i];
		snprintf(buf, sizeof(buf), "%zu", len);
		CHECK_EQ_STR(one("SELECT busy_union(s, e) FROM iv"), buf);
	}
	sqlite3_finalize(ins);
}

/* Every connection db_open makes has the functions. */
static void test_db_open(void)
{
	char dir[] = "/tmp/test_sqlext.XXXXXX", path[64];
	sqlite3 *saved = db;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/s.db", dir);
	db = db_open(path, DB_WRITE);
	CHECK(db != NULL);
	if (db) {
		CHECK_EQ_STR(one("SELECT median(x) || ' ' || busy_union(x, x + 2) || ' ' || ('ab' REGEXP 'b') "
				 "FROM (SELECT 1 AS x UNION ALL SELECT 2)"), "1.5 3 1");
		db_close(db);
	}
	unlink(path);
	rmdir(dir);
	db = saved;
}

int main(int argc, char **argv)
{
	(void)argc;
	util_init(argv[0]);
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	CHECK(gpuprof_sqlite_register(db) == SQLITE_OK);
	test_stats_match();
	test_small();
	CHECK(!exec("CREATE TABLE iv(s INTEGER, e INTEGER)"));
	test_busy_random();
	test_db_open();
	sqlite3_close(db);
	return check_done("test_sqlext");
}
