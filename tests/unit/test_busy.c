/*
 * busy.h: gpu_busy_get's figures on small sessions made here, and that the figures it remembers belong
 * to the connection they came from: after columns_drop and db_close, another database (which SQLite may
 * well allocate at the same address) gets its own.
 */
#include "check.h"
#include "busy.h"
#include "columns.h"
#include "db.h"
#include "util.h"

#include <stdlib.h>

/* A session with one kernel [start, end) and one copy [cstart, cend) on device 0. */
static sqlite3 *session(int64_t start, int64_t end, int64_t cstart, int64_t cend)
{
	sqlite3 *db = db_open(":memory:", DB_WRITE);
	sqlite3_stmt *st;
	if (!db)
		return NULL;
	db_exec(db, "INSERT INTO sessions (id, uuid, source, ingested_at) VALUES (1, 's', 'ndjson', 'now')");
	st = db_prepare(db, "INSERT INTO kernels (session_id, pid, start_ns, end_ns, device_id, name_id) "
			    "VALUES (1, 1, ?, ?, 0, 1)");
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_int64(st, 2, end);
	CHECK(sqlite3_step(st) == SQLITE_DONE);
	sqlite3_finalize(st);
	st = db_prepare(db, "INSERT INTO memcpys (session_id, pid, start_ns, end_ns, device_id, kind, bytes) "
			    "VALUES (1, 1, ?, ?, 0, 1, 8)");
	sqlite3_bind_int64(st, 1, cstart);
	sqlite3_bind_int64(st, 2, cend);
	CHECK(sqlite3_step(st) == SQLITE_DONE);
	sqlite3_finalize(st);
	return db;
}

/* gpu_busy_get on db's session 1: device 0's span, busy and kernel busy time. */
static void expect(sqlite3 *db, int64_t span, int64_t busy, int64_t kernel_busy)
{
	struct analysis_opts o;
	struct gpu_busy *v = NULL;
	size_t n = 0;
	analysis_opts_init(&o);
	o.session = 1;
	CHECK(gpu_busy_get(db, &o, &v, &n) == 0);
	CHECK_EQ_I64(n, 1);
	if (n == 1) {
		CHECK_EQ_I64(v[0].span_ns, span);
		CHECK_EQ_I64(v[0].busy_ns, busy);
		CHECK_EQ_I64(v[0].kernel_busy_ns, kernel_busy);
	}
	free(v);
}

int main(void)
{
	int i;
	util_init("test_busy");
	/* Kernel [100, 200), copy [150, 400): span 300, busy 300; then kernel [0, 10), copy [20, 30). */
	for (i = 0; i < 4; i++) {
		sqlite3 *db = i % 2 ? session(0, 10, 20, 30) : session(100, 200, 150, 400);
		CHECK(db != NULL);
		if (!db)
			break;
		if (i % 2)
			expect(db, 30, 20, 10);
		else
			expect(db, 300, 300, 100);
		expect(db, i % 2 ? 30 : 300, i % 2 ? 20 : 300, i % 2 ? 10 : 100);	/* remembered: the same */
		columns_drop(db);
		db_close(db);
	}
	return check_done("test_busy");
}
