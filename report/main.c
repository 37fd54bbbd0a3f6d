/*
 * gpuprof-report: the whole picture of a session, every section that has data, in one format.
 */
#include "analysis.h"
#include "db.h"
#include "util.h"

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
	{ "memcpy", 0 },
	{ "sync", 10 },
	{ "ranges", 10 },
	{ "memory", 0 },
	{ "leaks", 10 },
	{ "growth", 0 },
	{ "idle", 0 },
	{ "gaps", 5 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gpuprof-report session.db [options]\n"
		"\n"
		"  -f, --format FMT     text (default), csv, json or md\n"
		"  -o, --output PATH    write to PATH instead of standard output\n"
		"  -n, --top N          rows per ranked section (default 10)\n"
		"  -s, --session ID     the session (id or session uuid); default the newest\n"
		"  -w, --wide           text: never shorten names\n"
		"  -g, --group NAME=RE  fold names matching the PCRE2 expression RE into NAME (repeatable)\n"
		"  -S, --short          base names: no return type, template arguments or parameters\n"
		"  -h, --help           show this help\n"
		"      --version        show the version\n"
		"\nExit status: 0 ok, 2 usage, 3 bad input, 4 system error.\n");
}

static int render(FILE *out, const struct tables *ts, int fmt, const struct render_opts *ro)
{
	int i, rc = 0;
	if (fmt == FMT_JSON)
		fprintf(out, "{\"gpuprof_report\": 1, \"version\": \"%s\",\n\"tables\": {", GPUPROF_VERSION);
	for (i = 0; i < ts->n && !rc; i++) {
		if (!ts->v[i]->nrows && i > 0 && fmt != FMT_JSON)
			continue;	/* a section without data (JSON keeps every table, empty, for stable keys) */
		switch (fmt) {
		case FMT_TEXT:
			if (i)
				fputc('\n', out);
			rc = render_text(out, ts->v[i], ro);
			break;
		case FMT_CSV:
			if (i)
				fputs("\r\n", out);
			rc = render_csv(out, ts->v[i]);
			break;
		case FMT_MD:
			rc = render_md(out, ts->v[i]);
			break;
		case FMT_JSON:
			fprintf(out, "%s\"%s\": ", i ? ",\n" : "\n", ts->v[i]->name);
			rc = render_json(out, ts->v[i]);
			break;
		}
	}
	if (fmt == FMT_JSON)
		fputs("\n}}\n", out);
	return rc || ferror(out) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, 'n' },
		{ "session", required_argument, NULL, 's' },
		{ "wide", no_argument, NULL, 'w' },
		{ "group", required_argument, NULL, 'g' },
		{ "short", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct analysis_opts o = { 0, 0, NULL, NULL, NULL, 0, 0 };
	struct render_opts ro = { 0, 0 };
	struct tables ts = { NULL, 0 };
	const char *session = NULL, *output = NULL;
	int c, fmt = FMT_TEXT, status = EXIT_OK, top = -1;
	size_t i;
	int64_t n;
	FILE *out = stdout;
	sqlite3 *db;

	util_init(argv[0]);
	while ((c = getopt_long(argc, argv, "f:o:n:s:wg:Sh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if ((fmt = fmt_parse(optarg)) < 0) {
				error("unknown format '%s' (text, csv, json, md)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o': output = optarg; break;
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
	ro.width = render_width();
	if (!(db = db_open(argv[optind], DB_READ)))
		return EXIT_DATA;
	if (db_session(db, session, &o.session)) {
		db_close(db);
		return EXIT_DATA;
	}
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]) && status == EXIT_OK; i++) {
		o.top = top >= 0 ? top : sections[i].top;
		if (analysis_run(db, analysis_find(sections[i].analysis), &o, &ts))
			status = EXIT_SYSTEM;
	}
	db_close(db);
	if (status == EXIT_OK) {
		if (output && !(out = fopen(output, "w"))) {
			error("%s: cannot write: %m", output);
			status = EXIT_SYSTEM;
		} else if (render(out, &ts, fmt, &ro) || (out != stdout ? fclose(out) : fflush(out))) {
			error("%s: write error", output ? output : "standard output");
			status = EXIT_SYSTEM;
		}
	}
	tables_free(&ts);
	free(o.groups);
	return status;
}
