/*
 * memcpy_by_kind for compare (analysis.h), until compare is its SQL: the memcpy analysis itself is
 * analyze/memcpy.sql.
 */
#include "analysis.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>

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
