/*
 * gpuprof-analyze: run one analysis over session.db. What each analysis takes beyond the common options
 * (its own options, a gate, a baseline) comes from its row in the analyses table; the formats come from
 * the formats table.
 */
#include "analysis.h"
#include "db.h"
#include "options.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXTRA 32

/* The options of the analyses' rows (their own and their gates'), each once, in the table's order. */
static const struct analysis_option *extra[MAX_EXTRA];
static int nextra;
static int given[MAX_EXTRA];	/* extra[i] was given */

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

/* The command line: the rows of the options every analysis takes, then the analyses' own (extra). */
static struct opt head[16], own[MAX_EXTRA + 1], tail[8], options[4];

static void usage(FILE *out)
{
	const struct analysis *a;
	struct buf b;
	int shown[MAX_EXTRA] = { 0 }, i;

	options_usage(out, head, 23);
	/* Each analysis's own options under its name, each option once. */
	for (a = analyses; a->name; a++) {
		int first = 1;
		for (i = 0; i < nextra; i++) {
			if (shown[i] || !analysis_takes(a, extra[i]))
				continue;
			if (first)
				fprintf(out, "\n%s%s%s:\n", a->name, a->usage ? " " : "", a->usage ? a->usage : "");
			first = 0;
			shown[i] = 1;
			options_usage_row(out, &own[i], 28);
		}
	}
	options_usage(out, tail, 23);
	for (a = analyses; a->name; a++)
		fprintf(out, "  %-*s %s\n", name_width(), a->name, a->help);
	buf_init(&b);
	for (a = analyses; a->name; a++)
		if (a->gate)
			buf_addf(&b, "%s--%s", b.len ? ", " : "", a->gate->option->name);
	fprintf(out, "\nExit status: 0 ok, 1 a gate failed (%s), 2 usage, 3 bad input,\n4 system error.\n", b.s);
	buf_release(&b);
}

static int take_help(const struct opt *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	usage(stdout);
	return OPTIONS_DONE;
}

static int take_list(const struct opt *opt, const char *arg)
{
	const struct analysis *a;
	(void)opt;
	(void)arg;
	for (a = analyses; a->name; a++)
		printf("%-*s %s\n", name_width(), a->name, a->help);
	return OPTIONS_DONE;
}

static int take_group(const struct opt *opt, const char *arg)
{
	return analysis_add_group(opt->value, arg);
}

/* An analysis's own option extra[opt->defval] into the analysis_opts at opt->value. */
static int take_extra(const struct opt *opt, const char *arg)
{
	const struct analysis_option *x = extra[opt->defval];
	if (x->parse(opt->value, arg)) {
		if (!(opt->flags & OPT_TRYING))
			error("--%s %s, not '%s'", x->name, x->want, arg);
		return -1;
	}
	given[opt->defval] = 1;
	return 0;
}

/* The rows of the command line into head, own, tail and options; o, ro, fmt, session take the values. */
static void options_build(struct analysis_opts *o, struct render_opts *ro, const struct format **fmt,
			  const char **session)
{
	const struct opt h[] = {
		OPT_TEXT_LINE("usage: gpuprof-analyze ANALYSIS session.db [options]"),
		OPT_TEXT_LINE("       gpuprof-analyze --list"),
		OPT_TEXT_LINE(""),
		OPT_FORMAT(fmt, FMT_ANALYZE),
		OPT_CB('n', "top", &o->top, "N", "keep the first N rows of ranked tables", opt_count),
		OPT_STR('m', "match", &o->match, "RE", "only names matching the PCRE2 expression RE"),
		OPT_STR('x', "exclude", &o->exclude, "RE", "leave out names matching RE"),
		OPT_STR('s', "session", session, "ID", "the session (id or session uuid); default the newest"),
		OPT_BOOL('w', "wide", &ro->wide, "text: never shorten names"),
		OPT_CB('g', "group", o, "NAME=RE", "fold names matching the PCRE2 expression RE into NAME (repeatable)",
		       take_group),
		OPT_BOOL('S', "short", &o->short_names, "base names: no return type, template arguments or parameters"),
		OPT_END_ROW
	};
	const struct opt t[] = {
		OPT_TEXT_LINE(""),
		OPT_CB('l', "list", NULL, NULL, "list the analyses", take_list),
		OPT_CB('h', "help", NULL, NULL, "show this help", take_help),
		OPT_VERSION_ROW,
		OPT_TEXT_LINE("\nAnalyses:"),
		OPT_END_ROW
	};
	int i;
	_Static_assert(sizeof(h) <= sizeof(head) && sizeof(t) <= sizeof(tail), "head[] and tail[] hold the rows");
	memcpy(head, h, sizeof(h));
	memcpy(tail, t, sizeof(t));
	extra_collect();
	for (i = 0; i < nextra; i++) {
		const struct analysis_option *x = extra[i];
		own[i] = (struct opt){ OPT_CALLBACK, 0, x->name, o, x->arg, x->help, OPT_HIDDEN | OPT_INLINE, take_extra, i };
		if (x->has_arg == optional_argument)
			own[i].flags |= OPT_OPTARG | OPT_NEXT_WORD;
		else if (x->has_arg == no_argument)
			own[i].argh = NULL;
	}
	own[nextra] = (struct opt)OPT_END_ROW;
	options[0] = (struct opt)OPT_SUBTABLE(head);
	options[1] = (struct opt)OPT_SUBTABLE(own);
	options[2] = (struct opt)OPT_SUBTABLE(tail);
	options[3] = (struct opt)OPT_END_ROW;
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
	struct analysis_opts o;
	struct render_opts ro = { 0, 0, 0, 0 };
	struct tables ts = { NULL, 0 };
	const struct analysis *a;
	const struct format *fmt = NULL;
	const char *session = NULL;
	sqlite3 *db;
	int c, i, n, status, failed = 0, gated = 0;
	int shown = 0;		/* with a gate: --top, applied here rather than by the analysis */
	char gate[600] = "";	/* the gate's line for stderr, when there is a gate */

	util_init(argv[0]);
	analysis_opts_init(&o);
	options_build(&o, &ro, &fmt, &session);
	if ((n = options_parse(argc, argv, options)) < 0)
		return n == OPTIONS_DONE ? EXIT_OK : EXIT_USAGE;
	if (!fmt)
		fmt = formats;
	if (argc == 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (n != 2)
		return usage_error(n < 2 ? "need an analysis and a database" : "too many arguments");
	if (!(a = analysis_find(argv[0]))) {
		error("no analysis '%s' (gpuprof-analyze --list names them)", argv[0]);
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
	if (!(db = db_open(argv[1], DB_READ)))
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
