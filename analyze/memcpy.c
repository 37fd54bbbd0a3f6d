/*
 * memcpy: copies per kind and memsets: count, time statistics, bytes and achieved bandwidth.
 */
#include "analysis.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>

static const struct colspec memcpy_cols[] = {
	{ "time_pct", "Time %", C_PCT },
	STATS_COLUMNS("count", "Count"),
	{ "bytes", "Bytes", C_BYTES },
	{ "avg_bytes", "Avg bytes", C_BYTES },
	{ "gbps", "GB/s", C_REAL },
	{ "kind", "Operation", C_TEXT },
};

int run_memcpy(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("memcpy", "Memory copies and memsets by kind");
	struct dstats *s = NULL;
	sqlite3_stmt *bytes, *name;
	size_t n = 0, i;
	int64_t all = 0;

	tables_add(out, t);
	table_cols(t, memcpy_cols, NCOLS(memcpy_cols));
	if (script_stats(&sc, NULL, NULL, &s, &n, &all))
		return -1;
	if (!(bytes = script_next(&sc))) {
		free(s);
		return -1;
	}
	if (!(name = script_next(&sc))) {
		sqlite3_finalize(bytes);
		free(s);
		return -1;
	}
	for (i = 0; i < n && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		int64_t b = 0;
		if (all > 0)
			table_set_real(t, r, 0, 100.0 * (double)s[i].total / (double)all);
		set_stats(t, r, 1, &s[i]);
		sqlite3_reset(bytes);
		while (sqlite3_step(bytes) == SQLITE_ROW)
			if (sqlite3_column_int64(bytes, 0) == s[i].key)
				b = sqlite3_column_int64(bytes, 1);
		table_set_int(t, r, 8, b);
		table_set_real(t, r, 9, (double)b / (double)s[i].n);
		if (s[i].total > 0)
			table_set_real(t, r, 10, (double)b / (double)s[i].total);	/* bytes per ns = GB/s */
		sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), s[i].key);
		if (sqlite3_step(name) == SQLITE_ROW)
			set_col_text(t, r, 11, name, 0);
		sqlite3_reset(name);
	}
	sqlite3_finalize(bytes);
	sqlite3_finalize(name);
	free(s);
	return 0;
}
