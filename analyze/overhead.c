/*
 * overhead: what CUPTI and the driver cost the program itself (CUPTI's OVERHEAD records), per kind. Plain
 * SQL; the C here names the columns and copes with databases from before the table existed.
 */
#include "analysis.h"
#include "util.h"

static const struct colspec overhead_cols[] = {
	{ "wall_pct", "Wall %", C_PCT },
	{ "total_ns", "Total", C_NS },
	{ "count", "Count", C_INT },
	{ "untimed", "Untimed", C_INT },
	{ "avg_ns", "Avg", C_NS },
	{ "max_ns", "Max", C_NS },
	{ "kind", "Kind", C_TEXT },
};

#define TITLE "CUPTI and driver overhead by kind (what profiling itself cost)"

/* 1 when db has the overheads table, 0 when it is older (read-only, so never given it), -1 on error. */
static int has_overheads(sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'overheads'", -1,
			       &st, NULL) != SQLITE_OK)
		return error("sqlite: %s", sqlite3_errmsg(db));
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return step_error(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW;
}

int run_overhead(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	int have = has_overheads(db);
	if (have <= 0) {
		struct table *t = table_new("overhead", TITLE);
		tables_add(out, t);
		table_cols(t, overhead_cols, NCOLS(overhead_cols));
		return have;
	}
	return script_table(db, sql, o, out, 0, "overhead", TITLE, overhead_cols, NCOLS(overhead_cols));
}
