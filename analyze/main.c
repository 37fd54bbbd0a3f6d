/*
 * gpuprof-analyze: run one analysis over session.db.
 */
#include "analysis.h"
#include "columns.h"
#include "db.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	const struct analysis *a;
	fprintf(out,
		"usage: gpuprof-analyze ANALYSIS session.db [options]\n"
		"       gpuprof-analyze --list\n"
		"\n"
		"  -f, --format FMT     text (default), csv, json or md\n"
		"  -n, --top N          keep the first N rows of ranked tables\n"
		"  -m, --match RE       only names matching the PCRE2 expression RE\n"
		"  -x, --exclude RE     leave out names matching RE\n"
		"  -s, --session ID     the session (id or session uuid); default the newest\n"
		"  -w, --wide           text: never shorten names\n"
		"  -g, --group NAME=RE  fold names matching the PCRE2 expression RE into NAME (repeatable)\n"
		"  -S, --short          base names: no return type, template arguments or parameters\n"
		"      --fail-on-leak [BYTES]  with leaks: exit 1 when more than BYTES (default 0) are unfreed,\n"
		"                            or when a device's events have no addresses (leaks unknown)\n"
		"\ncompare NEW.db (and trend): three tables, kernels by name, NVTX ranges by path and\n"
		"copies by kind (each as hotspots, ranges and memcpy show them):\n"
		"      --baseline BASE.db    the baseline database (default NEW.db itself)\n"
		"      --base-session ID     the baseline session; default the newest of BASE.db, or with one\n"
		"                            database the session before the new one\n"
		"      --threshold PCT       relative change of the median that counts (default 5%%; trend: of\n"
		"                            the total against the median of earlier sessions)\n"
		"      --min-delta TIME      absolute change of the median that counts, ns/us/ms/s (default 10us)\n"
		"      --min-calls N         groups with fewer calls on both sides are unchanged (default 1)\n"
		"      --fail-on-regression  exit 1 when any kernel, range or copy kind regressed; one-line\n"
		"                            verdict on stderr\n"
		"\n"
		"  -l, --list           list the analyses\n"
		"  -h, --help           show this help\n"
		"      --version        show the version\n"
		"\nAnalyses:\n");
	for (a = analyses; a->name; a++)
		fprintf(out, "  %-10s %s\n", a->name, a->help);
	fprintf(out, "\nExit status: 0 ok, 1 a gate failed (--fail-on-regression, --fail-on-leak), 2 usage, 3 bad input,\n"
		     "4 system error.\n");
}

/* "5%", "5" or "2.5%" as a fraction (0.05); -1 when malformed. */
static double parse_threshold(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || v < 0 || !isfinite(v) || (*end && strcmp(end, "%")))
		return -1;
	return v / 100.0;
}

/* "10us", "1.5ms", "2s", "500ns" or "500" (ns) as nanoseconds into *ns; -1 when malformed. */
static int parse_duration(const char *s, int64_t *ns)
{
	static const struct { const char *suffix; double scale; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(s, &end);
	size_t i;
	if (end == s || v < 0 || !isfinite(v))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix) && v * units[i].scale < 9e18) {
			*ns = (int64_t)llround(v * units[i].scale);
			return 0;
		}
	return -1;
}

/*
 * Print the tables in one format. With JSON, one table is an array of rows; several, an object of them
 * all (stable keys). Text, CSV and Markdown leave out the tables after the first that have no rows.
 */
static int print_tables(const struct tables *ts, int fmt, const struct render_opts *ro)
{
	int i, rc = 0;
	if (fmt == FMT_JSON && ts->n > 1)
		fputs("{", stdout);
	for (i = 0; i < ts->n && !rc; i++) {
		const struct table *t = ts->v[i];
		if (fmt != FMT_JSON && i && !t->nrows)
			continue;
		switch (fmt) {
		case FMT_TEXT:
			if (i)
				fputc('\n', stdout);
			rc = render_text(stdout, t, ro);
			break;
		case FMT_CSV:
			if (i)
				fputs("\r\n", stdout);
			rc = render_csv(stdout, t);
			break;
		case FMT_MD:
			rc = render_md(stdout, t);
			break;
		case FMT_JSON:
			if (ts->n > 1)
				printf("%s\"%s\": ", i ? ",\n" : "\n", t->name);
			rc = render_json(stdout, t);
			break;
		}
	}
	if (fmt == FMT_JSON)
		fputs(ts->n > 1 ? "\n}\n" : "\n", stdout);
	if (fflush(stdout) || rc)
		return error("write error on standard output");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "top", required_argument, NULL, 'n' },
		{ "match", required_argument, NULL, 'm' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "session", required_argument, NULL, 's' },
		{ "wide", no_argument, NULL, 'w' },
		{ "group", required_argument, NULL, 'g' },
		{ "short", no_argument, NULL, 'S' },
		{ "fail-on-leak", optional_argument, NULL, 'F' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "base-session", required_argument, NULL, 'b' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "min-delta", required_argument, NULL, 'D' },
		{ "min-calls", required_argument, NULL, 'C' },
		{ "fail-on-regression", no_argument, NULL, 'R' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct analysis_opts o = { 0, 0, NULL, NULL, NULL, 0, 0, NULL, 0, 0.05, 10000, 1 };
	struct render_opts ro = { 0, 0 };
	struct tables ts = { NULL, 0 };
	const struct analysis *a;
	const char *session = NULL, *baseline = NULL, *base_session = NULL;
	sqlite3 *db, *base_db = NULL;
	int c, fmt = FMT_TEXT, status, fail_on_regression = 0, compare_opts = 0, failed = 0;
	int shown = 0;		/* with a gate: --top, applied here rather than by the analysis */
	int64_t top, fail_on_leak = -1;
	char gate[600] = "";	/* the gate's line for stderr, when there is a gate */

	util_init(argv[0]);
	while ((c = getopt_long(argc, argv, "f:n:m:x:s:wlg:Sh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if ((fmt = fmt_parse(optarg)) < 0) {
				error("unknown format '%s' (text, csv, json, md)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			if (parse_i64(optarg, strlen(optarg), &top) || top < 0 || top > 1000000000) {
				error("--top needs a count, not '%s'", optarg);
				return EXIT_USAGE;
			}
			o.top = (int)top;
			break;
		case 'm': o.match = optarg; break;
		case 'x': o.exclude = optarg; break;
		case 's': session = optarg; break;
		case 'w': ro.wide = 1; break;
		case 'g':
			if (analysis_add_group(&o, optarg))
				return EXIT_USAGE;
			break;
		case 'S': o.short_names = 1; break;
		case 'F':
			fail_on_leak = 0;
			if (optarg && (parse_i64(optarg, strlen(optarg), &fail_on_leak) || fail_on_leak < 0)) {
				error("--fail-on-leak takes a number of bytes, not '%s'", optarg);
				return EXIT_USAGE;
			}
			/* "--fail-on-leak 1000000" too, not only "--fail-on-leak=1000000". */
			if (!optarg && optind < argc && !parse_i64(argv[optind], strlen(argv[optind]), &top) && top >= 0) {
				fail_on_leak = top;
				optind++;
			}
			break;
		case 'B': baseline = optarg; compare_opts = 1; break;
		case 'b': base_session = optarg; compare_opts = 1; break;
		case 'T':
			if ((o.threshold = parse_threshold(optarg)) < 0) {
				error("--threshold needs a percentage such as 5%%, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'D':
			if (parse_duration(optarg, &o.min_delta)) {
				error("--min-delta needs a time such as 10us (ns, us, ms, s), not '%s'", optarg);
				return EXIT_USAGE;
			}
			compare_opts = 1;
			break;
		case 'C':
			if (parse_i64(optarg, strlen(optarg), &o.min_calls) || o.min_calls < 0) {
				error("--min-calls needs a count, not '%s'", optarg);
				return EXIT_USAGE;
			}
			compare_opts = 1;
			break;
		case 'R': fail_on_regression = 1; compare_opts = 1; break;
		case 'l':
			for (a = analyses; a->name; a++)
				printf("%-10s %s\n", a->name, a->help);
			return EXIT_OK;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("gpuprof-analyze %s\n", GPUPROF_VERSION); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		error(argc - optind < 2 ? "need an analysis and a database" : "too many arguments");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!(a = analysis_find(argv[optind]))) {
		error("no analysis '%s' (gpuprof-analyze --list names them)", argv[optind]);
		return EXIT_USAGE;
	}
	if (fail_on_leak >= 0 && strcmp(a->name, "leaks")) {
		error("--fail-on-leak goes with the leaks analysis");
		return EXIT_USAGE;
	}
	if (compare_opts && strcmp(a->name, "compare")) {
		error("--baseline, --base-session, --min-delta, --min-calls and --fail-on-regression go with compare");
		return EXIT_USAGE;
	}
	if ((o.match && db_regex_check(o.match)) || (o.exclude && db_regex_check(o.exclude)))
		return EXIT_USAGE;
	ro.width = render_width();
	if (!(db = db_open(argv[optind + 1], DB_READ)))
		return EXIT_DATA;
	if (db_session(db, session, &o.session)) {
		db_close(db);
		return EXIT_DATA;
	}
	if (!strcmp(a->name, "compare")) {
		int bad;
		if (baseline) {
			if (!(base_db = db_open(baseline, DB_READ))) {
				db_close(db);
				return EXIT_DATA;
			}
			bad = db_session(base_db, base_session, &o.base_session);
		} else if (base_session) {
			bad = db_session(db, base_session, &o.base_session);
		} else {
			bad = compare_default_base(db, o.session, &o.base_session);
		}
		if (bad) {
			db_close(base_db);
			db_close(db);
			return EXIT_DATA;
		}
		o.base_db = base_db;
	}
	/*
	 * A gate judges every row, so with one the analysis runs once with all rows and its tables are cut by
	 * --top only for display (leaks and compare keep the first N rows of each table, as a cut here does).
	 */
	if (fail_on_leak >= 0 || fail_on_regression) {
		shown = o.top;
		o.top = 0;
	}
	status = analysis_run(db, a, &o, &ts) ? EXIT_SYSTEM : EXIT_OK;
	if (status == EXIT_OK && fail_on_leak >= 0) {
		/*
		 * Unfreed bytes over the limit. A device whose events have no addresses leaked an unknown amount:
		 * the gate cannot pass on it, and says so.
		 */
		int col = table_find_col(ts.v[0], "bytes"), scol = table_find_col(ts.v[0], "status");
		int64_t leaked = 0, unknown = 0;
		char amount[32], why[96] = "";
		size_t r;
		for (r = 0; r < ts.v[0]->nrows; r++) {
			const struct cell *st = table_cell(ts.v[0], r, scol);
			if (!st->null && !strncmp(st->s, "unknown", 7))
				unknown++;
			else
				leaked += table_cell(ts.v[0], r, col)->i;
		}
		fmt_bytes(amount, sizeof(amount), (double)leaked);
		failed = unknown || leaked > fail_on_leak;
		if (unknown)
			snprintf(why, sizeof(why), "unknown on %lld device%s without addresses; ", (long long)unknown,
				 unknown > 1 ? "s" : "");
		snprintf(gate, sizeof(gate), "leaks: %s%s unfreed (%lld bytes)%s, limit %lld bytes: %s", why, amount,
			 (long long)leaked, unknown ? " on the others" : "", (long long)fail_on_leak,
			 failed ? "FAIL" : "ok");
	}
	if (status == EXIT_OK && fail_on_regression) {
		/* Any regression past the thresholds. */
		char line[512];
		failed = compare_verdict(&ts, line, sizeof(line)) > 0;
		snprintf(gate, sizeof(gate), "compare: %s", line);
	}
	for (c = 0; status == EXIT_OK && shown > 0 && c < ts.n; c++)
		table_truncate(ts.v[c], (size_t)shown);
	if (status == EXIT_OK && print_tables(&ts, fmt, &ro))
		status = EXIT_SYSTEM;
	if (status == EXIT_OK && *gate) {
		fprintf(stderr, "gpuprof-analyze: %s\n", gate);
		if (failed)
			status = EXIT_GATE;
	}
	tables_free(&ts);
	columns_drop(db);
	if (base_db) {
		columns_drop(base_db);
		db_close(base_db);
	}
	db_close(db);
	free(o.groups);
	return status;
}
