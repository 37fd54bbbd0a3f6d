/*
 * The record table, the wire format and the SQL schema agree: every column a record names exists. The
 * schema version is the same in lib/db.h, schemas/session.sql (user_version, meta) and on a new database,
 * and a migration step leads to every version after the first.
 */
#include "check.h"
#include "db.h"
#include "embed.h"
#include "records.h"
#include "sink.h"
#include "util.h"

#include <stdio.h>

/* One integer from SQL text, -1 when it gives none. */
static long long one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void versions(sqlite3 *db)
{
	sqlite3 *raw = NULL;
	char name[64];
	int v;

	CHECK(db_schema_version(db) == DB_SCHEMA_VERSION);
	CHECK(one(db, "SELECT gpuprof_schema_version()") == DB_SCHEMA_VERSION);
	CHECK(one(db, "PRAGMA user_version") == DB_SCHEMA_VERSION);
	CHECK(one(db, "PRAGMA application_id") == DB_APPLICATION_ID);
	CHECK(one(db, "SELECT value FROM meta WHERE key = 'schema_version'") == DB_SCHEMA_VERSION);
	/* session.sql alone, as a sqlite3 user runs it, says the same. */
	CHECK(sqlite3_open(":memory:", &raw) == SQLITE_OK);
	CHECK(sqlite3_exec(raw, embed_get("schemas/session.sql"), NULL, NULL, NULL) == SQLITE_OK);
	CHECK(one(raw, "PRAGMA user_version") == DB_SCHEMA_VERSION);
	CHECK(one(raw, "PRAGMA application_id") == DB_APPLICATION_ID);
	CHECK(one(raw, "SELECT value FROM meta WHERE key = 'schema_version'") == DB_SCHEMA_VERSION);
	/* Not made by db_open: no version to tell. */
	CHECK(db_schema_version(raw) == -1);
	sqlite3_close(raw);
	for (v = 2; v <= DB_SCHEMA_VERSION + 1; v++) {
		snprintf(name, sizeof(name), "schemas/migrate-%d.sql", v);
		if ((embed_get(name) != NULL) != (v <= DB_SCHEMA_VERSION))
			fprintf(stderr, "%s: %s\n", name, v <= DB_SCHEMA_VERSION ? "missing" : "beyond DB_SCHEMA_VERSION");
		CHECK((embed_get(name) != NULL) == (v <= DB_SCHEMA_VERSION));
	}
	CHECK(DB_V_CHUNKS < DB_V_OVERHEADS && DB_V_OVERHEADS < DB_V_SHARED_MEM &&
	      DB_V_SHARED_MEM <= DB_SCHEMA_VERSION);
}

int main(void)
{
	sqlite3 *db;
	struct sink *s;
	int t, i;

	util_init("test_schema");
	db = db_open(":memory:", DB_WRITE);
	CHECK(db != NULL);
	if (!db)
		return check_done("test_schema");
	versions(db);
	for (t = 0; t < R_COUNT; t++) {
		for (i = 0; i < rec_specs[t].nfields; i++) {
			const char *col = NULL;
			int rc = sqlite3_table_column_metadata(db, NULL, rec_specs[t].table, rec_specs[t].fields[i].column,
							       &col, NULL, NULL, NULL, NULL);
			if (rc != SQLITE_OK)
				fprintf(stderr, "missing column %s.%s\n", rec_specs[t].table,
					rec_specs[t].fields[i].column);
			CHECK(rc == SQLITE_OK);
		}
		CHECK(rec_by_wire(rec_specs[t].wire) == (rec_specs[t].derived ? -1 : t));
	}
	/* The sink prepares an insert for every table, so every column list is valid SQL. */
	s = sink_open(db);
	CHECK(s != NULL);
	sink_free(s);
	/* The tables DESIGN.md names are there. */
	{
		static const char *names[] = { "meta", "sessions", "processes", "devices", "strings", "kernels",
					       "memcpys", "memsets", "syncs", "memory_events", "ranges", "pc_samples",
					       "stall_reasons", "device_metrics", "host_metrics", "ingest_errors",
					       "hotspots" };
		size_t k;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			sqlite3_stmt *st;
			int found = 0;
			sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = ?", -1, &st, NULL);
			sqlite3_bind_text(st, 1, names[k], -1, SQLITE_STATIC);
			found = sqlite3_step(st) == SQLITE_ROW;
			sqlite3_finalize(st);
			if (!found)
				fprintf(stderr, "missing table %s\n", names[k]);
			CHECK(found);
		}
	}
	db_close(db);
	return check_done("test_schema");
}
