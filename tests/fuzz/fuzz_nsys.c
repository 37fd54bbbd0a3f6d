/*
 * libFuzzer target: the Nsight Systems reader (ingest/nsys*.c) and its schema discovery, on a small export
 * of the real shape (tests/fuzz/nsys-export.sql, read from the working directory: the source root) that
 * each input mutates: the bytes are a program of edits (values of the wrong type, NULLs, huge and
 * negative numbers, dropped tables and columns, renamed columns, duplicated and deleted rows, tables the
 * reader knows by name made up anew), applied to a copy of the export in memory before it is read.
 */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EDITS 24
#define MAX_TABLES 64

static unsigned char *base;	/* the export, serialized once */
static sqlite3_int64 base_len;

/* Names the reader looks for, to rename columns to and to make tables of. */
static const char *const col_names[] = { "start", "end", "globalPid", "globalTid", "deviceId", "id", "value",
					 "demangledName", "shortName", "nameId", "textId", "text", "eventType",
					 "utcEpochNs", "name", "pid", "bytes", "copyKind", "domainId", "rangeId" };
static const char *const table_names[] = { "StringIds", "TARGET_INFO_GPU", "TARGET_INFO_SESSION_START_TIME",
					   "NVTX_EVENTS", "PROCESSES", "META_DATA_EXPORT", "ThreadNames",
					   "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
					   "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_DRIVER",
					   "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUDA_GPU_MEMORY_USAGE_EVENTS",
					   "ENUM_CUDA_MEM_KIND", "TARGET_INFO_CUDA_DEVICE" };
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The input, read a few bytes at a time; 0s once it is used up. */
struct prog {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct prog *g, size_t bytes)
{
	uint64_t v = 0;
	while (bytes-- && g->n) {
		v = v << 8 | *g->p++;
		g->n--;
	}
	return v;
}

static void load_base(void)
{
	FILE *f = fopen("tests/fuzz/nsys-export.sql", "rb");
	struct buf sql;
	sqlite3 *db = NULL;
	char chunk[4096];
	size_t got;
	buf_init(&sql);
	while (f && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&sql, chunk, got);
	if (!f || sqlite3_open(":memory:", &db) || sqlite3_exec(db, sql.s, NULL, NULL, NULL) ||
	    !(base = sqlite3_serialize(db, "main", &base_len, 0))) {
		fprintf(stderr, "fuzz_nsys: cannot build tests/fuzz/nsys-export.sql (run from the source root)\n");
		abort();
	}
	fclose(f);
	sqlite3_close(db);
	buf_release(&sql);
}

/* Bind a value the program picks to parameter i: of any type, often one the column does not expect. */
static void bind_value(sqlite3_stmt *st, int i, struct prog *g)
{
	static const int64_t edges[] = { 0, -1, 1, INT64_MAX, INT64_MIN, (int64_t)1 << 53, 0xFFFFFFFFLL,
					 (int64_t)1 << 62, -((int64_t)1 << 40), 0xFFFFFF };
	char text[64];
	uint64_t v;
	double d;
	size_t len;
	switch (take(g, 1) % 7) {
	case 0:
		sqlite3_bind_null(st, i);
		break;
	case 1:
		sqlite3_bind_int64(st, i, (int64_t)take(g, 8));
		break;
	case 2:
		sqlite3_bind_int64(st, i, edges[take(g, 1) % NELEM(edges)]);
		break;
	case 3:
		v = take(g, 8);
		memcpy(&d, &v, sizeof(d));
		sqlite3_bind_double(st, i, take(g, 1) % 2 ? d : (double)(int64_t)v + 0.5);
		break;
	case 4:
		len = take(g, 1) % sizeof(text);
		for (v = 0; v < len; v++)
			text[v] = (char)take(g, 1);
		sqlite3_bind_text(st, i, text, (int)len, SQLITE_TRANSIENT);
		break;
	case 5:
		len = take(g, 1) % sizeof(text);
		memset(text, 0xA5, len);
		sqlite3_bind_blob(st, i, text, (int)len, SQLITE_TRANSIENT);
		break;
	default:
		sqlite3_bind_int64(st, i, (int64_t)(take(g, 1) % 8) - 3);
	}
}

/* The names of db's tables, into names (sqlite3_mprintf'd); how many. */
static int list_tables(sqlite3 *db, char **names)
{
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &st, NULL))
		return 0;
	while (n < MAX_TABLES && sqlite3_step(st) == SQLITE_ROW)
		names[n++] = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return n;
}

/* The name of one column of table t the program picks (sqlite3_mprintf'd), or NULL. */
static char *pick_column(sqlite3 *db, const char *t, struct prog *g)
{
	sqlite3_stmt *st;
	char *name = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1) LIMIT 1 OFFSET ?2", -1, &st, NULL))
		return NULL;
	sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)(take(g, 1) % 48));
	if (sqlite3_step(st) == SQLITE_ROW)
		name = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return name;
}

/* One edit of the export; a statement SQLite refuses (a column it cannot drop) is an edit not made. */
static void edit(sqlite3 *db, struct prog *g)
{
	char *tables[MAX_TABLES], *col = NULL, *sql = NULL;
	int n = list_tables(db, tables), op = (int)(take(g, 1) % 9), k;
	const char *t = n ? tables[take(g, 1) % (uint64_t)n] : "StringIds";
	sqlite3_stmt *st = NULL;

	if (op <= 1 || op == 3 || op == 6)
		col = pick_column(db, t, g);
	switch (op) {
	case 0:	/* one value of one row */
	case 1:	/* one column of every row */
		if (col)
			sql = sqlite3_mprintf("UPDATE \"%w\" SET \"%w\" = ?1%s", t, col, op ? "" : " WHERE rowid = ?2");
		break;
	case 2:
		sql = sqlite3_mprintf("DROP TABLE \"%w\"", t);
		break;
	case 3:
		if (col)
			sql = sqlite3_mprintf("ALTER TABLE \"%w\" DROP COLUMN \"%w\"", t, col);
		break;
	case 4:	/* a duplicate row */
		sql = sqlite3_mprintf("INSERT INTO \"%w\" SELECT * FROM \"%w\" WHERE rowid = ?2", t, t);
		break;
	case 5:
		sql = sqlite3_mprintf("DELETE FROM \"%w\" WHERE rowid = ?2", t);
		break;
	case 6:
		if (col)
			sql = sqlite3_mprintf("ALTER TABLE \"%w\" RENAME COLUMN \"%w\" TO \"%w\"", t, col,
					      col_names[take(g, 1) % NELEM(col_names)]);
		break;
	case 7:	/* a table the reader knows, made anew with a few of the columns it looks for */
		sql = sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\"; CREATE TABLE \"%w\" (\"%w\", \"%w\" INTEGER, \"%w\" TEXT); "
				      "INSERT INTO \"%w\" VALUES (?1, ?1, ?1)",
				      table_names[take(g, 1) % NELEM(table_names)], table_names[take(g, 1) % NELEM(table_names)],
				      col_names[take(g, 1) % NELEM(col_names)], col_names[take(g, 1) % NELEM(col_names)],
				      col_names[take(g, 1) % NELEM(col_names)], table_names[take(g, 1) % NELEM(table_names)]);
		break;
	default:	/* every row again: many rows, many duplicates */
		sql = sqlite3_mprintf("INSERT INTO \"%w\" SELECT * FROM \"%w\"", t, t);
	}
	if (sql && op == 7) {
		sqlite3_exec(db, sql, NULL, NULL, NULL);	/* (unbound: its row is NULLs) */
	} else if (sql && !sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		for (k = 1; k <= sqlite3_bind_parameter_count(st); k++) {
			const char *name = sqlite3_bind_parameter_name(st, k);
			if (name && !strcmp(name, "?2"))
				sqlite3_bind_int64(st, k, (int64_t)(take(g, 1) % 8));
			else
				bind_value(st, k, g);
		}
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	sqlite3_free(sql);
	sqlite3_free(col);
	for (k = 0; k < n; k++)
		sqlite3_free(tables[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog g = { data, size };
	sqlite3 *db = NULL;
	unsigned char *copy, *bytes;
	sqlite3_int64 len = 0;
	const char *path;
	int i;

	if (!base)
		load_base();
	if (sqlite3_open(":memory:", &db) || !(copy = sqlite3_malloc64((sqlite3_uint64)base_len))) {
		sqlite3_close(db);
		return 0;
	}
	memcpy(copy, base, (size_t)base_len);
	sqlite3_deserialize(db, "main", copy, base_len, base_len,
			    SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
	for (i = 0; i < MAX_EDITS && g.n; i++)
		edit(db, &g);
	bytes = sqlite3_serialize(db, "main", &len, 0);
	sqlite3_close(db);
	path = bytes ? fuzz_file(bytes, (size_t)len) : NULL;
	sqlite3_free(bytes);
	if (path)
		fuzz_ingest(&nsys_reader, path);
	return 0;
}
