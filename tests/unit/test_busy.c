/*
 * gpu_busy (analyze/ext/sqlext_busy.c): its figures on small sessions made here, one database after another
 * (which SQLite may well allocate at the same address), each with its own.
 */
#include "check.h"
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

/* gpu_busy on db's session 1: device 0's span, busy and kernel busy time. */
static void expect(sqlite3 *db, int64_t span, int64_t busy, int64_t kernel_busy)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT device_id, span_ns, busy_ns, kernel_busy_ns FROM gpu_busy "
					  "WHERE session_id = 1");
	int rows = 0;
	CHECK(st != NULL);
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows++;
		CHECK_EQ_I64(sqlite3_column_int64(st, 0), 0);
		CHECK_EQ_I64(sqlite3_column_int64(st, 1), span);
		CHECK_EQ_I64(sqlite3_column_int64(st, 2), busy);
		CHECK_EQ_I64(sqlite3_column_int64(st, 3), kernel_busy);
	}
	CHECK_EQ_I64(rows, 1);
	sqlite3_finalize(st);
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
		expect(db, i % 2 ? 30 : 300, i % 2 ? 20 : 300, i % 2 ? 10 : 100);	/* asked again: the same */
		db_close(db);
	}
	return check_done("test_busy");
}
