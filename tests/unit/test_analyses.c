/*
 * Unit tests for the analyses made from module headers (analyze/analyses.c): the shipped table as the
 * headers declare it, and a user's module through analysis_from_text and analysis_run on an in-memory
 * database: its options bound by name, tables as declared or, without table lines, one per result
 * statement with the columns' kinds from their declarations, names or values; and its faults, each one
 * message "FILE:LINE: what".
 */
#include "check.h"
#include "analysis.h"
#include "module.h"
#include "util.h"

#include <stdlib.h>

static char last[1024];	/* the last message, diverted */

static void keep(void *arg, const char *line)
{
	(void)arg;
	snprintf(last, sizeof(last), "%s", line);
}

static const char long_kernels[] =
	"-- analysis: long_kernels\n"
	"-- title: Kernels longer than a threshold\n"
	"-- option: min_ns 100000 kernels at least this long (ns)\n"
	"-- option: label - a label, text\n"
	"-- option: scale 1.5 a real\n"
	"-- column: total_ns ns their total time\n"
	"-- column: tag text,hide-null \"Tag!\" a tag\n"
	"SELECT name, count(*) AS calls, sum(dur_ns) AS total_ns, sum(dur_ns) * 1.0 / count(*) AS mean,\n"
	"       max(tag) AS tag, NULL AS empty, 100.0 * sum(dur_ns) / (SELECT sum(dur_ns) FROM k) AS share_pct,\n"
	"       :label AS label, :scale AS scale, 'a note' AS _note\n"
	"FROM k WHERE dur_ns >= :min_ns GROUP BY name ORDER BY name;\n"
	"SELECT 'Numbers, mixed' AS _title;\n"
	"SELECT 1 AS one, 2.5 AS half, 'x' AS mixed UNION ALL SELECT 2, 3, 4;\n";

/* The first ```sql block of schemas/modules.md (the documented example), or NULL; run from the source root. */
static char *doc_example(void)
{
	FILE *in = fopen("schemas/modules.md", "rb");
	static char text[16384];
	size_t n;
	char *start, *end;
	if (!in)
		return NULL;
	n = fread(text, 1, sizeof(text) - 1, in);
	fclose(in);
	text[n] = 0;
	if (!(start = strstr(text, "```sql\n")) || !(end = strstr(start + 7, "```")))
		return NULL;
	*end = 0;
	return start + 7;
}

/* The column keyed key of t, or NULL. */
static const struct column *col(const struct table *t, const char *key)
{
	int c = table_find_col(t, key);
	return c >= 0 ? &t->cols[c] : NULL;
}

int main(void)
{
	const struct analysis *a, *u;
	struct analysis_opts o;
	struct tables ts = { NULL, 0 };
	sqlite3 *db;
	int n = 0, sections = 0, c;

	util_init("test_analyses");

	/* The shipped table: every analysis a module with a title and tables; includes resolved to files. */
	for (a = analyses; a->name; a++) {
		n++;
		sections += a->section > 0;
		CHECK(a->module && a->text && a->help && a->ntables > 0 && !a->tables[0].open);
		CHECK(!strncmp(a->sql, "analyze/", 8));
	}
	CHECK_EQ_I64(n, 32);
	CHECK_EQ_I64(sections, 27);
	CHECK_EQ_STR(analyses[0].name, "summary");	/* --list order */
	a = analysis_find("leaks");
	CHECK(a && a->nincludes == 2 && a->gate && a->section == 18 && a->section_top == 10);
	if (a && a->nincludes == 2) {
		CHECK_EQ_STR(a->includes[0].file, "analyze/views.sql");
		CHECK_EQ_STR(a->includes[1].file, "analyze/memory-events.sql");
	}
	a = analysis_find("collectives");	/* views through comm */
	CHECK(a && a->nincludes == 2 && a->multi_gpu);
	a = analysis_find("compare");
	CHECK(a && a->needs_baseline && a->options && a->usage && strchr(a->usage, '\n'));
	if (a && a->options) {
		CHECK_EQ_STR(a->options[0]->name, "baseline");
		CHECK_EQ_STR(a->options[4]->name, "min-calls");
		CHECK(a->options[5] == NULL);
	}
	a = analysis_find("stall_kernels");
	CHECK(a && a->tables[0].pivot && a->tables[0].pivot_at == 1 && a->tables[0].pivot->type == C_PCT);
	a = analysis_find("summary");
	CHECK(a && a->tables[0].vertical && a->tables[0].ncols == 31);
	CHECK(analysis_builtin_option("min_delta") && !strcmp(analysis_builtin_option("min_delta")->name, "min-delta"));
	CHECK(analysis_builtin_option("min-delta") == NULL && analysis_builtin_option("colour") == NULL);

	/* A user's module. */
	util_divert_messages(keep, NULL);
	u = analysis_from_text("long.sql", long_kernels);
	CHECK(u != NULL);
	if (!u)
		return check_done("test_analyses");
	CHECK_EQ_STR(u->name, "long_kernels");
	CHECK_EQ_STR(u->help, "Kernels longer than a threshold");
	CHECK_EQ_STR(u->sql, "long.sql");
	CHECK(u->ntables == 1 && u->tables[0].open && u->nincludes == 0 && !u->options && !u->gate && !u->section);
	CHECK(u->module && u->module->nparams == 3);

	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "CREATE TABLE k(name TEXT, dur_ns INTEGER, tag TEXT);"
			   "INSERT INTO k VALUES ('a', 200000, NULL), ('a', 300000, NULL), ('b', 50, 'small'), "
			   "('c', 100000, 'edge');", NULL, NULL, NULL) == SQLITE_OK);
	analysis_opts_init(&o);
	CHECK_EQ_I64(analysis_run(db, u, &o, &ts), 0);
	if (ts.n != 2)
		fprintf(stderr, "message: %s\n", last);
	CHECK_EQ_I64(ts.n, 2);
	if (ts.n == 2) {
		struct table *t = ts.v[0], *m = ts.v[1];
		CHECK_EQ_STR(t->name, "long_kernels");
		CHECK_EQ_STR(t->title, "Kernels longer than a threshold");
		CHECK_EQ_STR(t->note, "a note");
		CHECK_EQ_I64(t->nrows, 2);	/* b is below the default 100000 */
		CHECK_EQ_I64(t->ncols, 9);	/* _note is no column */
		CHECK(col(t, "name") && col(t, "name")->type == C_TEXT);
		CHECK(col(t, "calls") && col(t, "calls")->type == C_INT);	/* by its name */
		CHECK(col(t, "total_ns") && col(t, "total_ns")->type == C_NS);	/* declared */
		CHECK(col(t, "mean") && col(t, "mean")->type == C_REAL);	/* its values */
		CHECK(col(t, "tag") && col(t, "tag")->type == C_TEXT);
		if (col(t, "tag"))
			CHECK_EQ_STR(col(t, "tag")->title, "Tag!");
		CHECK(col(t, "empty") && col(t, "empty")->type == C_TEXT);	/* NULL throughout */
		CHECK(col(t, "share_pct") && col(t, "share_pct")->type == C_PCT);
		if (col(t, "share_pct"))
			CHECK_EQ_STR(col(t, "share_pct")->title, "Share %");
		CHECK(col(t, "label") && col(t, "label")->type == C_TEXT);	/* '-': NULL */
		CHECK(col(t, "scale") && col(t, "scale")->type == C_REAL);
		if ((c = table_find_col(t, "total_ns")) >= 0)
			CHECK_EQ_I64(table_cell(t, 0, c)->i, 500000);
		if ((c = table_find_col(t, "mean")) >= 0)
			CHECK(table_cell(t, 0, c)->is_real && table_cell(t, 0, c)->d == 250000.0 && !table_cell(t, 0, c)->s);
		if ((c = table_find_col(t, "label")) >= 0)
			CHECK(table_cell(t, 0, c)->null);
		if ((c = table_find_col(t, "scale")) >= 0)
			CHECK(table_cell(t, 0, c)->d == 1.5);
		CHECK_EQ_STR(m->name, "long_kernels_2");
		CHECK_EQ_STR(m->title, "Numbers, mixed");
		CHECK(m->nrows == 2 && m->ncols == 3);
		CHECK(col(m, "one") && col(m, "one")->type == C_INT);
		CHECK(col(m, "half") && col(m, "half")->type == C_REAL);	/* 2.5 and 3: reals */
		if ((c = table_find_col(m, "half")) >= 0)
			CHECK(table_cell(m, 1, c)->is_real && table_cell(m, 1, c)->d == 3.0);
		CHECK(col(m, "mixed") && col(m, "mixed")->type == C_TEXT);	/* 'x' and 4: text */
		if ((c = table_find_col(m, "mixed")) >= 0)
			CHECK_EQ_STR(table_cell(m, 1, c)->s, "4");
	}
	/* Its options given: an integer, text, a real. */
	CHECK_EQ_I64(analysis_set_param(&o, "min_ns=50"), 0);
	CHECK_EQ_I64(analysis_set_param(&o, "label=hello"), 0);
	CHECK_EQ_I64(analysis_set_param(&o, "scale=2e3"), 0);
	tables_free(&ts);
	CHECK_EQ_I64(analysis_run(db, u, &o, &ts), 0);
	if (ts.n == 2) {
		struct table *t = ts.v[0];
		CHECK_EQ_I64(t->nrows, 3);
		if ((c = table_find_col(t, "label")) >= 0)
			CHECK_EQ_STR(table_cell(t, 0, c)->s, "hello");
		if ((c = table_find_col(t, "scale")) >= 0)
			CHECK(t->cols[c].type == C_REAL && table_cell(t, 0, c)->d == 2000.0);
		CHECK(col(t, "tag") != NULL);
	}
	CHECK_EQ_I64(analysis_set_param(&o, "min_ns"), -1);
	CHECK(strstr(last, "--opt needs NAME=VALUE, not 'min_ns'") != NULL);
	CHECK_EQ_I64(analysis_set_param(&o, "min_delta=5"), -1);
	CHECK(strstr(last, "a built-in option; give it as --min-delta") != NULL);
	free(o.params);
	tables_free(&ts);

	/* Declared tables; a hidden column; built-in options and gate; an include. */
	u = analysis_from_text("t.sql", "-- analysis: tabled\n-- title: T\n-- include: memory-events\n"
			       "-- option: threshold 0.05 relative\n-- gate: fail_on_leak 0 exit 1\n-- gate_doc\n"
			       "-- table: first First rows\n-- column: n int \"N\"\n-- column: h int,hide-null\n"
			       "SELECT 7 AS n, NULL AS h;\n");
	CHECK(u && u->ntables == 1 && !u->tables[0].open && u->tables[0].ncols == 2 && u->gate);
	CHECK(u && u->options && u->options[0] == analysis_builtin_option("threshold") && !u->options[1]);
	CHECK(u && u->nincludes == 2);
	if (u && u->nincludes == 2)
		CHECK_EQ_STR(u->includes[0].file, "analyze/views.sql");
	u = analysis_from_text("t.sql", "-- analysis: tabled\n-- title: T\n-- table: first First rows\n"
			       "-- column: n int \"N\"\n-- column: h int,hide-null\nSELECT 7 AS n, NULL AS h;\n");
	CHECK(u != NULL);
	if (u) {
		CHECK_EQ_I64(analysis_run(db, u, &o, &ts), 0);
		CHECK(ts.n == 1 && ts.v[0]->ncols == 1 && !strcmp(ts.v[0]->name, "first") &&
		      !strcmp(ts.v[0]->cols[0].title, "N"));
		tables_free(&ts);
	}
	/* Its own gate: left to the module (a->gate is a built-in judge's). */
	u = analysis_from_text("g.sql", "-- analysis: gated\n-- title: T\n-- gate: fail_if_any exit 1 on a row\nSELECT 1;\n");
	CHECK(u && !u->gate && u->module->gate.name && !strcmp(u->module->gate.name, "fail_if_any"));

	/* Faults: one message, FILE:LINE. */
	CHECK(analysis_from_text("bad.sql", "-- analysis: x\n-- title: T\n-- include: nowhere\nSELECT 1;\n") == NULL);
	CHECK(strstr(last, "error: bad.sql:3: include 'nowhere': there is no such module") != NULL);
	CHECK(analysis_from_text("bad.sql", "-- analysis: x\n-- title: T\n-- include: hotspots\nSELECT 1;\n") == NULL);
	CHECK(strstr(last, "error: bad.sql:3: include 'hotspots': an analysis, not a prelude") != NULL);
	CHECK(analysis_from_text("bad.sql", "-- module: x\n-- title: T\nSELECT 1;\n") == NULL);
	CHECK(strstr(last, "error: bad.sql:1: module 'x' is a prelude ('-- module:'), not an analysis") != NULL);
	CHECK(analysis_from_text("bad.sql", "-- analysis: x\n-- title: T\n-- column: a nonsense\n") == NULL);
	CHECK(strstr(last, "error: bad.sql:3: unknown kind 'nonsense'") != NULL);
	CHECK(analysis_from_text("bad.sql", "SELECT 1;\n") == NULL);
	CHECK(strstr(last, "error: bad.sql:1: no '-- analysis: NAME'") != NULL);

	/* The documented example (schemas/modules.md), on a session of four kernels. */
	u = analysis_from_text("schemas/modules.md", doc_example() ? doc_example() : "");
	CHECK(u != NULL);
	CHECK(sqlite3_exec(db, "CREATE TABLE kernels(session_id, start_ns, end_ns, name_id);"
			   "CREATE TABLE strings(session_id, id, value);"
			   "INSERT INTO strings VALUES (1, 1, 'gemm'), (1, 2, 'copy');"
			   "INSERT INTO kernels VALUES (1, 0, 300000, 1), (1, 0, 200000, 1), (1, 0, 5, 2), (2, 0, 900000, 2);",
			   NULL, NULL, NULL) == SQLITE_OK);
	analysis_opts_init(&o);
	o.session = 1;
	if (u) {
		CHECK_EQ_I64(analysis_run(db, u, &o, &ts), 0);
		CHECK(ts.n == 1 && ts.v[0]->nrows == 1 && ts.v[0]->ncols == 4);
		if (ts.n == 1 && ts.v[0]->ncols == 4) {
			struct table *t = ts.v[0];
			CHECK_EQ_STR(t->name, "long_kernels");
			CHECK(t->cols[0].type == C_TEXT && t->cols[1].type == C_INT && t->cols[2].type == C_NS &&
			      t->cols[3].type == C_NS);
			CHECK_EQ_STR(t->cols[2].title, "Total");
			CHECK_EQ_STR(table_cell(t, 0, 0)->s, "gemm");
			CHECK(table_cell(t, 0, 1)->i == 2 && table_cell(t, 0, 2)->i == 500000 && table_cell(t, 0, 3)->i == 300000);
		}
		tables_free(&ts);
	}

	sqlite3_close(db);
	return check_done("test_analyses");
}
