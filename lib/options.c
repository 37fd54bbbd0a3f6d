/*
 * options: parsing a command line by a table of options, and the table's --help lines (options.h).
 */
#include "options.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Whether a row is an option (not text or the end). */
static int is_option(const struct opt *o)
{
	return o->type == OPT_FLAG || o->type == OPT_STRING || o->type == OPT_CALLBACK;
}

static int takes_arg(const struct opt *o)
{
	return o->argh && !(o->flags & OPT_NOVALUE);
}

/* Give option o its argument (NULL for none): 0, -1 or OPTIONS_DONE. */
static int take(const struct opt *o, const char *arg)
{
	switch (o->type) {
	case OPT_FLAG:
		*(int *)o->value = (int)o->defval;
		return 0;
	case OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_CALLBACK:
		return o->cb(o, arg);
	default:
		return 0;
	}
}

/* The option rows of a table, its subtables' in their place: what options_parse looks options up in. */
struct rows {
	const struct opt **v;
	size_t n, alloc;
};

static void rows_add(struct rows *r, const struct opt *opts)
{
	const struct opt *o;
	for (o = opts; o->type != OPT_END; o++) {
		if (o->type == OPT_TABLE) {
			rows_add(r, o->value);
		} else if (is_option(o)) {
			ALLOC_GROW(r->v, r->n + 1, r->alloc);
			r->v[r->n++] = o;
		}
	}
}

/*
 * The option whose long name is name[0..len): the one named so exactly, else the only one it begins.
 * NULL after a message when there is none or several.
 */
static const struct opt *find_long(const struct rows *r, const char *name, size_t len)
{
	const struct opt *found = NULL;
	struct buf b;
	size_t i;
	int n = 0;
	for (i = 0; i < r->n; i++) {
		const struct opt *o = r->v[i];
		if (!o->long_name || strncmp(o->long_name, name, len))
			continue;
		if (!o->long_name[len])
			return o;
		n++;
		found = o;
	}
	if (n == 1)
		return found;
	if (!n) {
		usage_error("unknown option '--%.*s'", (int)len, name);
		return NULL;
	}
	buf_init(&b);
	for (i = 0; i < r->n; i++)
		if (r->v[i]->long_name && !strncmp(r->v[i]->long_name, name, len))
			buf_addf(&b, "%s--%s", b.len ? ", " : "", r->v[i]->long_name);
	usage_error("option '--%.*s' is ambiguous (%s)", (int)len, name, b.s);
	buf_release(&b);
	return NULL;
}

static const struct opt *find_short(const struct rows *r, int c)
{
	size_t i;
	for (i = 0; i < r->n; i++)
		if (r->v[i]->short_name == c)
			return r->v[i];
	return NULL;
}

/* One long option at argv[*i] ("--name", "--name=value"); 0, -1 or OPTIONS_DONE, *i past what it took. */
static int parse_long(int argc, char **argv, int *i, const struct rows *opts)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct opt *o = find_long(opts, name, len);
	const char *arg = eq ? eq + 1 : NULL;
	int rc;
	(*i)++;
	if (!o)
		return -1;
	if (!takes_arg(o)) {
		if (eq)
			return usage_error("option '--%.*s' takes no value", (int)len, name);
		return take(o, NULL);
	}
	if (!eq && !(o->flags & OPT_OPTARG)) {
		if (*i >= argc)
			return usage_error("option '--%.*s' needs a value", (int)len, name);
		arg = argv[(*i)++];
	}
	rc = take(o, arg);
	/* "--fail-on-leak 1000000" too, not only "--fail-on-leak=1000000": when the next word is its value. */
	if (!rc && !eq && (o->flags & OPT_NEXT_WORD) && *i < argc) {
		struct opt trying = *o;
		trying.flags |= OPT_TRYING;
		if (!take(&trying, argv[*i]))
			(*i)++;
	}
	return rc;
}

/* The short options bundled in argv[*i] ("-wS", "-n5", "-n" "5"); 0, -1 or OPTIONS_DONE. */
static int parse_short(int argc, char **argv, int *i, const struct rows *opts)
{
	const char *p = argv[*i] + 1;
	(*i)++;
	for (; *p; p++) {
		const struct opt *o = find_short(opts, (unsigned char)*p);
		const char *arg = NULL;
		int rc;
		if (!o)
			return usage_error("unknown option '-%c'", *p);
		if (takes_arg(o)) {
			if (p[1])
				arg = p + 1;
			else if (!(o->flags & OPT_OPTARG) && *i >= argc)
				return usage_error("option '-%c' needs a value", *p);
			else if (!(o->flags & OPT_OPTARG))
				arg = argv[(*i)++];
			return take(o, arg);
		}
		if ((rc = take(o, NULL)))
			return rc;
	}
	return 0;
}

int options_parse(int argc, char **argv, const struct opt *opts)
{
	struct rows r = { NULL, 0, 0 };
	int i = 1, n = 0, rc = 0;
	rows_add(&r, opts);
	while (i < argc) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				argv[n++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {	/* an argument, "-" (standard input) too */
			argv[n++] = argv[i++];
			continue;
		}
		rc = a[1] == '-' ? parse_long(argc, argv, &i, &r) : parse_short(argc, argv, &i, &r);
		if (rc)
			break;
	}
	free(r.v);
	if (rc)
		return rc == OPTIONS_DONE ? rc : -1;
	if (n < argc)
		argv[n] = NULL;
	return n;
}

int opt_count(const struct opt *opt, const char *arg)
{
	int64_t n;
	if (parse_i64(arg, strlen(arg), &n) || n < 0 || n > 1000000000) {
		error("--%s needs a count, not '%s'", opt->long_name, arg);
		return -1;
	}
	*(int *)opt->value = (int)n;
	return 0;
}

int opt_version(const struct opt *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	printf("%s %s\n", util_progname(), GPUPROF_VERSION);
	return OPTIONS_DONE;
}

/* Print help text h from column `at` (already there), each "\n" going on at column `width`. */
static void print_help(FILE *out, const char *h, int width)
{
	while (*h) {
		size_t n = strcspn(h, "\n");
		fprintf(out, "%.*s\n", (int)n, h);
		if (!h[n])
			return;
		h += n + 1;
		h += strspn(h, " ");	/* the row's own indent, if it wrote one */
		fprintf(out, "%*s", width, "");
	}
	fputc('\n', out);
}

void options_usage_row(FILE *out, const struct opt *o, int width)
{
	struct buf head;
	if (o->type == OPT_TEXT) {
		fprintf(out, "%s\n", o->help);
		return;
	}
	if (!is_option(o))
		return;
	buf_init(&head);
	if (o->short_name)
		buf_addf(&head, "  -%c%s", o->short_name, o->long_name ? ", " : "");
	else
		buf_addstr(&head, "      ");
	if (o->long_name)
		buf_addf(&head, "--%s", o->long_name);
	if (o->argh)
		buf_addf(&head, " %s", o->argh);
	if ((int)head.len + 2 <= width)
		fprintf(out, "%-*s", width, head.s);
	else if (o->flags & OPT_INLINE)
		fprintf(out, "%s  ", head.s);
	else
		fprintf(out, "%s\n%*s", head.s, width, "");
	print_help(out, o->help ? o->help : "", width);
	buf_release(&head);
}

void options_usage(FILE *out, const struct opt *opts, int width)
{
	const struct opt *o;
	for (o = opts; o->type != OPT_END; o++)
		if (o->type == OPT_TABLE)
			options_usage(out, o->value, width);
		else if (!(o->flags & OPT_HIDDEN))
			options_usage_row(out, o, width);
}
