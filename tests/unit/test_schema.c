/* The record table, the wire format and the SQL schema agree: every column a record names exists. */
#include "check.h"
#include "db.h"
#include "records.h"
#include "sink.h"
#include "util.h"

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
		CHECK(rec_by_wire(rec_specs[t].wire) == t);
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
