/*
 * gpuprof-export: sessions of a session.db as partitioned files a warehouse bulk-loads (export.h).
 */
#include "export.h"
#include "options.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static struct opt options[16];	/* the command line (main) */

static void usage(FILE *out)
{
	const struct export_target *t;
	options_usage(out, options, 22);
	for (t = export_targets; t->name; t++)
		fprintf(out, "  %-11s %s\n", t->name, t->help);
	fprintf(out,
		"\n"
		"The warehouse's tables: schemas/warehouse/{postgres,clickhouse}.sql. Loading a session again\n"
		"replaces it. Exit status: 0 ok, 2 usage, 3 bad input (not a session database, or rows of no\n"
		"session left out, with a warning, the rest exported), 4 system error.\n");
}

/* --to TARGET, naming the targets there are when it is none of them. */
static int take_target(const struct opt *opt, const char *arg)
{
	const struct export_target *t;
	struct buf names;
	if ((*(const struct export_target **)opt->value = export_target_find(arg)))
		return 0;
	buf_init(&names);
	for (t = export_targets; t->name; t++)
		buf_addf(&names, "%s%s", t == export_targets ? "" : t[1].name ? ", " : " or ", t->name);
	usage_error("--to takes %s, not '%s'", names.s, arg);
	buf_release(&names);
	return -1;
}

static int take_quiet(const struct opt *opt, const char *arg)
{
	(void)arg;
	*(int *)opt->value = 1;
	util_set_quiet(1);
	return 0;
}

static int take_help(const struct opt *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	usage(stdout);
	return OPTIONS_DONE;
}

int main(int argc, char **argv)
{
	struct export_opts o = { 0 };
	const struct opt rows[] = {
		OPT_TEXT_LINE("usage: gpuprof-export DB --to TARGET -o DIR [--session ID]"),
		OPT_TEXT_LINE(""),
		OPT_TEXT_LINE("Write every table of the sessions of DB as gzipped parts a warehouse bulk-loads, one per"),
		OPT_TEXT_LINE("table and session: DIR/TABLE/session=UUID/part-0.ndjson.gz (or .csv.gz). Rows carry their"),
		OPT_TEXT_LINE("session's uuid in column session, not the local number, so exports of many hosts load into"),
		OPT_TEXT_LINE("one warehouse; names stay string ids, exported with their session in table strings."),
		OPT_TEXT_LINE(""),
		OPT_CB('t', "to", &o.target, "TARGET", "what to write (required), below", take_target),
		OPT_STR('o', "output", &o.dir, "DIR", "the export directory (required; made if missing)"),
		OPT_STR(0, "session", &o.session, "ID", "only this session (its id or uuid; default: every session)"),
		OPT_CB('q', "quiet", &o.quiet, NULL, "no summary line", take_quiet),
		OPT_CB('h', "help", NULL, NULL, "show this help", take_help),
		OPT_VERSION_ROW,
		OPT_TEXT_LINE(""),
		OPT_TEXT_LINE("Targets:"),
		OPT_END_ROW
	};
	int n, rc;

	util_init(argv[0]);
	_Static_assert(sizeof(rows) <= sizeof(options), "options[] holds the rows");
	memcpy(options, rows, sizeof(rows));
	if ((n = options_parse(argc, argv, options)) < 0)
		return n == OPTIONS_DONE ? EXIT_OK : EXIT_USAGE;
	if (n != 1)
		return usage_error(!n ? "no database given" : "one database at a time");
	o.db = argv[0];
	if (!o.target)
		return usage_error("--to TARGET is required");
	if (!o.dir || !*o.dir)
		return usage_error("-o DIR is required");
	rc = export_run(&o);
	return rc < 0 ? export_exit_code() : rc ? EXIT_DATA : EXIT_OK;
}
