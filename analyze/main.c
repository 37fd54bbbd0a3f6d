/*
 * gpuprof-analyze: run one analysis over session.db. What each analysis takes beyond the common options
 * (its own options, a gate, a baseline) comes from its header, in the analyses table; the formats come from
 * the formats table.
 */
#include "analysis.h"
#include "db.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXTRA 32
#define EXTRA_VAL 0x100		/* getopt's value of extra[i] is EXTRA_VAL + i */

/* The options of the analyses' rows (their own and their gates'), each once, in the table's order. */
static const struct analysis_option *extra[MAX_EXTRA];
static int nextra;

static void extra_add(const struct analysis_option *opt)
{
	int i;
	for (i = 0; i < nextra; i++)
		if (extra[i] == opt)
			return;
	if (nextra < MAX_EXTRA)
		extra[nextra++] = opt;
}

static void extra_collect(void)
{
	const struct analysis *a;
	const struct analysis_option *const *p;
	for (a = analyses; a->name; a++) {
		for (p = a->options; p && *p; p++)
			extra_add(*p);
		if (a->gate)
			extra_add(a->gate->option);
	}
}

/* The longest analysis name: the column their help lines up in. */
static int name_width(void)
{
	const struct analysis *a;
	int w = 0;
	for (a = analyses; a->name; a++)
		if ((int)strlen(a->name) > w)
			w = (int)strlen(a->name);
	return w;
}

static void usage(FILE *out)
{
	const struct analysis *a;
	struct buf b;
	int shown[MAX_EXTRA] = { 0 }, i;

	buf_init(&b);
	format_names(&b, FMT_ANALYZE, NULL, " or ", " (default)");
	fprintf(out,
		"usage: gpuprof-analyze ANALYSIS session.db [options]\n"
		"       gpuprof-analyze --list\n"
		"\n"
		"  -f, --format FMT     %s\n"
		"  -n, --top N          keep the first N rows of ranked tables\n"
		"  -m, --match RE       only names matching the PCRE2 expression RE\n"
		"  -x, --exclude RE     leave out names matching RE\n"
		"  -s, --session ID     the session (id or session uuid); default the newest\n"
		"  -w, --wide           text: never shorten names\n"
		"  -g, --group NAME=RE  fold names matching the PCRE2 expression RE into NAME (repeatable)\n"
		"  -S, --short          base names: no return type, template arguments or parameters\n",
		b.s);
	/* Each analysis's own options under its name, each option once. */
	for (a = analyses; a->name; a++) {
		int first = 1;
		for (i = 0; i < nextra; i++) {
			char head[64];
			if (shown[i] || !analysis_takes(a, extra[i]))
				continue;
			if (first)
				fprintf(out, "\n%s%s%s:\n", a->name, a->usage ? " " : "", a->usage ? a->usage : "");
			first = 0;
			shown[i] = 1;
			snprintf(head, sizeof(head), "--%s%s%s", extra[i]->name, extra[i]->arg ? " " : "",
				 extra[i]->arg ? extra[i]->arg : "");
			fprintf(out, "      %-20s  %s\n", head, extra[i]->help);
		}
	}
	fprintf(out,
		"\n"
		"  -l, --list           list the analyses\n"
		"  -h, --help           show this help\n"
		"      --version        show the version\n"
		"\nAnalyses:\n");
	for (a = analyses; a->name; a++)
		fprintf(out, "  %-*s %s\n", name_width(), a->name, a->help);
	buf_reset(&b);
	for (a = analyses; a->name; a++)
		if (a->gate)
			buf_addf(&b, "%s--%s", b.len ? ", " : "", a->gate->option->name);
	fprintf(out, "\nExit status: 0 ok, 1 a gate failed (%s), 2 usage, 3 bad input,\n4 system error.\n", b.s);
	buf_release(&b);
}

/*
 * The message for an option that the analysis asked for does not take, naming every option of the
 * analyses that take it: "--fail-on-leak goes with the leaks analysis".
 */
static void not_taken(const struct analysis_option *opt)
{
	const struct analysis *a;
	const struct analysis_option *list[MAX_EXTRA];
	struct buf b;
	int i, n = 0, owners = 0;
	for (i = 0; i < nextra; i++) {
		if (extra[i]->lenient)
			continue;
		for (a = analyses; a->name; a++)
			if (analysis_takes(a, opt) && analysis_takes(a, extra[i]))
				break;
		if (a->name)
			list[n++] = extra[i];
	}
	buf_init(&b);
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s--%s", i ? (i == n - 1 ? " and " : ", ") : "", list[i]->name);
	buf_addstr(&b, n > 1 ? " go with the " : " goes with the ");
	for (a = analyses; a->name; a++)
		if (analysis_takes(a, opt))
			buf_addf(&b, "%s%s", owners++ ? " or " : "", a->name);
	buf_addstr(&b, owners > 1 ? " analyses" : " analysis");
	error("%s", b.s);
	buf_release(&b);
}

/*
 * Print the tables in format f. Where f is keyed (JSON), one table is itself and several are one object
 * of them all; otherwise the tables after the first that have no rows are left out.
 */
static int print_tables(const struct tables *ts, const struct format *f, const struct render_opts *ro)
{
	int i, rc = 0, keyed = f->keyed && ts->n > 1;
	if (keyed)
		fputs("{", stdout);
	for (i = 0; i < ts->n && !rc; i++) {
		const struct table *t = ts->v[i];
		if (keyed) {
			printf("%s\"%s\": ", i ? f->sep : "\n", t->name);
		} else if (i) {
			if (!t->nrows)
				continue;
			fputs(f->sep, stdout);
		}
		rc = f->render(stdout, t, ro);
	}
	if (f->keyed)	/* its tables end without a newline */
		fputs(keyed ? "\n}\n" : "\n", stdout);
	if (fflush(stdout) || rc)
		return error("write error on standard output");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option common[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "top", required_argument, NULL, 'n' },
		{ "match", required_argument, NULL, 'm' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "session", required_argument, NULL, 's' },
		{ "wide", no_argument, NULL, 'w' },
		{ "group", required_argument, NULL, 'g' },
		{ "short", no_argument, NULL, 'S' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	struct option longopts[sizeof(common) / sizeof(common[0]) + MAX_EXTRA + 1];
	struct analysis_opts o;
	struct render_opts ro = { 0, 0, 0, 0 };
	struct tables ts = { NULL, 0 };
	const struct analysis *a;
	const struct format *fmt = formats;
	const char *session = NULL;
	sqlite3 *db;
	int c, i, status, failed = 0, given[MAX_EXTRA] = { 0 }, gated = 0;
	int shown = 0;		/* with a gate: --top, applied here rather than by the analysis */
	int64_t top;
	char gate[600] = "";	/* the gate's line for stderr, when there is a gate */

	util_init(argv[0]);
	analysis_opts_init(&o);
	extra_collect();
	memcpy(longopts, common, sizeof(common));
	for (i = 0; i < nextra; i++)
		longopts[NCOLS(common) + i] = (struct option){ extra[i]->name, extra[i]->has_arg, NULL, EXTRA_VAL + i };
	memset(&longopts[NCOLS(common) + nextra], 0, sizeof(longopts[0]));
	while ((c = getopt_long(argc, argv, ":f:n:m:x:s:wlg:Sh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!(fmt = format_find(optarg, FMT_ANALYZE))) {
				struct buf names;
				buf_init(&names);
				format_names(&names, FMT_ANALYZE, NULL, ", ", NULL);
				error("unknown format '%s' (%s)", optarg, names.s);
				buf_release(&names);
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
		case 'l':
			for (a = analyses; a->name; a++)
				printf("%-*s %s\n", name_width(), a->name, a->help);
			return EXIT_OK;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("gpuprof-analyze %s\n", GPUPROF_VERSION); return EXIT_OK;
		default:
			if (c < EXTRA_VAL || c >= EXTRA_VAL + nextra)
				return usage_bad_option(c, argv);
			i = c - EXTRA_VAL;
			if (extra[i]->parse(&o, optarg)) {
				error("--%s %s, not '%s'", extra[i]->name, extra[i]->want, optarg);
				return EXIT_USAGE;
			}
			/* "--fail-on-leak 1000000" too, not only "--fail-on-leak=1000000". */
			if (extra[i]->has_arg == optional_argument && !optarg && optind < argc &&
			    !extra[i]->parse(&o, argv[optind]))
				optind++;
			given[i] = 1;
			break;
		}
	}
	if (argc == 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (argc - optind != 2)
		return usage_error(argc - optind < 2 ? "need an analysis and a database" : "too many arguments");
	if (!(a = analysis_find(argv[optind]))) {
		error("no analysis '%s' (gpuprof-analyze --list names them)", argv[optind]);
		return EXIT_USAGE;
	}
	for (i = 0; i < nextra; i++)
		if (given[i] && !extra[i]->lenient && !analysis_takes(a, extra[i])) {
			not_taken(extra[i]);
			return EXIT_USAGE;
		}
	if ((o.match && db_regex_check(o.match)) || (o.exclude && db_regex_check(o.exclude)))
		return EXIT_USAGE;
	ro.width = render_width();
	if (!(db = db_open(argv[optind + 1], DB_READ)))
		return db_exit_code();
	if (db_session(db, session, &o.session) || (ro.has_origin = db_session_start(db, o.session, &ro.origin)) < 0 ||
	    (a->needs_baseline && analysis_baseline(db, &o))) {
		db_close(o.base_db);
		db_close(db);
		return db_exit_code();
	}
	/*
	 * A gate judges every row, so with one the analysis runs once with all rows and its tables are cut by
	 * --top only for display (leaks and compare keep the first N rows of each table, as a cut here does).
	 */
	for (i = 0; i < nextra; i++)
		if (given[i] && a->gate && a->gate->option == extra[i])
			gated = 1;
	if (gated) {
		shown = o.top;
		o.top = 0;
	}
	/* An analysis that reads the kernels through several tables decodes them once (as the report does). */
	if (a->kernel_cache && db_exec(db, "SELECT gpuprof_kernel_cache(1)"))
		status = EXIT_SYSTEM;
	else
		status = analysis_run(db, a, &o, &ts) ? EXIT_SYSTEM : EXIT_OK;
	if (status == EXIT_OK && gated)
		failed = a->gate->judge(&ts, &o, gate, sizeof(gate));
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
	if (o.base_db)
		db_close(o.base_db);
	db_close(db);
	free(o.groups);
	return status;
}
