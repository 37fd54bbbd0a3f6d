/*
 * hotspots: kernels by total GPU time, one row per name, with Nsight Systems' statistics.
 */
#include "analysis.h"
#include "columns.h"
#include "names.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>

static const struct colspec hotspots_cols[] = {
	{ "time_pct", "Time %", C_PCT },
	STATS_COLUMNS("calls", "Calls"),
	{ "name", "Name", C_TEXT },
};

#define HOTSPOTS_COLS (KC_NAME | KC_DUR)

int run_hotspots(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("hotspots", "Top kernels by total GPU time");
	const struct kcols *k;
	struct dstats *s = NULL;
	struct fold f;
	sqlite3_stmt *name;
	int32_t *keys;
	size_t n = 0, i;
	int64_t all = 0;
	int folded = names_folded(o);

	tables_add(out, t);
	table_cols(t, hotspots_cols, NCOLS(hotspots_cols));

	if (!(k = kernels_get(db, o->session, HOTSPOTS_COLS)) || (folded && fold_load(db, o, &f)))
		return -1;
	if (!(keys = kernels_name_keys(db, o, k, folded ? &f : NULL)))
		goto fail;
	kernels_stats(k, keys, &s, &n, &all);
	free(keys);
	/* With a name filter, time_pct stays a share of all kernel time. */
	if (o->match || o->exclude)
		all = kernels_total(k);
	if (!(name = script_next(&sc)))
		goto fail;
	for (i = 0; i < n && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		if (all > 0)
			table_set_real(t, r, 0, 100.0 * (double)s[i].total / (double)all);
		set_stats(t, r, 1, &s[i]);
		if (folded) {
			table_set_text(t, r, 8, fold_name(&f, s[i].key));
			continue;
		}
		sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), s[i].key);
		if (sqlite3_step(name) == SQLITE_ROW)
			set_col_text(t, r, 8, name, 0);
		else
			table_set_text(t, r, 8, "(unknown)");
		sqlite3_reset(name);
	}
	sqlite3_finalize(name);
	free(s);
	if (folded)
		fold_release(&f);
	return 0;
fail:
	free(s);
	if (folded)
		fold_release(&f);
	return -1;
}
