/*
 * gpuprof-report: the whole picture of a session, every section that has data, in one format. The
 * sections are the analyses whose rows give them a place in the report (analysis.h); the formats are
 * the rows of formats[] that gpuprof-report takes (table.h).
 */
#include "analysis.h"
#include "db.h"
#include "options.h"
#include "outfile.h"
#include "report.h"
#include "rows.h"
#include "user.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The extension of the formats that write a directory, for --help: ".csv" (as many as there are). */
static const char *dir_ext(void)
{
	const struct format *f;
	for (f = formats; f->name; f++)
		if ((f->programs & FMT_REPORT) && f->to_dir)
			return f->ext;
	return "";
}

/* Whether a format writes -o PATH as a directory, for --help. */
static int to_dir(const struct format *f)
{
	return f->to_dir;
}

static int table_filter(const struct format *f)
{
	return f->table_filter;
}

static int events_fmt(const struct format *f)
{
	return f->events;
}

/* The command line's values beyond struct analysis_opts (main's), for the options' callbacks. */
static struct trace_opts tro;
static int event_opts;		/* an option of the events formats was given */

/* --from/--to TIME: an offset from the session's start, or with a leading '-' from its end. */
static int take_offset(const struct opt *opt, const char *arg)
{
	int to = opt->long_name[0] == 't';
	int64_t *v = to ? &tro.to : &tro.from;
	int *from_end = to ? &tro.to_end : &tro.from_end;
	*from_end = arg[0] == '-';
	*(to ? &tro.has_to : &tro.has_from) = 1;
	event_opts = 1;
	if (parse_duration(arg + *from_end, v)) {
		error("--%s needs a time such as 2.5s, 300ms or -1s (ns, us, ms, s), not '%s'", opt->long_name, arg);
		return -1;
	}
	return 0;
}

/* --match, --exclude RE: the events' filters. */
static int take_event_re(const struct opt *opt, const char *arg)
{
	*(const char **)opt->value = arg;
	event_opts = 1;
	return 0;
}

static int take_rank(const struct opt *opt, const char *arg)
{
	(void)opt;
	if (parse_i64_range(arg, 0, INT64_MAX, &tro.rank)) {
		error("--rank needs a rank number, not '%s'", arg);
		return -1;
	}
	tro.has_rank = event_opts = 1;
	return 0;
}

static int take_group(const struct opt *opt, const char *arg)
{
	return analysis_add_group(opt->value, arg);
}

static int take_carbon(const struct opt *opt, const char *arg)
{
	if (opt_carbon_intensity.parse(opt->value, arg)) {
		error("--carbon-intensity %s, not '%s'", opt_carbon_intensity.want, arg);
		return -1;
	}
	return 0;
}

static struct opt options[32];	/* the command line (options_build) */

#define MAX_SQL 32
static const char *sql_files[MAX_SQL];	/* --sql FILE, in order */
static int nsql;

static int take_sql(const struct opt *opt, const char *arg)
{
	(void)opt;
	if (nsql == MAX_SQL) {
		error("--sql: more than %d modules", MAX_SQL);
		return -1;
	}
	sql_files[nsql++] = arg;
	return 0;
}

static int take_help(const struct opt *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	options_usage(stdout, options, 23);
	return OPTIONS_DONE;
}

/* The extensions -o PATH names formats by, for --help: ".txt .csv .json ...", wrapped. */
static void ext_names(struct buf *b)
{
	const struct format *f;
	size_t line = 0;
	for (f = formats; f->name; f++) {
		const char *p = f->ext;
		while ((f->programs & FMT_REPORT) && p && *p) {
			size_t n = strcspn(p, " ");
			char name[32];	/* a file with that extension */
			snprintf(name, sizeof(name), "x%.*s", (int)n, p);
			if (format_for_path(name, FMT_REPORT) == f) {	/* not trace's ".json", which is json's */
				if (b->len - line + n > 60) {
					buf_addstr(b, "\n                      ");
					line = b->len;
				}
				buf_addf(b, " %s", name + 1);
			}
			p = p == f->ext ? f->more_ext : p + n + (p[n] == ' ');
		}
	}
}

/* The analyses with a place in the report, in their order, into v (room for max); their count. */
static int report_sections(const struct analysis **v, int max)
{
	const struct analysis *a;
	int n = 0, i;
	for (a = analyses; a->name && n < max; a++) {
		if (!a->section)
			continue;
		for (i = n; i > 0 && v[i - 1]->section > a->section; i--)
			v[i] = v[i - 1];
		v[i] = a;
		n++;
	}
	return n;
}

/* The names of the sections' tables, those that need a baseline only with one: "summary, devices, ...". */
static void table_names(struct buf *b, const struct analysis **v, int n, int baseline)
{
	int i, k;
	for (i = 0; i < n; i++)
		for (k = 0; k < v[i]->ntables && (baseline || !v[i]->needs_baseline); k++)
			buf_addf(b, "%s%s", b->len ? ", " : "", v[i]->tables[k].name);
}

/*
 * The checks -o PATH and --format make together: the format PATH's extension implies, unless --format
 * named one (given), then whether they agree; a directory format written as one file or on standard
 * output needs --table. Sets *fmt; 0, or -1 with a message (a usage error).
 */
static int output_format(const char *output, const char *table, int given, const struct format **fmt,
			 const struct analysis **v, int n, int baseline)
{
	const struct format *by_ext = output ? format_for_path(output, FMT_REPORT) : NULL;
	struct buf names;
	if (by_ext && !given)
		*fmt = by_ext;
	else if (by_ext && !format_ext_at(*fmt, output))
		return error("--format %s conflicts with -o %s, whose extension '%s' is the %s format's", (*fmt)->name,
			     output, output + strlen(output) - format_ext_at(by_ext, output), by_ext->name);
	if (!(*fmt)->to_dir || table || (output && !format_ext_at(*fmt, output)))
		return 0;
	buf_init(&names);
	table_names(&names, v, n, baseline);
	if (output)
		error("-o %s: a %s file holds one table: add --table NAME (%s), or give -o a directory", output,
		      (*fmt)->ext, names.s);
	else
		error("%s on standard output holds one table: add --table NAME (%s), or -o DIR for a file per table",
		      (*fmt)->name, names.s);
	buf_release(&names);
	return -1;
}

/* Run one section's analysis with its rows by default (top < 0) or top; EXIT_OK or EXIT_SYSTEM. */
static int run_section(sqlite3 *db, const struct analysis *a, struct analysis_opts *o, int top, struct tables *ts)
{
	int64_t gpus = a->multi_gpu ? rows_active_gpus(db, o->session) : 2;
	int i, first = ts->n;
	if (gpus < 0)
		return EXIT_SYSTEM;
	o->top = top >= 0 ? top : a->section_top;
	if (analysis_run(db, a, o, ts))
		return EXIT_SYSTEM;
	/*
	 * The big arrays it freed are kept for reuse within a section (xmap); the next section's are its
	 * own sizes, and memory held across sections adds up to the report's peak (170 MB of 5M kernels').
	 */
	xmap_trim();
	/* A section that compares GPUs says nothing of one: left out then (JSON: an empty array, keys stay). */
	for (i = first; gpus < 2 && i < ts->n; i++)
		ts->v[i]->quiet = 1;
	return EXIT_OK;
}

/* Whether name is one of the report's sections' or of their tables' (a user's section may not be). */
static int shipped_name(const char *name, const struct analysis *const *sections, int n)
{
	int i, k;
	for (i = 0; i < n; i++) {
		if (!strcmp(sections[i]->name, name))
			return 1;
		for (k = 0; k < sections[i]->ntables; k++)
			if (!strcmp(sections[i]->tables[k].name, name))
				return 1;
	}
	return 0;
}

/*
 * The users' modules the report adds, after its own sections, into v (room for max): those of
 * GPUPROF_ANALYSES's directories that declare a section, in its order (none named as a shipped
 * analysis), then --sql FILE's in order. Their count, or -1 after a message (a file that does not load).
 */
static int user_sections(const struct user_module **v, int max, const struct analysis *const *sections,
			 int nsections)
{
	const struct user_module *const *dir;
	int n = 0, i, k, ndir = user_scan(&dir, 1);
	for (i = 0; i < ndir && n < max; i++) {
		if (!dir[i]->m.section)
			continue;
		if (analysis_find(dir[i]->m.name) || shipped_name(dir[i]->m.name, sections, nsections)) {
			warning("%s: left out of the report: '%s' is the name of one of its own sections", dir[i]->path,
				dir[i]->m.name);
			continue;
		}
		for (k = n; k > 0 && v[k - 1]->m.section > dir[i]->m.section; k--)
			v[k] = v[k - 1];
		v[k] = dir[i];
		n++;
	}
	free((void *)dir);
	for (i = 0; i < nsql && n < max; i++) {
		const struct user_module *u = user_load(sql_files[i]);
		char *real;
		int dup = 0;
		if (!u)
			return -1;
		/* Its tables' names are keys (JSON, CSV files, --table): they must not be another section's. */
		if (shipped_name(u->m.name, sections, nsections))
			return error("%s: its section would be called '%s', as one of the report's own is: name "
				     "the analysis otherwise", u->path, u->m.name);
		real = realpath(u->path, NULL);
		for (k = 0; k < n && !dup; k++) {
			char *other;
			if (strcmp(v[k]->m.name, u->m.name))
				continue;
			other = realpath(v[k]->path, NULL);
			dup = real && other && !strcmp(real, other);	/* the same file twice: once */
			free(other);
			if (!dup) {
				free(real);
				return error("%s: its section would be called '%s', as %s's is", u->path, u->m.name,
					     v[k]->path);
			}
		}
		free(real);
		if (!dup)
			v[n++] = u;
	}
	return n;
}

/* What a user's section said while it ran: its messages, to say again after it (struct buf's lines). */
static void keep_line(void *arg, const char *line)
{
	buf_addf(arg, "%s\n", line);
}

/*
 * Run user's module u as a section (its options their defaults, its gate off). When it fails, its
 * tables go and its message says which section was left out; 0, or -1 after that message.
 */
static int run_user_section(sqlite3 *db, const struct user_module *u, struct analysis_opts *o, int top,
			    struct tables *ts)
{
	struct buf said;
	int i, first = ts->n, rc;
	const char *line, *prefix;
	buf_init(&said);
	util_divert_messages(keep_line, &said);
	rc = run_section(db, u->a, o, top, ts);
	util_divert_messages(NULL, NULL);
	prefix = util_progname();
	for (line = said.s; *line; line += strcspn(line, "\n") + 1) {
		size_t len = strcspn(line, "\n"), skip = 0;
		/* "gpuprof-report: error: bad.sql:7: no such column: x" again with the section it cost. */
		if (rc != EXIT_OK && !strncmp(line, prefix, strlen(prefix)) && !strncmp(line + strlen(prefix), ": error: ", 9))
			skip = strlen(prefix) + 9;
		if (skip)
			error("%.*s (section %s left out)", (int)(len - skip), line + skip, u->m.name);
		else
			fprintf(stderr, "%.*s\n", (int)len, line);
	}
	buf_release(&said);
	if (rc == EXIT_OK) {
		user_drop_fail(ts, first);
		for (i = first; o->top > 0 && i < ts->n; i++)	/* whether its SQL reads :top or not */
			table_truncate(ts->v[i], (size_t)o->top);
		return 0;
	}
	while (ts->n > first)
		table_free(ts->v[--ts->n]);
	return -1;
}

/* The --help texts made from the formats' rows, built once (kept until exit). */
static struct buf out_help, table_help, trace_help;

/*
 * The rows of the command line into options[]: o, ro, the format, the session, -o, --table, --baseline's
 * and --json-schema's values into what the pointers name; the events' options into tro.
 */
static void options_build(struct analysis_opts *o, struct render_opts *ro, const struct format **fmt,
			  const char **session, const char **output, const char **table, int *top, int *json_schema)
{
	struct buf exts, names, events;
	buf_init(&exts);
	ext_names(&exts);
	buf_init(&names);
	format_names(&names, FMT_REPORT, to_dir, " or ", NULL);
	buf_init(&out_help);
	buf_addf(&out_help, "write to PATH instead of standard output; without --format, PATH's extension\n"
		 "names the format, another extension text:\n%s\n"
		 "(%s: PATH a directory, a file per table, or PATH%s, the one table of --table)", exts.s, names.s,
		 dir_ext());
	buf_reset(&names);
	format_names(&names, FMT_REPORT, table_filter, " or ", NULL);
	buf_init(&table_help);
	buf_addf(&table_help, "%s: only the table NAME (on standard output, needed)", names.s);
	buf_init(&events);
	format_names(&events, FMT_REPORT, events_fmt, " or ", NULL);
	buf_init(&trace_help);
	buf_addf(&trace_help, "\n%s: the session's events for Perfetto, TensorBoard or HTA (-o PATH, .gz compressed, - "
		 "stdout);", events.s);
	{
		const struct opt rows[] = {
			OPT_TEXT_LINE("usage: gpuprof-report session.db [options]"),
			OPT_TEXT_LINE(""),
			OPT_FORMAT(fmt, FMT_REPORT),
			OPT_STR('o', "output", output, "PATH", out_help.s),
			OPT_STR('t', "table", table, "NAME", table_help.s),
			OPT_CB('n', "top", top, "N", "rows per ranked section (default 10)", opt_count),
			OPT_STR('s', "session", session, "ID", "the session (id or session uuid); default the newest"),
			OPT_BOOL('w', "wide", &ro->wide, "text: never shorten names"),
			OPT_CB('g', "group", o, "NAME=RE",
			       "fold names matching the PCRE2 expression RE into NAME (repeatable)", take_group),
			OPT_BOOL('S', "short", &o->short_names,
				 "base names: no return type, template arguments or parameters"),
			OPT_STR(0, "baseline", &o->baseline, "BASE",
				"first, compare with BASE.db's newest session: kernels, NVTX ranges, copies"),
			OPT_CB(0, "carbon-intensity", o, "G_PER_KWH",
			       "grams of CO2e per kWh of the grid that powered the run: adds\nco2e_g (no default)",
			       take_carbon),
			OPT_CB(0, "sql", NULL, "FILE", "add the analysis module FILE, yours, as a section (repeatable)",
			       take_sql),
			OPT_BOOL(0, "json-schema", json_schema,
				 "print the JSON Schema of --format json (schemas/report.schema.json)"),
			OPT_CB('h', "help", NULL, NULL, "show this help", take_help),
			OPT_VERSION_ROW,
			OPT_TEXT_LINE(trace_help.s),
			OPT_TEXT_LINE("  --match and --exclude keep memory events and metrics, which have no name of their own:"),
			OPT_CB('m', "match", &tro.match, "RE", "only events whose name matches the PCRE2 expression RE",
			       take_event_re),
			OPT_CB('x', "exclude", &tro.exclude, "RE", "leave out events whose name matches RE", take_event_re),
			OPT_CB(0, "from", NULL, "TIME",
			       "only events that end at or after TIME, an offset from the session's\n"
			       "start such as 2.5s, 300ms, 10us, 500ns; -TIME: before its end", take_offset),
			OPT_CB(0, "to", NULL, "TIME", "only events that start at or before TIME (as --from)", take_offset),
			OPT_CB(0, "rank", NULL, "R",
			       "only rank R's processes and GPUs: one rank's trace, as HTA reads a job", take_rank),
			OPT_TEXT_LINE("\nExit status: 0 ok, 2 usage, 3 bad input, 4 system error."),
			OPT_END_ROW
		};
		_Static_assert(sizeof(rows) <= sizeof(options), "options[] holds the rows");
		memcpy(options, rows, sizeof(rows));
	}
	buf_release(&exts);
	buf_release(&names);
	buf_release(&events);
}

int main(int argc, char **argv)
{
	struct analysis_opts o;
	struct render_opts ro = { 0, 0, 0, 0 };
	struct tables ts = { NULL, 0 };
	struct report_doc doc;
	const struct format *fmt = NULL;
	const struct report_renderer *r;
	const struct analysis *sections[64];
	const struct user_module *users[64];	/* users' modules as sections, after sections[] */
	const char *session = NULL, *output = NULL, *table = NULL;
	int status = EXIT_OK, top = -1, i, n, nsections, json_schema = 0, fmt_given, nuser, user_failed = 0, has;
	sqlite3 *db;

	util_init(argv[0]);
	analysis_opts_init(&o);
	options_build(&o, &ro, &fmt, &session, &output, &table, &top, &json_schema);
	if ((n = options_parse(argc, argv, options)) < 0)
		return n == OPTIONS_DONE ? EXIT_OK : EXIT_USAGE;
	nsections = report_sections(sections, NCOLS(sections));
	if ((nuser = user_sections(users, NCOLS(users), sections, nsections)) < 0)
		return EXIT_USAGE;
	if (json_schema)
		return report_schema(stdout, sections, nsections) || fflush(stdout) ? EXIT_SYSTEM : EXIT_OK;
	if (argc == 1) {
		options_usage(stderr, options, 23);
		return EXIT_USAGE;
	}
	if (n != 1)
		return usage_error(n ? "too many arguments" : "no database given");
	fmt_given = fmt != NULL;
	if (!fmt)
		fmt = formats;
	if (output_format(output, table, fmt_given, &fmt, sections, nsections, o.baseline != NULL))
		return EXIT_USAGE;
	if (fmt->needs_path && !output) {
		error("the %s format writes a file: give -o PATH", fmt->name);
		return EXIT_USAGE;
	}
	if (table && !fmt->table_filter) {
		struct buf names;
		buf_init(&names);
		format_names(&names, FMT_REPORT, table_filter, " or ", NULL);
		error("--table goes with --format %s", names.s);
		buf_release(&names);
		return EXIT_USAGE;
	}
	if (event_opts && !fmt->events) {
		struct buf names;
		buf_init(&names);
		format_names(&names, FMT_REPORT, events_fmt, " or ", NULL);
		error("--match, --exclude, --from, --to and --rank go with --format %s", names.s);
		buf_release(&names);
		return EXIT_USAGE;
	}
	if (tro.has_from && tro.has_to && tro.from_end == tro.to_end &&
	    (tro.from_end ? tro.from < tro.to : tro.from > tro.to)) {
		error("the window is empty: --from is after --to");
		return EXIT_USAGE;
	}
	if ((tro.match && db_regex_check(tro.match)) || (tro.exclude && db_regex_check(tro.exclude)))
		return EXIT_USAGE;
	if (fmt->events && (table || o.baseline || top >= 0)) {
		error("--table, --baseline and --top go with the report's tables, not --format %s", fmt->name);
		return EXIT_USAGE;
	}
	ro.width = render_width();
	/* Interrupted, the output is left as it was: every file is written aside and renamed once whole. */
	if (output && strcmp(output, "-")) {
		struct buf what;
		buf_init(&what);
		buf_addf(&what, "%s left as it was", output);
		outfile_catch_signals(what.s);
		buf_release(&what);
	}
	if (!(db = db_open(argv[0], DB_READ)))
		return db_exit_code();
	if (db_session(db, session, &o.session) || (ro.has_origin = db_session_start(db, o.session, &ro.origin)) < 0) {
		db_close(db);
		return db_exit_code();
	}
	doc.ts = &ts;
	doc.db = db;
	doc.session = o.session;
	doc.ro = &ro;
	doc.table = table;
	doc.fmt = fmt;
	doc.trace = &tro;
	doc.user_from = -1;
	if (tro.has_rank && (has = rows_has_rank(db, o.session, tro.rank)) <= 0) {
		db_close(db);
		return has < 0 ? db_exit_code() : EXIT_USAGE;
	}
	/* An events format reads the database itself: no sections. */
	if (fmt->events) {
		status = report_renderers[fmt->id].render(stdout, output, &doc) ? EXIT_SYSTEM : EXIT_OK;
		db_close(db);
		return status;
	}
	/* Its sections read the session's kernels through several tables: decode the chunks once. */
	if (rows_kernel_cache(db)) {
		db_close(db);
		return EXIT_SYSTEM;
	}
	if (o.baseline && analysis_baseline(db, &o)) {
		db_close(o.base_db);
		db_close(db);
		return db_exit_code();
	}
	r = &report_renderers[fmt->id];
	/* With --baseline, the sections that compare with it come first: they are what a CI reader looks for. */
	for (i = 0; o.baseline && i < nsections && status == EXIT_OK; i++)
		if (sections[i]->needs_baseline)
			status = run_section(db, sections[i], &o, top, &ts);
	for (i = 0; i < nsections && status == EXIT_OK; i++)
		if (!sections[i]->needs_baseline)
			status = run_section(db, sections[i], &o, top, &ts);
	/* Then the users' modules: one that fails loses its section only (exit 2 once the report is written). */
	doc.user_from = ts.n;
	for (i = 0; i < nuser && status == EXIT_OK; i++)
		if (run_user_section(db, users[i], &o, top, &ts)) {
			if (db_exit_code() == EXIT_SYSTEM)
				status = EXIT_SYSTEM;	/* the system failed it, not its SQL: the report fails */
			user_failed = 1;
		}
	/* Checked once the tables are built: --baseline adds the comparison tables before the sections. */
	if (status == EXIT_OK && table && !report_table(&ts, table)) {
		error("no table '%s' in the report", table);
		status = EXIT_USAGE;
	}
	if (status == EXIT_OK) {
		/* Else the renderer writes PATH: a directory, or a file of its own, each through an outfile too. */
		int to_file = output && !fmt->needs_path && (!fmt->to_dir || format_ext_at(fmt, output));
		struct outfile of;
		if (to_file && outfile_open(&of, output)) {
			status = EXIT_SYSTEM;
		} else {
			/* A renderer that failed on the database said so; the stream's failure is said here. */
			int failed = r->render(to_file ? of.f : stdout, to_file ? NULL : output, &doc);
			if (to_file && failed)
				outfile_abort(&of);
			else if (to_file)
				failed = outfile_commit(&of);
			else if (ferror(stdout) | fflush(stdout))
				failed = error("standard output: write error");
			if (failed)
				status = EXIT_SYSTEM;
		}
	}
	db_close(db);
	db_close(o.base_db);
	tables_free(&ts);
	free(o.groups);
	return status == EXIT_OK && user_failed ? EXIT_USAGE : status;
}
