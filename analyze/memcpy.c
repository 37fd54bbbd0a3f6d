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

int memcpy_by_kind(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct named_stats **out,
		   size_t *n)
{
	struct script sc = { db, sql, o };
	struct named_stats *v;
	struct dstats *s = NULL;
	sqlite3_stmt *bytes = NULL, *name = NULL;
	size_t ns = 0, i;
	int rc;

	*out = NULL;
	*n = 0;
	if (script_stats(&sc, NULL, NULL, &s, &ns, NULL))
		return -1;
	if (!(bytes = script_next(&sc)) || !(name = script_next(&sc))) {
		sqlite3_finalize(bytes);
		free(s);
		return -1;
	}
	v = xcalloc(ns ? ns : 1, sizeof(*v));
	for (i = 0; i < ns; i++) {
		v[i].s = s[i];
		sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), s[i].key);
		if (sqlite3_step(name) == SQLITE_ROW)
			v[i].name = xstrdup((const char *)sqlite3_column_text(name, 0));
		else
			v[i].name = xstrdup("unknown");
		sqlite3_reset(name);
	}
	while ((rc = sqlite3_step(bytes)) == SQLITE_ROW)
		for (i = 0; i < ns; i++)
			if (v[i].s.key == sqlite3_column_int64(bytes, 0))
				v[i].bytes = sqlite3_column_int64(bytes, 1);
	sqlite3_finalize(name);
	free(s);
	if (rc != SQLITE_DONE) {
		step_error(bytes);
		named_stats_free(v, ns);
		return -1;
	}
	sqlite3_finalize(bytes);
	*out = v;
	*n = ns;
	return 0;
}

int run_memcpy(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct table *t = table_new("memcpy", "Memory copies and memsets by kind");
	struct named_stats *v;
	size_t n = 0, i;
	int64_t all = 0;

	tables_add(out, t);
	table_cols(t, memcpy_cols, NCOLS(memcpy_cols));
	if (memcpy_by_kind(db, sql, o, &v, &n))
		return -1;
	for (i = 0; i < n; i++)
		all += v[i].s.total;
	for (i = 0; i < n && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		if (all > 0)
			table_set_real(t, r, 0, 100.0 * (double)v[i].s.total / (double)all);
		set_stats(t, r, 1, &v[i].s);
		table_set_int(t, r, 8, v[i].bytes);
		table_set_real(t, r, 9, (double)v[i].bytes / (double)v[i].s.n);
		if (v[i].s.total > 0)
			table_set_real(t, r, 10, (double)v[i].bytes / (double)v[i].s.total);	/* bytes per ns = GB/s */
		table_set_text(t, r, 11, v[i].name);
	}
	named_stats_free(v, n);
	return 0;
}
