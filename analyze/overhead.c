/*
 * overhead: what CUPTI and the driver cost the program itself (CUPTI's OVERHEAD records), per kind. Plain
 * SQL; the C here names the columns and copes with databases from before the table existed (schema
 * version DB_V_OVERHEADS).
 */
#include "analysis.h"
#include "db.h"
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

int run_overhead(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	int version = db_schema_version(db);
	if (version < DB_V_OVERHEADS) {
		/* Read-only, a database from before the table is never given it: nothing recorded. */
		struct table *t = table_new("overhead", TITLE);
		tables_add(out, t);
		table_cols(t, overhead_cols, NCOLS(overhead_cols));
		if (version >= 0) {
			char note[96];
			snprintf(note, sizeof(note), "none recorded: schema version %d is from before gpuprof "
				 "recorded overheads", version);
			t->note = xstrdup(note);
		}
		return version < 0 ? -1 : 0;
	}
	return script_table(db, sql, o, out, 0, "overhead", TITLE, overhead_cols, NCOLS(overhead_cols));
}
