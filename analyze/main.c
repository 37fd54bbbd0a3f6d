/*
 * gpuprof-analyze: run one analysis over session.db.
 */
#include "analysis.h"
#include "db.h"
#include "util.h"

#include <getopt.h>
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
		"      --fail-on-leak [BYTES]  with leaks: exit 1 when more than BYTES (default 0) are unfreed\n"
		"  -l, --list           list the analyses\n"
		"  -h, --help           show this help\n"
		"      --version        show the version\n"
		"\nAnalyses:\n");
	for (a = analyses; a->name; a++)
		fprintf(out, "  %-10s %s\n", a->name, a->help);
	fprintf(out, "\nExit status: 0 ok, 2 usage, 3 bad input, 4 system error.\n");
}

/* Print the tables in one format. With JSON, one table is an array of rows; several, an object of them. */
static int print_tables(const struct tables *ts, int fmt, const struct render_opts *ro)
{
	int i, rc = 0;
	if (fmt == FMT_JSON && ts->n > 1)
		fputs("{", stdout);
	for (i = 0; i < ts->n && !rc; i++) {
		const struct table *t = ts->v[i];
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
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct analysis_opts o = { 0, 0, NULL, NULL, NULL, 0, 0 };
	struct render_opts ro = { 0, 0 };
	struct tables ts = { NULL, 0 };
	const struct analysis *a;
	const char *session = NULL;
	sqlite3 *db;
	int c, fmt = FMT_TEXT, status;
	int64_t top, fail_on_leak = -1;

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
	if ((o.match && db_regex_check(o.match)) || (o.exclude && db_regex_check(o.exclude)))
		return EXIT_USAGE;
	ro.width = render_width();
	if (!(db = db_open(argv[optind + 1], DB_READ)))
		return EXIT_DATA;
	if (db_session(db, session, &o.session)) {
		db_close(db);
		return EXIT_DATA;
	}
	status = analysis_run(db, a, &o, &ts) ? EXIT_SYSTEM : EXIT_OK;
	if (status == EXIT_OK && print_tables(&ts, fmt, &ro))
		status = EXIT_SYSTEM;
	if (status == EXIT_OK && fail_on_leak >= 0) {
		/* The gate: unfreed bytes over the limit. The table is cut by --top only for display. */
		struct tables all = { NULL, 0 };
		int64_t leaked = 0;
		size_t r;
		o.top = 0;
		if (analysis_run(db, a, &o, &all))
			status = EXIT_SYSTEM;
		for (r = 0; status == EXIT_OK && r < all.v[0]->nrows; r++)
			leaked += table_cell(all.v[0], r, table_find_col(all.v[0], "bytes"))->i;
		tables_free(&all);
		if (status == EXIT_OK) {
			char amount[32];
			fmt_bytes(amount, sizeof(amount), (double)leaked);
			fprintf(stderr, "gpuprof-analyze: leaks: %s unfreed (%lld bytes), limit %lld bytes: %s\n", amount,
				(long long)leaked, (long long)fail_on_leak, leaked > fail_on_leak ? "FAIL" : "ok");
			if (leaked > fail_on_leak)
				status = EXIT_GATE;
		}
	}
	tables_free(&ts);
	db_close(db);
	free(o.groups);
	return status;
}
