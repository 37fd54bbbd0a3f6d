/*
 * gpuprof-report: the whole picture of a session, every section that has data, in one format.
 */
#include "analysis.h"
#include "db.h"
#include "columns.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Report sections, in order: an analysis and the rows a section shows by default. */
static const struct section {
	const char *analysis;
	int top;
} sections[] = {
	{ "summary", 0 },
	{ "devices", 0 },
	{ "hotspots", 10 },
	{ "classes", 0 },
	{ "stalls", 0 },
	{ "stall_kernels", 10 },
	{ "memcpy", 0 },
	{ "sync", 10 },
	{ "ranges", 10 },
	{ "memory", 0 },
	{ "leaks", 10 },
	{ "growth", 0 },
	{ "idle", 0 },
	{ "gaps", 5 },
	{ "metrics", 0 },
	{ "host", 0 },
	{ "overhead", 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuprof-report session.db [options]\n"
		"\n"
		"  -f, --format FMT     text (default), csv, json, md, html or xlsx\n"
		"  -o, --output PATH    write to PATH instead of standard output (csv: a directory, a file per table)\n"
		"  -t, --table NAME     csv: only the table NAME\n"
		"  -n, --top N          rows per ranked section (default 10)\n"
		"  -s, --session ID     the session (id or session uuid); default the newest\n"
		"  -w, --wide           text: never shorten names\n"
		"  -g, --group NAME=RE  fold names matching the PCRE2 expression RE into NAME (repeatable)\n"
		"  -S, --short          base names: no return type, template arguments or parameters\n"
		"      --baseline BASE  first, compare with BASE.db's newest session: kernels, NVTX ranges, copies\n"
		"  -h, --help           show this help\n"
		"      --version        show the version\n"
		"\nExit status: 0 ok, 2 usage, 3 bad input, 4 system error.\n");
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
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct analysis_opts o = { 0, 0, NULL, NULL, NULL, 0, 0, NULL, 0, 0.05, 10000, 1 };
	struct render_opts ro = { 0, 0 };
	struct tables ts = { NULL, 0 };
	struct report_doc doc;
	const struct report_format *fmt = report_format_find("text");
	const char *session = NULL, *output = NULL, *table = NULL, *baseline = NULL;
	int c, status = EXIT_OK, top = -1;
	size_t i;
	int64_t n;
	FILE *out = stdout;
	sqlite3 *db, *base_db = NULL;

	util_init(argv[0]);
	while ((c = getopt_long(argc, argv, "f:o:t:n:s:wg:Sh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!(fmt = report_format_find(optarg))) {
				struct buf names;
				const struct report_format *f;
				buf_init(&names);
				for (f = report_formats; f->name; f++)
					buf_addf(&names, "%s%s", f == report_formats ? "" : ", ", f->name);
				error("unknown format '%s' (%s)", optarg, names.s);
				buf_release(&names);
				return EXIT_USAGE;
			}
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
		case 'B': baseline = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("gpuprof-report %s\n", GPUPROF_VERSION); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		error(argc == optind ? "no database given" : "too many arguments");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (fmt->needs_path && !output) {
		error("the %s format writes a file: give -o PATH", fmt->name);
		return EXIT_USAGE;
	}
	if (table && !fmt->table_filter) {
		struct buf names;
		const struct report_format *f;
		buf_init(&names);
		for (f = report_formats; f->name; f++)
			if (f->table_filter)
				buf_addf(&names, "%s%s", names.len ? " or " : "", f->name);
		error("--table goes with --format %s", names.s);
		buf_release(&names);
		return EXIT_USAGE;
	}
	ro.width = render_width();
	if (!(db = db_open(argv[optind], DB_READ)))
		return EXIT_DATA;
	if (db_session(db, session, &o.session)) {
		db_close(db);
		return EXIT_DATA;
	}
	if (baseline) {
		if (!(base_db = db_open(baseline, DB_READ)) || db_session(base_db, NULL, &o.base_session)) {
			db_close(base_db);
			db_close(db);
			return EXIT_DATA;
		}
		o.base_db = base_db;
		/* The comparison comes first: it is what a CI reader looks for. */
		o.top = top >= 0 ? top : 20;
		if (analysis_run(db, analysis_find("compare"), &o, &ts))
			status = EXIT_SYSTEM;
	}
	/*
	 * The sections together read every call column and the kernel columns of the format's kernel_cols
	 * (streams only for the HTML timeline).
	 * From rows, one scan of each table for all of them costs less than one per section; from column
	 * chunks, each section loads what it needs when it needs it, which takes as long and holds less
	 * memory at once (505 MB against 598 at 5M kernels).
	 */
	if (status == EXIT_OK && !columns_chunked(db, o.session) &&
	    (!kernels_get(db, o.session, fmt->kernel_cols) ||
	     !calls_get(db, o.session, CC_ALL)))
		status = EXIT_SYSTEM;
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]) && status == EXIT_OK; i++) {
		o.top = top >= 0 ? top : sections[i].top;
		if (analysis_run(db, analysis_find(sections[i].analysis), &o, &ts))
			status = EXIT_SYSTEM;
	}
	/* Checked once the tables are built: --baseline adds the comparison tables before the sections. */
	if (status == EXIT_OK && table && !report_table(&ts, table)) {
		error("no table '%s' in the report", table);
		status = EXIT_USAGE;
	}
	doc.ts = &ts;
	doc.db = db;
	doc.session = o.session;
	doc.ro = &ro;
	doc.table = table;
	if (status == EXIT_OK) {
		int to_file = output && !fmt->own_output;
		if (to_file && !(out = fopen(output, "w"))) {
			error("%s: cannot write: %s", output, strerror(errno));
			status = EXIT_SYSTEM;
		} else if (fmt->render(out, to_file ? NULL : output, &doc) ||
			   (to_file ? fclose(out) : fflush(stdout))) {
			error("%s: write error", output ? output : "standard output");
			status = EXIT_SYSTEM;
		}
	}
	columns_drop(db);
	columns_drop(base_db);
	db_close(db);
	db_close(base_db);
	tables_free(&ts);
	free(o.groups);
	return status;
}
