/*
 * libFuzzer target: the Nsight Systems reader (ingest/nsys*.c) and its schema discovery, on small exports
 * that each input edits. The exports (read from the working directory: the source root) are SQL text, built
 * in memory once: tests/fuzz/nsys-export.sql (the real shape, made-up rows, two processes) and two real
 * exports cut down by tests/fuzz/nsys-trim.py (nsys 2022's older schema; nsys 2026 on two H100s).
 *
 * An input is an edit program. Its first byte picks the export; then come ops of OP_SIZE bytes each (a
 * partial last one is ignored), applied in turn to a copy of the export before the reader reads it:
 *
 *   op table row column kind v0 v1 v2
 *
 * op (enum op) is what to do; table is an index into the export's tables as it was built (by name), so a
 * byte keeps its meaning whatever came before; column one into that table's columns (declared order); row
 * the row-th row by rowid (of 16); kind and v0..v2 the value (bind_value): NULL, small, extreme (INT64_MAX,
 * INT64_MIN, ...) and 24-bit integers, reals, texts from a list or of raw bytes, blobs, or an id that
 * StringIds holds. One byte changed changes one op; ops copied or crossed over stay ops.
 * tests/fuzz/nsys-seeds.py writes the seeds from table and column names; keep its numbers equal to these.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define OP_SIZE 8
#define MAX_OPS 16		/* ops an input can hold: 1 + MAX_OPS * OP_SIZE bytes (make fuzz's -max_len); an
				 * op costs ~0.15 ms of SQLite under ASan, the reader ~2.5 ms an input */
#define MAX_TABLES 64
#define MAX_COLUMNS 64
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

enum op {
	OP_SET,			/* one value of one row */
	OP_SET_ALL,		/* one column of every row */
	OP_ADD,			/* one value of one row plus a 24-bit number shifted left by kind % 40 bits */
	OP_DELETE,		/* one row */
	OP_COPY,		/* one row again */
	OP_DOUBLE,		/* every row again (up to 2048 rows) */
	OP_DROP_TABLE,
	OP_DROP_COLUMN,
	OP_RENAME_COLUMN,	/* to col_names[v0] */
	OP_NEW_TABLE,		/* table_names[kind] made anew, columns col_names[v0..v2], one row of (int8)row */
	OP_STRING_ID,		/* one value of one row set to the (v0 * 256 + v1)-th id of StringIds */
	N_OPS
};

static const char *const bases[] = { "tests/fuzz/nsys-export.sql", "tests/fuzz/nsys-a100-saxpy.sql",
				     "tests/fuzz/nsys-h100-2gpu.sql" };

/* Each export, serialized once, with the names of its tables and their columns as it was built. */
static struct base {
	unsigned char *bytes;
	sqlite3_int64 len;
	int ntables;
	char *tables[MAX_TABLES];
	int ncols[MAX_TABLES];
	char *cols[MAX_TABLES][MAX_COLUMNS];
} base[NELEM(bases)];

/* Names the reader looks for, to rename columns to and to make tables of. */
static const char *const col_names[] = { "start", "end", "globalPid", "globalTid", "deviceId", "id", "value",
					 "demangledName", "shortName", "nameId", "textId", "text", "eventType",
					 "utcEpochNs", "name", "pid", "bytes", "copyKind", "domainId", "rangeId" };
static const char *const table_names[] = { "StringIds", "TARGET_INFO_GPU", "TARGET_INFO_SESSION_START_TIME",
					   "NVTX_EVENTS", "PROCESSES", "META_DATA_EXPORT", "ThreadNames",
					   "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
					   "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_DRIVER",
					   "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUDA_GPU_MEMORY_USAGE_EVENTS",
					   "ENUM_CUDA_MEM_KIND", "TARGET_INFO_CUDA_DEVICE", "EXPORT_META_DATA" };
/* Values of kind 2 (tests/fuzz/nsys-seeds.py names INT64_MAX by its index, 3). */
static const int64_t edges[] = { 0, -1, 1, INT64_MAX, INT64_MIN, (int64_t)1 << 53, 0xFFFFFFFFLL, (int64_t)1 << 62,
				 -((int64_t)1 << 40), 0xFFFFFF, INT64_MAX - 1, INT64_MIN + 1, INT32_MAX, INT32_MIN };
static const double reals[] = { 0.5, -0.0, 1e300, -1e300, 2.0, -1.5, 9223372036854775808.0, -9223372036854775808.0,
				1e-300, 1700000000000000000.0 };
static const char *const texts[] = { "", "saxpy", "0", "12", "-1", " 12", "1e3", "0x10", "9223372036854775808", "NaN",
				     "cudaLaunchKernel_v7000", "cudaMemcpy", "3.1", "EXPORT_SCHEMA_VERSION", "\xff\xfe",
				     "saxpy(int, float, float const*, float*)", "t0", "3.25.0", "GPU-0", NULL };
static char long_text[1200];	/* texts' last: a very long name */

/* The names of db's tables (by name) and their columns into b (malloc'd, kept for the run). */
static void list_schema(sqlite3 *db, struct base *b)
{
	sqlite3_stmt *st, *cs;
	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &st, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1, &cs, NULL))
		abort();
	while (b->ntables < MAX_TABLES && sqlite3_step(st) == SQLITE_ROW) {
		int t = b->ntables++;
		b->tables[t] = strdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_bind_text(cs, 1, b->tables[t], -1, SQLITE_STATIC);
		while (b->ncols[t] < MAX_COLUMNS && sqlite3_step(cs) == SQLITE_ROW)
			b->cols[t][b->ncols[t]++] = strdup((const char *)sqlite3_column_text(cs, 0));
		sqlite3_reset(cs);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(cs);
}

/* Build export i from its SQL text; abort() when it cannot be (not run from the source root). */
static void load_base(size_t i)
{
	FILE *f = fopen(bases[i], "rb");
	struct buf sql;
	sqlite3 *db = NULL;
	char chunk[4096];
	size_t got;
	buf_init(&sql);
	while (f && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&sql, chunk, got);
	if (!f || sqlite3_open(":memory:", &db) || sqlite3_exec(db, sql.s, NULL, NULL, NULL) ||
	    !(base[i].bytes = sqlite3_serialize(db, "main", &base[i].len, 0))) {
		fprintf(stderr, "fuzz_nsys: cannot build %s (run from the source root)\n", bases[i]);
		abort();
	}
	list_schema(db, &base[i]);
	fclose(f);
	sqlite3_close(db);
	buf_release(&sql);
}

/* A signed 24-bit number from v[0..2]. */
static int32_t int24(const uint8_t *v)
{
	return (int32_t)((uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8) >> 8;
}

/* Bind the value that kind and v[0..2] pick to parameter 1 of st. */
static void bind_value(sqlite3_stmt *st, uint8_t kind, const uint8_t *v)
{
	int32_t i24 = int24(v);
	const char *t;
	char blob[32];
	switch (kind % 9) {
	case 0:
		sqlite3_bind_null(st, 1);
		break;
	case 1:
		sqlite3_bind_int64(st, 1, (int8_t)v[0]);
		break;
	case 2:
		sqlite3_bind_int64(st, 1, edges[v[0] % NELEM(edges)]);
		break;
	case 3:
		sqlite3_bind_int64(st, 1, i24);
		break;
	case 4:		/* times and sizes: large, of either sign */
		sqlite3_bind_int64(st, 1, (int64_t)i24 * 1000003);
		break;
	case 5:
		sqlite3_bind_double(st, 1, reals[v[0] % NELEM(reals)]);
		break;
	case 6:
		t = texts[v[0] % NELEM(texts)];
		sqlite3_bind_text(st, 1, t ? t : long_text, -1, SQLITE_STATIC);
		break;
	case 7:		/* raw bytes: digits, invalid UTF-8, NULs */
		sqlite3_bind_text(st, 1, (const char *)v, 3, SQLITE_TRANSIENT);
		break;
	default:
		memset(blob, v[1], sizeof(blob));
		sqlite3_bind_blob(st, 1, blob, v[0] % (int)sizeof(blob), SQLITE_TRANSIENT);
	}
}

/* What ?1 of an edit's statement is bound to. */
struct arg {
	int mode;		/* 0: nothing, 1: bind_value(kind, v), 2: n */
	uint8_t kind;
	const uint8_t *v;
	int64_t n;
};

/* Run sql (sqlite3_mprintf'd, freed here) with ?1 bound as a says and ?2 to row; a statement SQLite refuses
 * (a table dropped before, a column it cannot drop) is an edit not made. */
static void exec_edit(sqlite3 *db, char *sql, struct arg a, int64_t row)
{
	sqlite3_stmt *st = NULL;
	int k;
	if (sql && !sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		for (k = 1; k <= sqlite3_bind_parameter_count(st); k++) {
			const char *name = sqlite3_bind_parameter_name(st, k);
			if (name && !strcmp(name, "?2"))
				sqlite3_bind_int64(st, k, row);
			else if (a.mode == 1)
				bind_value(st, a.kind, a.v);
			else if (a.mode == 2)
				sqlite3_bind_int64(st, k, a.n);
		}
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	sqlite3_free(sql);
}

#define ROW_WHERE "WHERE rowid = (SELECT rowid FROM \"%w\" ORDER BY rowid LIMIT 1 OFFSET ?2)"

/* One op of OP_SIZE bytes on db, a copy of export b. */
static void edit(sqlite3 *db, const struct base *b, const uint8_t *p)
{
	int ti = p[1] % b->ntables;
	const char *t = b->tables[ti];
	const char *c = b->ncols[ti] ? b->cols[ti][p[3] % b->ncols[ti]] : "rowid";
	int64_t row = p[2] % 16;
	struct arg none = { 0, 0, NULL, 0 }, value = { 1, p[4], p + 5, 0 }, n = { 2, 0, NULL, 0 };
	const uint8_t *v = p + 5;

	switch ((enum op)(p[0] % N_OPS)) {
	case OP_SET:
		exec_edit(db, sqlite3_mprintf("UPDATE \"%w\" SET \"%w\" = ?1 " ROW_WHERE, t, c, t), value, row);
		break;
	case OP_SET_ALL:
		exec_edit(db, sqlite3_mprintf("UPDATE \"%w\" SET \"%w\" = ?1", t, c), value, row);
		break;
	case OP_ADD:
		n.n = (int64_t)int24(v) * ((int64_t)1 << (p[4] % 40));
		exec_edit(db, sqlite3_mprintf("UPDATE \"%w\" SET \"%w\" = \"%w\" + ?1 " ROW_WHERE, t, c, c, t), n, row);
		break;
	case OP_DELETE:
		exec_edit(db, sqlite3_mprintf("DELETE FROM \"%w\" " ROW_WHERE, t, t), none, row);
		break;
	case OP_COPY:
		exec_edit(db, sqlite3_mprintf("INSERT INTO \"%w\" SELECT * FROM \"%w\" " ROW_WHERE, t, t, t), none, row);
		break;
	case OP_DOUBLE:
		exec_edit(db, sqlite3_mprintf("INSERT INTO \"%w\" SELECT * FROM \"%w\" WHERE (SELECT count(*) FROM \"%w\") "
					      "<= 1024", t, t, t), none, row);
		break;
	case OP_DROP_TABLE:
		exec_edit(db, sqlite3_mprintf("DROP TABLE \"%w\"", t), none, row);
		break;
	case OP_DROP_COLUMN:
		exec_edit(db, sqlite3_mprintf("ALTER TABLE \"%w\" DROP COLUMN \"%w\"", t, c), none, row);
		break;
	case OP_RENAME_COLUMN:
		exec_edit(db, sqlite3_mprintf("ALTER TABLE \"%w\" RENAME COLUMN \"%w\" TO \"%w\"", t, c,
					      col_names[v[0] % NELEM(col_names)]), none, row);
		break;
	case OP_NEW_TABLE:
		t = table_names[p[4] % NELEM(table_names)];
		exec_edit(db, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\"", t), none, row);
		exec_edit(db, sqlite3_mprintf("CREATE TABLE \"%w\" (\"%w\", \"%w\" INTEGER, \"%w\" TEXT)", t,
					      col_names[v[0] % NELEM(col_names)], col_names[v[1] % NELEM(col_names)],
					      col_names[v[2] % NELEM(col_names)]), none, row);
		n.n = (int8_t)p[2];
		exec_edit(db, sqlite3_mprintf("INSERT INTO \"%w\" VALUES (?1, ?1, ?1)", t), n, row);
		break;
	case OP_STRING_ID:
		n.n = v[0] * 256 + v[1];
		exec_edit(db, sqlite3_mprintf("UPDATE \"%w\" SET \"%w\" = (SELECT id FROM StringIds ORDER BY rowid LIMIT 1 "
					      "OFFSET ?1) " ROW_WHERE, t, c, t), n, row);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sqlite3 *db = NULL;
	unsigned char *copy, *bytes;
	sqlite3_int64 len = 0;
	const struct base *b;
	const char *path;
	size_t i;

	if (!base[0].bytes) {
		for (i = 0; i < NELEM(bases); i++)
			load_base(i);
		memset(long_text, 'k', sizeof(long_text) - 1);
	}
	b = &base[size ? data[0] % NELEM(bases) : 0];
	if (sqlite3_open(":memory:", &db) || !(copy = sqlite3_malloc64((sqlite3_uint64)b->len))) {
		sqlite3_close(db);
		return 0;
	}
	memcpy(copy, b->bytes, (size_t)b->len);
	sqlite3_deserialize(db, "main", copy, b->len, b->len, SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
	for (i = 1; i + OP_SIZE <= size && i < 1 + MAX_OPS * OP_SIZE; i += OP_SIZE)
		edit(db, b, data + i);
	bytes = sqlite3_serialize(db, "main", &len, 0);
	sqlite3_close(db);
	path = bytes ? fuzz_file(bytes, (size_t)len) : NULL;
	sqlite3_free(bytes);
	if (path)
		fuzz_ingest(&nsys_reader, path);
	return 0;
}
