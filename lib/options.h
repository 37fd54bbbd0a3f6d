/*
 * options: a program's command line from one table, git's parse-options the model. Each row is an option
 * (its names, its argument, its --help line and where its value goes) or a line of --help text;
 * options_parse parses argv by the table and options_usage prints the table's lines of --help, so the
 * two cannot disagree.
 *
 * Parsing is getopt_long's as gpuprof has always used it: options anywhere among the arguments ("--"
 * ends them), short options bundled (-wS) with a value attached (-n5) or next (-n 5), long ones with
 * --name=VALUE or --name VALUE, and abbreviated to any unambiguous prefix (--form). A bad option is a
 * usage error in one line that points at --help (usage_error).
 *
 * Ownership: the table and its strings belong to the caller and must outlive options_parse; values that
 * are strings point into argv.
 */
#ifndef GPUPROF_OPTIONS_H
#define GPUPROF_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_END,	/* ends the table */
	OPT_TEXT,	/* a line of --help as it is (help; "" a blank line); not an option */
	OPT_FLAG,	/* no argument: *(int *)value = defval */
	OPT_STRING,	/* *(const char **)value = the argument */
	OPT_CALLBACK,	/* cb(opt, arg) takes it */
	OPT_TABLE	/* the rows of the table value points to, here (usage: its visible rows) */
};

#define OPT_OPTARG 1u		/* its argument may be left out: --name=ARG or -xARG only (arg NULL without) */
#define OPT_NEXT_WORD 2u	/* with OPT_OPTARG: "--name ARG" too, when cb takes the next word as ARG */
#define OPT_HIDDEN 4u		/* parsed, but not in options_usage (the program prints it elsewhere) */
#define OPT_INLINE 8u		/* usage: a head too long for its column keeps the help on its line */
#define OPT_NOVALUE 32u		/* argh is for --help only ("--check DB": DB... are its arguments): no value */
#define OPT_TRYING 16u		/* set on the row a callback gets when offered the next word (OPT_NEXT_WORD):
				   it returns -1 quietly when the word is not its argument */

/* options_parse's return value when a callback did all there was to do (--help, --version, --list). */
#define OPTIONS_DONE (-2)

struct opt {
	enum opt_type type;
	int short_name;		/* 'f', or 0 for none */
	const char *long_name;	/* "format", or NULL for none */
	void *value;		/* where the value goes (OPT_FLAG, OPT_STRING), or the callback's context */
	const char *argh;	/* the argument's name in --help ("FMT", "[SIZE]"); NULL: it takes none */
	const char *help;	/* the --help text; each "\n" goes on at the help column */
	unsigned flags;		/* OPT_OPTARG ... */
	/*
	 * Take the option's argument (NULL when it takes none, or an optional one was left out): 0, -1 after
	 * a message (a usage error), or OPTIONS_DONE to stop parsing with success (it printed what was asked).
	 */
	int (*cb)(const struct opt *opt, const char *arg);
	intptr_t defval;	/* OPT_FLAG's value; anything a callback wants */
};

#define OPT_TEXT_LINE(h) { OPT_TEXT, 0, NULL, NULL, NULL, (h), 0, NULL, 0 }
#define OPT_BOOL(s, l, v, h) { OPT_FLAG, (s), (l), (v), NULL, (h), 0, NULL, 1 }
#define OPT_STR(s, l, v, a, h) { OPT_STRING, (s), (l), (v), (a), (h), 0, NULL, 0 }
#define OPT_CB(s, l, v, a, h, f) { OPT_CALLBACK, (s), (l), (v), (a), (h), 0, (f), 0 }
#define OPT_SUBTABLE(t) { OPT_TABLE, 0, NULL, (void *)(uintptr_t)(t), NULL, NULL, 0, NULL, 0 }
#define OPT_END_ROW { OPT_END, 0, NULL, NULL, NULL, NULL, 0, NULL, 0 }

/* Callbacks of rows many programs have. */
/* A count 0..1e9 into *(int *)opt->value; -1 after "--top needs a count, not 'x'". */
int opt_count(const struct opt *opt, const char *arg);
/* --version: "PROGRAM VERSION" on standard output; OPTIONS_DONE. */
int opt_version(const struct opt *opt, const char *arg);
#define OPT_VERSION_ROW { OPT_CALLBACK, 0, "version", NULL, NULL, "show the version", 0, opt_version, 0 }

/*
 * Parse argv[1..argc) by opts (ended by OPT_END): each option into its row's value or callback, in the
 * order given. The arguments that are not options are moved to argv[0..n) in their order (argv[0], the
 * program, is dropped). Returns n; -1 after a usage error said in one line (exit EXIT_USAGE); or
 * OPTIONS_DONE when a callback said so (exit EXIT_OK).
 */
int options_parse(int argc, char **argv, const struct opt *opts);

/*
 * Print the table's rows to out as --help lines: text rows as they are, options as "  -f, --format FMT"
 * (or "      --long ARG") padded to column `width`, then the help. A head that does not leave two spaces
 * before that column puts the help on the next line (OPT_INLINE: two spaces after it on its own line).
 */
void options_usage(FILE *out, const struct opt *opts, int width);

/* The same for one row, hidden or not (a table row prints nothing). */
void options_usage_row(FILE *out, const struct opt *opt, int width);

#endif
