/*
 * hotspots: kernels by total GPU time, one row per name, with Nsight Systems' statistics.
 */
#include "analysis.h"
#include "columns.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>

static const struct colspec hotspots_cols[] = {
	{ "time_pct", "Time %", C_PCT },
	STATS_COLUMNS("calls", "Calls"),
	{ "name", "Name", C_TEXT },
};

int run_hotspots(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct table *t = table_new("hotspots", "Top kernels by total GPU time");
	const struct kcols *k;
	struct named_stats *v;
	size_t n, i;
	int64_t all = 0;

	tables_add(out, t);
	table_cols(t, hotspots_cols, NCOLS(hotspots_cols));
	if (kernels_by_name(db, sql, o, &v, &n))
		return -1;
	for (i = 0; i < n; i++)
		all += v[i].s.total;
	/* With a name filter, time_pct stays a share of all kernel time. */
	if (o->match || o->exclude) {
		if (!(k = kernels_get(db, o->session, KC_DUR))) {
			named_stats_free(v, n);
			return -1;
		}
		all = kernels_total(k);
	}
	for (i = 0; i < n && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		if (all > 0)
			table_set_real(t, r, 0, 100.0 * (double)v[i].s.total / (double)all);
		set_stats(t, r, 1, &v[i].s);
		table_set_text(t, r, 8, v[i].name);
	}
	named_stats_free(v, n);
	return 0;
}
