/*
 * Unit tests for script_run (analyze/script.c): how an analysis's SQL statements fill the tables its header
 * declares (headings, _note, C_HIDE_NULL, checked keys, bound options), on an in-memory database.
 */
#include "check.h"
#include "analysis.h"
#include "util.h"

#include <stdlib.h>

static const struct colspec two_cols[] = {
	{ "k", "Key", C_INT },
	{ "h", "Hidden when NULL", C_INT, C_HIDE_NULL },
	{ "s", "Shown", C_TEXT },
};
static const struct colspec one_col[] = {
	{ "v", "Value", C_REAL },
};
static const struct table_spec specs[] = {
	{ "first", "First", two_cols, NCOLS(two_cols) },
	{ "second", "Second", one_col, NCOLS(one_col), 1 },
};

/* Run sql with o over db into ts (freed first); script_run's return. */
static int run(sqlite3 *db, const char *sql, const struct analysis_opts *o, int n, struct tables *ts)
{
	tables_free(ts);
	return script_run(db, sql, o, specs, n, ts);
}

int main(void)
{
	sqlite3 *db;
	struct analysis_opts o;
	struct tables ts = { NULL, 0 };
	const char *groups[] = { "A=^a", "B=b" };

	util_init("test_script");
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	analysis_opts_init(&o);

	/* Statements without results run; each with results fills the next table; _note notes tables. */
	CHECK_EQ_I64(run(db, "CREATE TEMP TABLE x(a, b); INSERT INTO x VALUES (2, NULL), (1, NULL);\n"
			 "SELECT 'noted' AS _note, 'Retitled' AS _title;\n"
			 "SELECT a AS k, b AS h, 'row' || a AS s FROM x ORDER BY a;\n"
			 "SELECT 0.5 AS v, NULL AS _note UNION ALL SELECT 1.5, 'from a row';", &o, 2, &ts), 0);
	CHECK_EQ_I64(ts.n, 2);
	CHECK_EQ_STR(ts.v[0]->name, "first");
	CHECK_EQ_I64(ts.v[0]->ncols, 2);	/* h: NULL in every row, hidden */
	CHECK_EQ_STR(ts.v[0]->cols[1].key, "s");
	CHECK_EQ_I64((int64_t)ts.v[0]->nrows, 2);
	CHECK_EQ_I64(table_cell(ts.v[0], 0, 0)->i, 1);
	CHECK_EQ_STR(table_cell(ts.v[0], 1, 1)->s, "row2");
	CHECK_EQ_STR(ts.v[0]->note, "noted");
	CHECK_EQ_STR(ts.v[0]->title, "Retitled");
	CHECK_EQ_STR(ts.v[1]->title, "Second");	/* a heading is for the next table only */
	CHECK_EQ_I64(ts.v[1]->vertical, 1);
	CHECK_EQ_STR(ts.v[1]->note, "from a row");
	CHECK(table_cell(ts.v[1], 1, 0)->d == 1.5);

	/* A column flagged C_HIDE_NULL stays when one row has a value. */
	CHECK_EQ_I64(run(db, "SELECT 1 AS k, NULL AS h, 'x' AS s UNION ALL SELECT 2, 7, 'y';", &o, 1, &ts), 0);
	CHECK_EQ_I64(ts.v[0]->ncols, 3);

	/* The result columns must be the declared keys, in order: else an internal error, not a wrong table. */
	CHECK_EQ_I64(run(db, "SELECT 1 AS k, 2 AS s, 3 AS h;", &o, 1, &ts), -1);
	CHECK_EQ_I64(run(db, "SELECT 1 AS k, 2 AS h;", &o, 1, &ts), -1);
	CHECK_EQ_I64(run(db, "SELECT 1 AS k, 2 AS h, 3 AS s, 4 AS extra;", &o, 1, &ts), -1);
	/* As many result statements as tables. */
	CHECK_EQ_I64(run(db, "SELECT 1 AS k, 2 AS h, 3 AS s;", &o, 2, &ts), -1);
	CHECK_EQ_I64(run(db, "SELECT 1 AS k, 2 AS h, 3 AS s; SELECT 1 AS v; SELECT 2 AS v;", &o, 2, &ts), -1);
	/* A heading notes its table even when it has no rows. */
	CHECK_EQ_I64(run(db, "SELECT 'empty' AS _note; SELECT 1 AS k, 2 AS h, 3 AS s WHERE 0;", &o, 1, &ts), 0);
	CHECK_EQ_STR(ts.v[0]->note, "empty");
	CHECK_EQ_I64(run(db, "SELECT * FROM no_such_table;", &o, 1, &ts), -1);

	/* Options bound by name; --group in temp.name_groups, in order. */
	o.session = 42;
	o.top = 0;
	o.short_names = 1;
	o.threshold = 0.25;
	o.min_delta = 5000;
	o.ngroups = 2;
	o.groups = groups;
	CHECK_EQ_I64(run(db, "SELECT :session AS k, :top AS h, :short || :folded || :threshold || ':' || :min_delta "
			 "|| ':' || (SELECT group_concat(name || '/' || pattern, ' ') FROM "
			 "(SELECT * FROM temp.name_groups ORDER BY ord)) AS s;", &o, 1, &ts), 0);
	CHECK_EQ_I64(table_cell(ts.v[0], 0, 0)->i, 42);
	CHECK_EQ_I64(table_cell(ts.v[0], 0, 1)->i, -1);	/* no --top: LIMIT -1 */
	CHECK_EQ_STR(table_cell(ts.v[0], 0, 2)->s, "110.25:5000:A/^a B/b");
	o.ngroups = 0;
	o.short_names = 0;
	o.top = 3;
	CHECK_EQ_I64(run(db, "SELECT :top AS k, :folded AS h, (SELECT count(*) FROM temp.name_groups) AS s;", &o, 1,
			 &ts), 0);
	CHECK_EQ_I64(table_cell(ts.v[0], 0, 0)->i, 3);
	CHECK_EQ_I64(table_cell(ts.v[0], 0, 1)->i, 0);
	CHECK_EQ_I64(table_cell(ts.v[0], 0, 2)->i, 0);

	tables_free(&ts);
	sqlite3_close(db);
	return check_done("test_script");
}
