/*
 * Unit tests for the rows programs are driven by: the formats table (lib/table.c) and the options and
 * gates of the analyses table (analyze/analyses.c, made from the modules' headers).
 */
#include "check.h"
#include "analysis.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>

static int table_filter(const struct format *f)
{
	return f->table_filter;
}

/* The option called name among a's options and gate, or NULL. */
static const struct analysis_option *option(const struct analysis *a, const char *name)
{
	const struct analysis_option *const *p;
	for (p = a->options; p && *p; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return a->gate && !strcmp(a->gate->option->name, name) ? a->gate->option : NULL;
}

/* A leaks table as analyze/leaks.sql fills it: bytes and status columns. */
static struct table *leaks_table(const int64_t *bytes, const char *const *status, int n)
{
	struct table *t = table_new("leaks", "Leaks");
	int i;
	table_col(t, "bytes", "Unfreed", C_BYTES);
	table_col(t, "status", "Status", C_TEXT);
	for (i = 0; i < n; i++) {
		size_t r = table_row(t);
		table_set_int(t, r, 0, bytes[i]);
		table_set_text(t, r, 1, status[i]);
	}
	return t;
}

int main(void)
{
	const struct format *f;
	const struct analysis *a, *leaks, *compare, *hotspots;
	const struct analysis_option *opt;
	struct analysis_opts o;
	struct buf b;
	struct tables ts = { NULL, 0 };
	char line[600], amount[32], want[600];
	int i, sections[64] = { 0 };
	static const int64_t bytes[] = { 100, 50, 0 };
	static const char *const status[] = { "unfreed", "unfreed", "unknown (no addresses)" };

	util_init("test_rows");

	/* Formats: one row each, indexed by id; names and aliases per program. */
	for (i = 0, f = formats; f->name; f++, i++) {
		CHECK_EQ_I64(f->id, i);
		CHECK(!(f->programs & FMT_ANALYZE) || f->render);	/* analyze prints tables one by one */
		CHECK(!f->to_dir || f->render);
	}
	CHECK_EQ_I64(i, FMT_N);
	CHECK(format_find("md", FMT_ANALYZE) == &formats[FMT_MD]);
	CHECK(format_find("markdown", FMT_REPORT) == &formats[FMT_MD]);
	CHECK(format_find("html", FMT_REPORT) == &formats[FMT_HTML]);
	CHECK(format_find("html", FMT_ANALYZE) == NULL);
	CHECK(format_find("xlsx", FMT_ANALYZE) == NULL);
	CHECK(format_find("pdf", FMT_REPORT) == NULL);
	buf_init(&b);
	format_names(&b, FMT_ANALYZE, NULL, " or ", " (default)");
	CHECK_EQ_STR(b.s, "text (default), csv, json or md");
	buf_reset(&b);
	format_names(&b, FMT_REPORT, NULL, ", ", NULL);
	CHECK_EQ_STR(b.s, "text, csv, json, md, html, xlsx, trace");
	CHECK(format_find("trace", FMT_REPORT) == &formats[FMT_TRACE] && formats[FMT_TRACE].events);
	CHECK(format_find("trace", FMT_ANALYZE) == NULL);
	buf_reset(&b);
	format_names(&b, FMT_REPORT, table_filter, " or ", NULL);
	CHECK_EQ_STR(b.s, "csv");
	buf_release(&b);

	/* Rows: unique names and report places; a gate's option is its own, never lenient. */
	for (a = analyses; a->name; a++) {
		CHECK(analysis_find(a->name) == a);
		CHECK(a->section >= 0 && a->section < 64);
		if (a->section) {
			CHECK(!sections[a->section]);
			sections[a->section] = 1;
		}
		if (a->gate)
			CHECK(analysis_takes(a, a->gate->option) && !a->gate->option->lenient);
	}
	leaks = analysis_find("leaks");
	compare = analysis_find("compare");
	hotspots = analysis_find("hotspots");
	CHECK(leaks && compare && hotspots);
	if (!leaks || !compare || !hotspots)
		return check_done("test_rows");
	CHECK(compare->needs_baseline && !leaks->needs_baseline && !hotspots->needs_baseline);
	CHECK(option(leaks, "fail-on-leak") && !option(hotspots, "fail-on-leak"));
	CHECK(option(compare, "fail-on-regression") && option(compare, "baseline"));

	/* Options' arguments. */
	analysis_opts_init(&o);
	CHECK(o.threshold == 0.05 && o.min_delta == 10000 && o.min_calls == 1);
	opt = option(compare, "threshold");
	CHECK(opt && opt->lenient && !opt->parse(&o, "2.5%") && fabs(o.threshold - 0.025) < 1e-15);
	CHECK(opt && !opt->parse(&o, "7") && fabs(o.threshold - 0.07) < 1e-15);
	CHECK(opt && opt->parse(&o, "x") && opt->parse(&o, "5%%") && opt->parse(&o, "-1"));
	opt = option(compare, "min-delta");
	CHECK(opt && !opt->parse(&o, "1.5ms") && o.min_delta == 1500000);
	CHECK(opt && !opt->parse(&o, "500") && o.min_delta == 500);
	CHECK(opt && opt->parse(&o, "10parsecs") && opt->parse(&o, "1e12s"));
	opt = option(compare, "min-calls");
	CHECK(opt && !opt->parse(&o, "3") && o.min_calls == 3 && opt->parse(&o, "-1"));
	opt = option(leaks, "fail-on-leak");
	CHECK(opt && opt->has_arg == optional_argument);
	CHECK(opt && !opt->parse(&o, "100") && o.limit == 100 && !opt->parse(&o, NULL) && o.limit == 0);
	CHECK(opt && opt->parse(&o, "x") && opt->parse(&o, "-5"));

	/* The leak gate: unfreed bytes against the limit; a device without addresses always fails. */
	tables_add(&ts, leaks_table(bytes, status, 2));
	o.limit = 150;
	CHECK_EQ_I64(leaks->gate->judge(&ts, &o, line, sizeof(line)), 0);
	fmt_bytes(amount, sizeof(amount), 150);
	snprintf(want, sizeof(want), "leaks: %s unfreed (150 bytes), limit 150 bytes: ok", amount);
	CHECK_EQ_STR(line, want);
	o.limit = 149;
	CHECK_EQ_I64(leaks->gate->judge(&ts, &o, line, sizeof(line)), 1);
	tables_free(&ts);
	tables_add(&ts, leaks_table(bytes, status, 3));
	o.limit = 1000;
	CHECK_EQ_I64(leaks->gate->judge(&ts, &o, line, sizeof(line)), 1);
	snprintf(want, sizeof(want),
		 "leaks: unknown on 1 device without addresses; %s unfreed (150 bytes) on the others, limit 1000 bytes: FAIL",
		 amount);
	CHECK_EQ_STR(line, want);
	tables_free(&ts);
	return check_done("test_rows");
}
