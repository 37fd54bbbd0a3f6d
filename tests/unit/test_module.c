/*
 * Unit tests for module_parse (analyze/module.c): every key of a module's header, the repeatable ones,
 * prose kept as the doc, and each malformed header's one message "FILE:LINE: what" with -1.
 */
#include "check.h"
#include "module.h"
#include "util.h"

#include <stdlib.h>

static char last[1024];	/* the last message, diverted */

static void keep(void *arg, const char *line)
{
	(void)arg;
	snprintf(last, sizeof(last), "%s", line);
}

/* Parse text as FILE x.sql and expect it to fail with the message "x.sql:LINE: WHAT...". */
static void bad(const char *text, int line, const char *what)
{
	struct module m;
	char want[512];
	int n;
	last[0] = 0;
	CHECK_EQ_I64(module_parse("x.sql", text, &m), -1);
	n = snprintf(want, sizeof(want), "test_module: error: x.sql:%d: %s", line, what);
	if (strncmp(last, want, (size_t)n)) {
		fprintf(stderr, "for:\n%s\n  got  '%s'\n  want '%s...'\n", text, last, want);
		check_failed++;
	} else {
		check_passed++;
	}
	CHECK(m.name == NULL && m.file == NULL && m.tables == NULL);	/* released */
}

static const char full[] =
	"-- analysis: growthy\n"
	"-- title: Memory that grows: per iteration\n"
	"-- growthy: what it does, in prose\n"
	"--\n"
	"-- on two lines; title: not a key here\n"
	"-- include: views\n"
	"-- include: memory-events\n"
	"-- option: threshold 0.05 relative change that counts\n"
	"-- option: min_delta 10000\n"
	"-- option: carbon_intensity - grams per kWh\n"
	"-- gate: fail_on_leak 0 exit 1 when leaking\n"
	"-- section: 19 top 10 multi-gpu\n"
	"-- baseline: required\n"
	"-- kernel-cache: yes\n"
	"-- usage: NEW.db: five tables,\n"
	"-- usage: and a second line\n"
	"-- table: growth Memory growth per iteration\n"
	"-- column: rank int,hide-group \"Rank\" the GPU's rank\n"
	"-- column: total_ns ns their total time\n"
	"-- column: share_pct pct,hide-null,hide-group\n"
	"-- column: name text \"Kernel name\"\n"
	"--   an indented line is prose\n"
	"-- table: summary vertical Session summary\n"
	"-- column: start_ns time \"Start\" when\n"
	"-- column: calls count\n"
	"-- column: bytes bytes\n"
	"-- column: r2 real \"R^2\" fit\n"
	"-- pivot: _pct pct at calls\n"
	"SELECT 1;\n"
	"-- column: after the header: not read\n";

int main(void)
{
	struct module m;
	char *t;

	util_init("test_module");
	util_divert_messages(keep, NULL);

	/* Every key. */
	CHECK_EQ_I64(module_parse("analyze/growthy.sql", full, &m), 0);
	CHECK_EQ_STR(m.file, "analyze/growthy.sql");
	CHECK_EQ_STR(m.name, "growthy");
	CHECK(m.is_analysis);
	CHECK_EQ_STR(m.title, "Memory that grows: per iteration");
	CHECK_EQ_STR(m.doc, "growthy: what it does, in prose\n\non two lines; title: not a key here\n"
		     "  an indented line is prose");
	CHECK_EQ_I64(m.nincludes, 2);
	if (m.nincludes == 2) {
		CHECK_EQ_STR(m.includes[0], "views");
		CHECK_EQ_STR(m.includes[1], "memory-events");
	}
	CHECK_EQ_I64(m.nparams, 3);
	if (m.nparams == 3) {
		CHECK_EQ_STR(m.params[0].name, "threshold");
		CHECK_EQ_STR(m.params[0].def, "0.05");
		CHECK_EQ_STR(m.params[0].doc, "relative change that counts");
		CHECK_EQ_STR(m.params[1].def, "10000");
		CHECK_EQ_STR(m.params[1].doc, "");
		CHECK(m.params[2].def == NULL);
		CHECK_EQ_STR(m.params[2].doc, "grams per kWh");
	}
	CHECK_EQ_STR(m.gate.name, "fail_on_leak");
	CHECK_EQ_STR(m.gate.def, "0");
	CHECK_EQ_STR(m.gate.doc, "exit 1 when leaking");
	CHECK(m.section == 19 && m.section_top == 10 && m.multi_gpu && m.needs_baseline && m.kernel_cache);
	CHECK_EQ_STR(m.usage, "NEW.db: five tables,\nand a second line");
	CHECK_EQ_I64(m.ntables, 2);
	CHECK_EQ_I64(m.ncolumns, 0);
	CHECK_EQ_I64(m.body_line, 29);
	if (m.ntables == 2) {
		struct module_table *a = &m.tables[0], *b = &m.tables[1];
		CHECK_EQ_STR(a->key, "growth");
		CHECK_EQ_STR(a->title, "Memory growth per iteration");
		CHECK(!a->vertical && !a->pivot && !a->pivot_at);
		CHECK_EQ_I64(a->ncols, 4);
		if (a->ncols == 4) {
			CHECK_EQ_STR(a->cols[0].key, "rank");
			CHECK_EQ_STR(a->cols[0].title, "Rank");
			CHECK_EQ_STR(a->cols[0].doc, "the GPU's rank");
			CHECK(a->cols[0].type == C_INT && a->cols[0].flags == C_HIDE_GROUP);
			CHECK_EQ_STR(a->cols[1].title, "Total");	/* made from the key */
			CHECK_EQ_STR(a->cols[1].doc, "their total time");
			CHECK(a->cols[1].type == C_NS && !a->cols[1].flags);
			CHECK_EQ_STR(a->cols[2].title, "Share %");
			CHECK(a->cols[2].type == C_PCT && a->cols[2].flags == (C_HIDE_NULL | C_HIDE_GROUP));
			CHECK_EQ_STR(a->cols[3].title, "Kernel name");
			CHECK_EQ_STR(a->cols[3].doc, "");
			CHECK(a->cols[3].type == C_TEXT);
		}
		CHECK_EQ_STR(b->key, "summary");
		CHECK_EQ_STR(b->title, "Session summary");
		CHECK(b->vertical);
		CHECK_EQ_I64(b->ncols, 4);
		if (b->ncols == 4) {
			CHECK(b->cols[0].type == C_TIME && b->cols[1].type == C_INT && b->cols[2].type == C_BYTES &&
			      b->cols[3].type == C_REAL);
			CHECK_EQ_STR(b->cols[3].title, "R^2");
			CHECK_EQ_STR(b->cols[1].title, "Calls");
		}
		CHECK(b->pivot && b->pivot->type == C_PCT);
		if (b->pivot)
			CHECK_EQ_STR(b->pivot->key, "_pct");
		CHECK_EQ_STR(b->pivot_at, "calls");
	}
	module_release(&m);
	CHECK(m.name == NULL && m.tables == NULL);

	/* A prelude; a user's module with columns and no tables; CRLF lines. */
	CHECK_EQ_I64(module_parse("p.sql", "-- module: memory-events\n-- include: views\n-- what it makes\nCREATE TEMP "
				  "TABLE x(a);\n", &m), 0);
	CHECK(!m.is_analysis && m.title == NULL && m.nincludes == 1 && m.body_line == 4);
	CHECK_EQ_STR(m.doc, "what it makes");
	module_release(&m);
	CHECK_EQ_I64(module_parse("u.sql", "-- analysis: long_kernels\r\n-- title: Kernels longer than a threshold\r\n"
				  "-- option: min_ns 100000 kernels at least this long (ns)\r\n"
				  "-- column: total_ns ns their total time\r\nSELECT 1 AS total_ns;\r\n", &m), 0);
	CHECK_EQ_STR(m.title, "Kernels longer than a threshold");
	CHECK(m.ntables == 0 && m.ncolumns == 1 && m.nparams == 1 && m.body_line == 5);
	if (m.ncolumns == 1) {
		CHECK_EQ_STR(m.columns[0].key, "total_ns");
		CHECK_EQ_STR(m.columns[0].doc, "their total time");
	}
	if (m.nparams == 1)
		CHECK_EQ_STR(m.params[0].doc, "kernels at least this long (ns)");
	module_release(&m);
	/* A whole file of header, no statement. */
	CHECK_EQ_I64(module_parse("h.sql", "-- module: views", &m), 0);
	CHECK_EQ_I64(m.body_line, 2);
	module_release(&m);

	/* Kinds from names; titles from keys. */
	CHECK_EQ_I64(module_kind_from_name("total_ns"), C_NS);
	CHECK_EQ_I64(module_kind_from_name("peak_bytes"), C_BYTES);
	CHECK_EQ_I64(module_kind_from_name("busy_pct"), C_PCT);
	CHECK_EQ_I64(module_kind_from_name("calls"), C_INT);
	CHECK_EQ_I64(module_kind_from_name("count"), C_INT);
	CHECK_EQ_I64(module_kind_from_name("name"), -1);
	CHECK_EQ_I64(module_kind_from_name("ns"), -1);
	CHECK_EQ_I64(module_kind_from_name("bytes"), -1);
	CHECK_EQ_I64(module_kind("count"), C_INT);
	CHECK_EQ_I64(module_kind("time"), C_TIME);
	CHECK_EQ_I64(module_kind("seconds"), -1);
	t = module_default_title("avg_bytes");
	CHECK_EQ_STR(t, "Avg bytes");
	free(t);

	/* Malformed headers: the line at fault and what. */
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- column: x seconds doc\n", 4, "unknown kind 'seconds'");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- column: x int,hidden doc\n", 4, "unknown column flag 'hidden'");
	bad("-- title: T\n-- prose\nSELECT 1;\n", 1, "'title' before the module's name");
	bad("-- some prose\nSELECT 1;\n", 1, "no '-- analysis: NAME' or '-- module: NAME' line");
	bad("SELECT 1;\n", 1, "no '-- analysis: NAME' or '-- module: NAME' line");
	bad("-- analysis: a\n-- title: T\n-- module: b\n", 3, "a second name");
	bad("-- analysis: a b\n", 1, "'analysis' needs one NAME");
	bad("-- analysis:\n", 1, "'analysis' needs one NAME");
	bad("-- analysis: a\n-- prose\n-- table: t T\n", 3, "analysis 'a' has no '-- title:' line");
	bad("-- analysis: a\n-- title: T\n-- column: x int\n-- table: t T\n-- column: y int\n", 3,
	    "column before any table");
	bad("-- analysis: a\n-- title: T\n-- section: x\n", 3, "bad section 'x'");
	bad("-- analysis: a\n-- title: T\n-- section: 0\n", 3, "bad section '0'");
	bad("-- analysis: a\n-- title: T\n-- section: 3 top\n", 3, "bad section: 'top' needs a count");
	bad("-- analysis: a\n-- title: T\n-- section: 3 sideways\n", 3, "bad section: 'sideways'");
	bad("-- analysis: a\n-- title: T\n-- section: 3\n-- section: 4\n", 4, "a second 'section' line");
	bad("-- analysis: a\n-- title: T\n-- option: n 1 doc\n-- option: n 2 doc\n", 4, "duplicate option 'n'");
	bad("-- analysis: a\n-- title: T\n-- gate: fail_x doc\n-- option: fail_x 2 doc\n", 4, "duplicate option 'fail_x'");
	bad("-- analysis: a\n-- title: T\n-- option: n\n", 3, "option 'n' needs a DEFAULT");
	bad("-- analysis: a\n-- title: T\n-- option: 9n 1 doc\n", 3, "'option' needs a NAME");
	bad("-- analysis: a\n-- title: T\n-- gate: g1 doc\n-- gate: g2 doc\n", 4, "a second gate 'g2'");
	bad("-- analysis: a\n-- title: T\n-- title: U\n", 3, "a second 'title' line");
	bad("-- analysis: a\n-- title:\n", 2, "an empty title");
	bad("-- analysis: a\n-- title: T\n-- baseline: maybe\n", 3, "bad baseline");
	bad("-- analysis: a\n-- title: T\n-- kernel-cache: perhaps\n", 3, "bad kernel-cache");
	bad("-- analysis: a\n-- title: T\n-- include: v\n-- include: v\n", 4, "'v' included twice");
	bad("-- analysis: a\n-- title: T\n-- include: a\n", 3, "module 'a' includes itself");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- table: t U\n", 4, "table 't' has no columns");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- column: x int\n-- table: t U\n", 5, "duplicate table 't'");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- column: x int\n-- column: x ns\n", 5,
	    "duplicate column 'x' in table t");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- column: x\n", 4, "column 'x' needs a KIND");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- column: x int \"Open title\n", 4,
	    "column 'x': its title has no closing '\"'");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- column: x-y int\n", 4, "column needs a KEY");
	bad("-- analysis: a\n-- title: T\n-- pivot: _pct pct at x\n", 3, "pivot before any table");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- column: x int\n-- pivot: _pct pct x\n", 5, "bad pivot");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- column: x int\n-- pivot: _pct percent at x\n", 5,
	    "unknown kind 'percent'");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n-- pivot: _pct pct at y\n-- column: x int\n", 4,
	    "pivot of table 't' at 'y', which is none of its columns");
	bad("-- module: p\n-- table: t T\n", 2, "'table' in a prelude");
	bad("-- module: p\n-- section: 2\n", 2, "'section' in a prelude");
	bad("-- module: p\n-- gate: g doc\n", 2, "'gate' in a prelude");
	bad("-- analysis: a\n-- title: T\n-- table: t T\n", 3, "table 't' has no columns");
	return check_done("test_module");
}
