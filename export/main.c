/*
 * gpuprof-export: sessions of a session.db as partitioned files a warehouse bulk-loads (export.h).
 */
#include "export.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	const struct export_target *t;
	fprintf(out,
		"usage: gpuprof-export DB --to TARGET -o DIR [--session ID]\n"
		"\n"
		"Write every table of the sessions of DB as gzipped parts a warehouse bulk-loads, one per\n"
		"table and session: DIR/TABLE/session=UUID/part-0.ndjson.gz (or .csv.gz). Rows carry their\n"
		"session's uuid in column session, not the local number, so exports of many hosts load into\n"
		"one warehouse; names stay string ids, exported with their session in table strings.\n"
		"\n"
		"  -t, --to TARGET     what to write (required), below\n"
		"  -o, --output DIR    the export directory (required; made if missing)\n"
		"      --session ID    only this session (its id or uuid; default: every session)\n"
		"  -q, --quiet         no summary line\n"
		"  -h, --help          show this help\n"
		"      --version       show the version\n"
		"\n"
		"Targets:\n");
	for (t = export_targets; t->name; t++)
		fprintf(out, "  %-11s %s\n", t->name, t->help);
	fprintf(out,
		"\n"
		"The warehouse's tables: schemas/warehouse/{postgres,clickhouse}.sql. Loading a session again\n"
		"replaces it. Exit status: 0 ok, 2 usage, 3 bad input (not a session database, or rows of no\n"
		"session left out, with a warning, the rest exported), 4 system error.\n");
}

/* A usage error naming the targets there are. */
static int bad_target(const char *arg)
{
	const struct export_target *t;
	struct buf names;
	int rc;
	buf_init(&names);
	for (t = export_targets; t->name; t++)
		buf_addf(&names, "%s%s", t == export_targets ? "" : t[1].name ? ", " : " or ", t->name);
	rc = usage_error("--to takes %s, not '%s'", names.s, arg);
	buf_release(&names);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "session", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct export_opts o = { 0 };
	int c, rc;

	util_init(argv[0]);
	while ((c = getopt_long(argc, argv, ":t:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!(o.target = export_target_find(optarg)))
				return bad_target(optarg);
			break;
		case 'o':
			o.dir = optarg;
			break;
		case 'S':
			o.session = optarg;
			break;
		case 'q':
			o.quiet = 1;
			util_set_quiet(1);
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("gpuprof-export %s\n", GPUPROF_VERSION);
			return EXIT_OK;
		default:
			return usage_bad_option(c, argv);
		}
	}
	if (optind != argc - 1)
		return usage_error(optind == argc ? "no database given" : "one database at a time");
	o.db = argv[optind];
	if (!o.target)
		return usage_error("--to TARGET is required");
	if (!o.dir || !*o.dir)
		return usage_error("-o DIR is required");
	rc = export_run(&o);
	return rc < 0 ? export_exit_code() : rc ? EXIT_DATA : EXIT_OK;
}
