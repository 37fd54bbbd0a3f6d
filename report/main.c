/*
 * gpuprof-report: the whole picture of a session, every section that has data, in one format. The
 * sections are the analyses whose rows give them a place in the report (analysis.h); the formats are
 * the rows of formats[] that gpuprof-report takes (table.h).
 */
#include "analysis.h"
#include "db.h"
#include "outfile.h"
#include "report.h"
#include "rows.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
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

/* --from/--to TIME: an offset from the session's start, or with a leading '-' from its end. */
static int take_offset(const char *opt, const char *arg, int64_t *v, int *has, int *from_end)
{
	*from_end = arg[0] == '-';
	*has = 1;
	if (parse_duration(arg + *from_end, v)) {
		error("--%s needs a time such as 2.5s, 300ms or -1s (ns, us, ms, s), not '%s'", opt, arg);
		return -1;
	}
	return 0;
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

static void usage(FILE *out)
{
	struct buf fmts, dirs, tables, events, exts;
	buf_init(&exts);
	ext_names(&exts);
	buf_init(&events);
	format_names(&events, FMT_REPORT, events_fmt, " or ", NULL);
	buf_init(&fmts);
	buf_init(&dirs);
	buf_init(&tables);
	format_names(&fmts, FMT_REPORT, NULL, " or ", " (default)");
	format_names(&dirs, FMT_REPORT, to_dir, " or ", NULL);
	format_names(&tables, FMT_REPORT, table_filter, " or ", NULL);
	fprintf(out,
		"usage: gpuprof-report session.db [options]\n"
		"\n"
		"  -f, --format FMT     %s\n"
		"  -o, --output PATH    write to PATH instead of standard output; without --format, PATH's extension\n"
		"                       names the format, another extension text:\n"
		"                      %s\n"
		"                       (%s: PATH a directory, a file per table, or PATH%s, the one table of --table)\n"
		"  -t, --table NAME     %s: only the table NAME (on standard output, needed)\n"
		"  -n, --top N          rows per ranked section (default 10)\n"
		"  -s, --session ID     the session (id or session uuid); default the newest\n"
		"  -w, --wide           text: never shorten names\n"
		"  -g, --group NAME=RE  fold names matching the PCRE2 expression RE into NAME (repeatable)\n"
		"  -S, --short          base names: no return type, template arguments or parameters\n"
		"      --baseline BASE  first, compare with BASE.db's newest session: kernels, NVTX ranges, copies\n"

		"      --carbon-intensity G_PER_KWH\n"
		"                       grams of CO2e per kWh of the grid that powered the run: adds\n"
		"                       co2e_g (no default)\n"
		"      --json-schema    print the JSON Schema of --format json (schemas/report.schema.json)\n"
		"  -h, --help           show this help\n"
		"      --version        show the version\n"
		"\n%s: the session's events for Perfetto, TensorBoard or HTA (-o PATH, .gz compressed, - stdout);\n"
		"  --match and --exclude keep memory events and metrics, which have no name of their own:\n"
		"  -m, --match RE       only events whose name matches the PCRE2 expression RE\n"
		"  -x, --exclude RE     leave out events whose name matches RE\n"
		"      --from TIME      only events that end at or after TIME, an offset from the session's\n"
		"                       start such as 2.5s, 300ms, 10us, 500ns; -TIME: before its end\n"
		"      --to TIME        only events that start at or before TIME (as --from)\n"
		"      --rank R         only rank R's processes and GPUs: one rank's trace, as HTA reads a job\n"
		"\nExit status: 0 ok, 2 usage, 3 bad input, 4 system error.\n",
		fmts.s, exts.s, dirs.s, dir_ext(), tables.s, events.s);
	buf_release(&exts);
	buf_release(&fmts);
	buf_release(&dirs);
	buf_release(&tables);
	buf_release(&events);
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "table", required_argument, NULL, 't' },
		{ "top", required_argument, NULL, 'n' },
		{ "session", required_argument, NULL, 's' },
		{ "wide", no_argument, NULL, 'w' },
		{ "group", required_argument, NULL, 'g' },
		{ "short", no_argument, NULL, 'S' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "match", required_argument, NULL, 'm' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "rank", required_argument, NULL, 'R' },
		{ "json-schema", no_argument, NULL, 'J' },
		{ "carbon-intensity", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct analysis_opts o;
	struct render_opts ro = { 0, 0, 0, 0 };
	struct tables ts = { NULL, 0 };
	struct report_doc doc;
	struct trace_opts tro;
	int event_opts = 0;	/* an option of the events formats was given */
	const struct format *fmt = formats;
	const struct report_renderer *r;
	const struct analysis *sections[64];
	const char *session = NULL, *output = NULL, *table = NULL;
	int c, status = EXIT_OK, top = -1, i, nsections, fmt_given = 0, json_schema = 0, has;
	int64_t n;
	sqlite3 *db;

	util_init(argv[0]);
	analysis_opts_init(&o);
	memset(&tro, 0, sizeof(tro));
	while ((c = getopt_long(argc, argv, ":f:o:t:n:s:wg:Shm:x:", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!(fmt = format_find(optarg, FMT_REPORT))) {
				struct buf names;
				buf_init(&names);
				format_names(&names, FMT_REPORT, NULL, ", ", NULL);
				error("unknown format '%s' (%s)", optarg, names.s);
				buf_release(&names);
				return EXIT_USAGE;
			}
			fmt_given = 1;
			break;
		case 'o': output = optarg; break;
		case 't': table = optarg; break;
		case 'n':
			if (parse_i64(optarg, strlen(optarg), &n) || n < 0 || n > 1000000000) {
				error("--top needs a count, not '%s'", optarg);
				return EXIT_USAGE;
			}
			top = (int)n;
			break;
		case 's': session = optarg; break;
		case 'w': ro.wide = 1; break;
		case 'g':
			if (analysis_add_group(&o, optarg))
				return EXIT_USAGE;
			break;
		case 'S': o.short_names = 1; break;
		case 'B': o.baseline = optarg; break;
		case 'm': tro.match = optarg; event_opts = 1; break;
		case 'x': tro.exclude = optarg; event_opts = 1; break;
		case 'F':
			if (take_offset("from", optarg, &tro.from, &tro.has_from, &tro.from_end))
				return EXIT_USAGE;
			event_opts = 1;
			break;
		case 'R':
			if (parse_i64_range(optarg, 0, INT64_MAX, &tro.rank)) {
				error("--rank needs a rank number, not '%s'", optarg);
				return EXIT_USAGE;
			}
			tro.has_rank = event_opts = 1;
			break;
		case 'T':
			if (take_offset("to", optarg, &tro.to, &tro.has_to, &tro.to_end))
				return EXIT_USAGE;
			event_opts = 1;
			break;
		case 'J': json_schema = 1; break;
		case 'C':
			if (opt_carbon_intensity.parse(&o, optarg)) {
				error("--carbon-intensity %s, not '%s'", opt_carbon_intensity.want, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("gpuprof-report %s\n", GPUPROF_VERSION); return EXIT_OK;
		default: return usage_bad_option(c, argv);
		}
	}
	nsections = report_sections(sections, NCOLS(sections));
	if (json_schema)
		return report_schema(stdout, sections, nsections) || fflush(stdout) ? EXIT_SYSTEM : EXIT_OK;
	if (argc == 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (argc - optind != 1)
		return usage_error(argc == optind ? "no database given" : "too many arguments");
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
	if (!(db = db_open(argv[optind], DB_READ)))
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
	return status;
}
