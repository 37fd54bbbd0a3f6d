/* Unit tests for lib/options: parsing by a table (getopt_long's behaviour) and --help from the same table. */
#include "check.h"
#include "options.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char said[512];	/* the last message */

static void keep_message(void *arg, const char *line)
{
	(void)arg;
	snprintf(said, sizeof(said), "%s", line);
}

/* What the options set. */
static int wide, shrt, top, tried, offered;
static const char *fmt, *limit;

static int take_limit(const struct opt *opt, const char *arg)
{
	(void)opt;
	if (opt->flags & OPT_TRYING) {
		offered++;
		if (!arg || strspn(arg, "0123456789") != strlen(arg))
			return -1;
	} else if (arg && strspn(arg, "0123456789") != strlen(arg)) {
		error("--limit needs a size, not '%s'", arg);
		return -1;
	}
	limit = arg ? arg : "default";
	tried++;
	return 0;
}

static int take_done(const struct opt *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	return OPTIONS_DONE;
}

static const struct opt more[] = {
	{ OPT_CALLBACK, 0, "limit", NULL, "[SIZE]", "a limit\nof a size", OPT_OPTARG | OPT_NEXT_WORD | OPT_INLINE,
	  take_limit, 0 },
	OPT_END_ROW
};

static const struct opt table[] = {
	OPT_TEXT_LINE("usage: prog [options] FILE"),
	OPT_STR('f', "format", &fmt, "FMT", "the format"),
	OPT_CB('n', "top", &top, "N", "rows", opt_count),
	OPT_BOOL('w', "wide", &wide, "never shorten"),
	OPT_BOOL('S', "short", &shrt, "base names"),
	OPT_CB(0, "stop", NULL, NULL, "stop here", take_done),
	OPT_SUBTABLE(more),
	OPT_END_ROW
};

/* Parse the words of line (space-separated) by table: options_parse's value; the arguments left in out. */
static int parse(const char *line, char *out, size_t n)
{
	static char *copy;	/* the words, kept until the next parse: the values point into them */
	char *argv[32], *p;
	int argc = 0, rc, i;
	free(copy);
	copy = xstrdup(line);
	wide = shrt = top = tried = offered = 0;
	fmt = limit = NULL;
	said[0] = 0;
	argv[argc++] = (char *)"prog";
	for (p = copy; *p && argc < 31; ) {
		argv[argc++] = p;
		p += strcspn(p, " ");
		if (*p)
			*p++ = 0;
	}
	argv[argc] = NULL;
	rc = options_parse(argc, argv, table);
	out[0] = 0;
	for (i = 0; i < rc; i++)
		snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? "," : "", argv[i]);
	return rc;
}

int main(void)
{
	char args[256];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	util_init("prog");
	util_divert_messages(keep_message, NULL);

	/* Options anywhere, bundled, values attached or next, long with = or next. */
	CHECK_EQ_I64(parse("a -wS b -n5 --format=csv c", args, sizeof(args)), 3);
	CHECK_EQ_STR(args, "a,b,c");
	CHECK(wide && shrt);
	CHECK_EQ_I64(top, 5);
	CHECK_EQ_STR(fmt, "csv");
	CHECK_EQ_I64(parse("-n 7 --format json x", args, sizeof(args)), 1);
	CHECK_EQ_I64(top, 7);
	CHECK_EQ_STR(fmt, "json");
	CHECK_EQ_I64(parse("-Sn3", args, sizeof(args)), 0);
	CHECK(shrt);
	CHECK_EQ_I64(top, 3);
	/* "--" ends the options; "-" is an argument. */
	CHECK_EQ_I64(parse("- -- -w --top", args, sizeof(args)), 3);
	CHECK_EQ_STR(args, "-,-w,--top");
	CHECK(!wide);
	/* A unique prefix names its option; an exact name wins over longer ones. */
	CHECK_EQ_I64(parse("--form md --wi", args, sizeof(args)), 0);
	CHECK_EQ_STR(fmt, "md");
	CHECK(wide);
	CHECK_EQ_I64(parse("--s", args, sizeof(args)), -1);
	CHECK_EQ_STR(said, "prog: error: option '--s' is ambiguous (--short, --stop) (try 'prog --help')");

	/* Usage errors: one line each, as getopt_long's were told. */
	CHECK_EQ_I64(parse("--bogus=1 x", args, sizeof(args)), -1);
	CHECK_EQ_STR(said, "prog: error: unknown option '--bogus' (try 'prog --help')");
	CHECK_EQ_I64(parse("-wZ", args, sizeof(args)), -1);
	CHECK_EQ_STR(said, "prog: error: unknown option '-Z' (try 'prog --help')");
	CHECK_EQ_I64(parse("x --top", args, sizeof(args)), -1);
	CHECK_EQ_STR(said, "prog: error: option '--top' needs a value (try 'prog --help')");
	CHECK_EQ_I64(parse("-n", args, sizeof(args)), -1);
	CHECK_EQ_STR(said, "prog: error: option '-n' needs a value (try 'prog --help')");
	CHECK_EQ_I64(parse("--wide=1", args, sizeof(args)), -1);
	CHECK_EQ_STR(said, "prog: error: option '--wide' takes no value (try 'prog --help')");
	CHECK_EQ_I64(parse("--top x", args, sizeof(args)), -1);
	CHECK_EQ_STR(said, "prog: error: --top needs a count, not 'x'");
	CHECK_EQ_I64(parse("--top -1", args, sizeof(args)), -1);

	/* An optional value: with =, or the next word when the callback takes it (quietly offered). */
	CHECK_EQ_I64(parse("--limit=12 a", args, sizeof(args)), 1);
	CHECK_EQ_STR(limit, "12");
	CHECK_EQ_I64(offered, 0);
	CHECK_EQ_I64(parse("--limit 40 a", args, sizeof(args)), 1);
	CHECK_EQ_STR(limit, "40");
	CHECK_EQ_STR(args, "a");
	CHECK_EQ_I64(parse("--limit leaks db", args, sizeof(args)), 2);
	CHECK_EQ_STR(limit, "default");
	CHECK_EQ_STR(args, "leaks,db");
	CHECK_EQ_I64(offered, 1);
	CHECK_EQ_STR(said, "");
	CHECK_EQ_I64(parse("--limit=x", args, sizeof(args)), -1);
	CHECK_EQ_STR(said, "prog: error: --limit needs a size, not 'x'");

	/* A callback that did all there was to do stops the parse; what came after is not looked at. */
	CHECK_EQ_I64(parse("--stop --bogus", args, sizeof(args)), OPTIONS_DONE);
	CHECK_EQ_STR(said, "");

	/* --help from the same table: heads padded to the column, long heads wrapped, "\n" going on there. */
	f = open_memstream(&text, &len);
	options_usage(f, table, 16);
	fclose(f);
	CHECK_EQ_STR(text, "usage: prog [options] FILE\n"
			   "  -f, --format FMT"  /* 18 columns: no room before 16 */
			   "\n                the format\n"
			   "  -n, --top N   rows\n"
			   "  -w, --wide    never shorten\n"
			   "  -S, --short   base names\n"
			   "      --stop    stop here\n"
			   "      --limit [SIZE]  a limit\n"
			   "                of a size\n");
	free(text);
	return check_done("test_options");
}
