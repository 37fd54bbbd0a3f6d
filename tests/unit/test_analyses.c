/*
 * Unit tests for the analyses made from module headers (analyze/analyses.c): the shipped table as the
 * headers declare it.
 */
#include "check.h"
#include "analysis.h"
#include "util.h"

int main(void)
{
	const struct analysis *a;
	int n = 0, sections = 0;

	util_init("test_analyses");

	/* The shipped table: every analysis a module with a title and tables; includes resolved to files. */
	for (a = analyses; a->name; a++) {
		n++;
		sections += a->section > 0;
		CHECK(a->module && a->text && a->help && a->ntables > 0);
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

	return check_done("test_analyses");
}
