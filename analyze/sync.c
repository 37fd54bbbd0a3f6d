/*
 * sync: host time blocked in synchronization, by type and stream.
 */
#include "analysis.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>

static const struct colspec sync_cols[] = {
	{ "time_pct", "Time %", C_PCT },
	STATS_COLUMNS("count", "Count"),
	{ "stream", "Stream", C_INT },
	{ "kind", "Type", C_TEXT },
};

int run_sync(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("sync", "Host time blocked in synchronization, by type and stream");
	struct dstats *s = NULL;
	sqlite3_stmt *name;
	size_t n = 0, i;
	int64_t all = 0;

	tables_add(out, t);
	table_cols(t, sync_cols, NCOLS(sync_cols));
	if (script_stats(&sc, NULL, NULL, &s, &n, &all))
		return -1;
	if (!(name = script_next(&sc))) {
		free(s);
		return -1;
	}
	for (i = 0; i < n && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		int64_t kind = s[i].key >> 40, stream = (s[i].key & 0xFFFFFFFFFFLL) - 1;
		if (all > 0)
			table_set_real(t, r, 0, 100.0 * (double)s[i].total / (double)all);
		set_stats(t, r, 1, &s[i]);
		if (stream >= 0)
			table_set_int(t, r, 8, stream);
		sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), kind);
		if (sqlite3_step(name) == SQLITE_ROW)
			set_col_text(t, r, 9, name, 0);
		sqlite3_reset(name);
	}
	sqlite3_finalize(name);
	free(s);
	return 0;
}
