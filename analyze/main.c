/*
 * gpuprof-analyze: run one analysis over session.db. What each analysis takes beyond the common options
 * (its own options, a gate, a baseline) comes from its header, in the analyses table; the formats come from
 * the formats table.
 */
#include "analysis.h"
#include "db.h"
#include "options.h"
#include "user.h"
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

/* Users' modules (user.h): --sql FILE's, and those of GPUPROF_ANALYSES's directories. */
static const char *sql_file;			/* --sql FILE */
static const struct user_module *sql_module;	/* its module, loaded before the options are parsed */
static const struct user_module *const *dir_modules;
static int ndir_modules;
#define MAX_UFLAGS 64
/* Their options and gates as flags (--min-ns VALUE, --max-ns[=VALUE]), each name once. */
static struct uflag {
	const char *param;	/* the option's or gate's name: :param */
	char flag[128];		/* --flag */
	int gate;		/* a gate's flag: its value optional */
	int given;
	const char *value;	/* given: the value (a gate's may be NULL) */
} uflags[MAX_UFLAGS];
static int nuflags;
static struct opt urows[MAX_UFLAGS + 1];
static struct {
	const char *name, *value;
} opts_given[MAX_UFLAGS];	/* --opt NAME=VALUE, in order */
static int nopts_given;

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
static struct opt head[16], own[MAX_EXTRA + 1], tail[8], options[5];

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
	const struct user_module *const *v;
	int i, n;
	for (a = analyses; a->name; a++)
		printf("%-*s %s\n", name_width(), a->name, a->help);
	/* Then the users' (GPUPROF_ANALYSES), with their files; a module that does not load says why. */
	n = user_scan(&v, 1);
	for (i = 0; i < n; i++)
		if (analysis_find(v[i]->m.name))
			warning("%s: named as a shipped analysis, which 'gpuprof-analyze %s' runs", v[i]->path,
				v[i]->m.name);
		else
			printf("%-*s %s (%s)\n", name_width(), v[i]->m.name, v[i]->a->help, v[i]->path);
	free((void *)v);
	return OPTIONS_DONE;
}

/* --opt NAME=VALUE: a user's module's option (checked once the module is known). */
static int take_opt(const struct opt *opt, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name;
	size_t i;
	(void)opt;
	if (!eq || eq == arg) {
		error("--opt needs NAME=VALUE, not '%s'", arg);
		return -1;
	}
	if (nopts_given == MAX_UFLAGS) {
		error("--opt: more than %d", MAX_UFLAGS);
		return -1;
	}
	name = xstrndup(arg, (size_t)(eq - arg));	/* (kept until exit, as the options are) */
	for (i = 0; name[i]; i++)
		if (name[i] == '-')
			name[i] = '_';
	opts_given[nopts_given].name = name;
	opts_given[nopts_given++].value = eq + 1;
	return 0;
}

/* A user's module's option or gate flag, uflags[opt->defval]. A gate's value is optional: "--max-ns=5000",
   or the next word when it is a number. */
static int take_uflag(const struct opt *opt, const char *arg)
{
	struct uflag *f = &uflags[opt->defval];
	if (opt->flags & OPT_TRYING) {
		char *end;
		if (!*arg || !strchr("+-.0123456789", *arg) || (strtod(arg, &end), *end))
			return -1;
	}
	f->given = 1;
	f->value = arg;
	return 0;
}

/* Whether a row of the options so far is called --name. */
static int has_flag(const char *name)
{
	int i;
	for (i = 0; head[i].type != OPT_END; i++)
		if (head[i].long_name && !strcmp(head[i].long_name, name))
			return 1;
	for (i = 0; tail[i].type != OPT_END; i++)
		if (tail[i].long_name && !strcmp(tail[i].long_name, name))
			return 1;
	for (i = 0; i < nextra; i++)
		if (!strcmp(extra[i]->name, name))
			return 1;
	for (i = 0; i < nuflags; i++)
		if (!strcmp(uflags[i].flag, name))
			return 1;
	return 0;
}

/* u's options and gate as flags, but those gpuprof binds itself or has a flag of that name for. */
static void uflags_add(const struct user_module *u)
{
	int i;
	for (i = 0; i <= u->m.nparams; i++) {
		const char *param = i < u->m.nparams ? u->m.params[i].name : u->m.gate.name;
		struct uflag *f = &uflags[nuflags];
		if (!param || nuflags == MAX_UFLAGS || (i < u->m.nparams ? analysis_builtin_option(param) != NULL :
							 u->a->gate != NULL))	/* built in: its own flag */
			continue;
		user_flag_name(f->flag, sizeof(f->flag), param);
		if (has_flag(f->flag))
			continue;
		f->param = param;
		f->gate = i == u->m.nparams;
		urows[nuflags] = (struct opt){ OPT_CALLBACK, 0, f->flag, NULL, f->gate ? "[VALUE]" : "VALUE", NULL,
					       OPT_HIDDEN | (f->gate ? OPT_OPTARG | OPT_NEXT_WORD : 0), take_uflag,
					       nuflags };
		nuflags++;
	}
	urows[nuflags] = (struct opt)OPT_END_ROW;
}

/*
 * --sql FILE, looked for before the options are parsed, so that its module's options are flags: its
 * module into sql_module. 0, or -1 after a message (it does not load).
 */
static int sql_prescan(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *path = !strncmp(argv[i], "--sql=", 6) ? argv[i] + 6 :
				   !strcmp(argv[i], "--sql") && i + 1 < argc ? argv[i + 1] : NULL;
		if (path && !(sql_module = user_load(path)))
			return -1;
	}
	return 0;
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
		OPT_TEXT_LINE("       gpuprof-analyze --sql FILE.sql session.db [options]"),
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
		OPT_STR(0, "sql", &sql_file, "FILE", "run the analysis module FILE, yours (README \"Your own analyses\")"),
		OPT_CB(0, "opt", NULL, "NAME=VALUE", "the module's option NAME (repeatable); or --NAME VALUE, '_' as '-'",
		       take_opt),
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
	/* The users' modules' options: --sql FILE's, then GPUPROF_ANALYSES's (those that load). */
	if (sql_module)
		uflags_add(sql_module);
	ndir_modules = user_scan(&dir_modules, 0);
	for (i = 0; i < ndir_modules; i++)
		uflags_add(dir_modules[i]);
	urows[nuflags] = (struct opt)OPT_END_ROW;
	options[0] = (struct opt)OPT_SUBTABLE(head);
	options[1] = (struct opt)OPT_SUBTABLE(own);
	options[2] = (struct opt)OPT_SUBTABLE(urows);
	options[3] = (struct opt)OPT_SUBTABLE(tail);
	options[4] = (struct opt)OPT_END_ROW;
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

/*
 * The module flags given that u does not take (u NULL: a shipped analysis), as not_taken says them:
 * "--min-ns goes with the long_kernels analysis"; --opt without a module. 0, or -1 after the message.
 */
static int uflags_check(const struct user_module *u)
{
	int i, k, j;
	if (!u && nopts_given)
		return error("--opt goes with --sql FILE or a module of GPUPROF_ANALYSES");
	for (i = 0; u && i < nopts_given; i++) {
		const struct analysis_option *b = analysis_builtin_option(opts_given[i].name);
		if (b)
			return error("--opt %s: a built-in option; give it as --%s", opts_given[i].name, b->name);
		for (k = 0; k < u->m.nparams && strcmp(u->m.params[k].name, opts_given[i].name); k++)
			;
		if (k == u->m.nparams) {
			struct buf names;
			buf_init(&names);
			for (k = 0; k < u->m.nparams; k++)
				buf_addf(&names, "%s%s", k ? ", " : "", u->m.params[k].name);
			error("--opt %s: %s has no option '%s' (%s%s)", opts_given[i].name, u->path, opts_given[i].name,
			      u->m.nparams ? "its options: " : "it has none", names.s);
			buf_release(&names);
			return -1;
		}
	}
	for (i = 0; i < nuflags; i++) {
		const struct user_module *owner = NULL;
		int takes = 0;
		if (!uflags[i].given)
			continue;
		for (k = -1; k < ndir_modules; k++) {
			const struct user_module *v = k < 0 ? sql_module : dir_modules[k];
			int has = 0;
			if (!v)
				continue;
			for (j = 0; j < v->m.nparams; j++)
				has |= !uflags[i].gate && !strcmp(v->m.params[j].name, uflags[i].param);
			has |= uflags[i].gate && v->m.gate.name && !strcmp(v->m.gate.name, uflags[i].param);
			if (has && !owner)
				owner = v;
			takes |= has && u && !strcmp(v->path, u->path);
		}
		if (!takes)
			return error("--%s goes with the %s analysis (%s)", uflags[i].flag, owner->m.name, owner->path);
	}
	return 0;
}

/* Add "NAME=VALUE" to o's module options (a copy, freed by params_free). */
static void param_add(struct analysis_opts *o, const char *name, const char *value)
{
	struct buf b;
	buf_init(&b);
	buf_addf(&b, "%s=%s", name, value);
	o->params = xrealloc(o->params, (size_t)(o->nparams + 1) * sizeof(*o->params));
	o->params[o->nparams++] = xstrdup(b.s);
	buf_release(&b);
}

static void params_free(struct analysis_opts *o)
{
	int i;
	for (i = 0; i < o->nparams; i++)
		free((char *)o->params[i]);
	free(o->params);
	o->params = NULL;
	o->nparams = 0;
}

/*
 * The values of u's own options given into o (--NAME, then --opt NAME=VALUE: the last one wins; script_bind
 * binds the others' defaults); its own gate's, when given: its value, else its default (script_bind binds
 * :GATE NULL, the gate off, when not). Returns the gate's flag when given, else NULL; *value its value.
 */
static const struct uflag *uparams(const struct user_module *u, struct analysis_opts *o, const char **value)
{
	const struct uflag *gate = NULL;
	int i, k;
	for (i = 0; i < u->m.nparams; i++) {
		const char *name = u->m.params[i].name;
		for (k = 0; k < nuflags; k++)
			if (uflags[k].given && !uflags[k].gate && !strcmp(uflags[k].param, name))
				param_add(o, name, uflags[k].value);
		for (k = 0; k < nopts_given; k++)
			if (!strcmp(opts_given[k].name, name))
				param_add(o, name, opts_given[k].value);
	}
	if (u->m.gate.name && !u->a->gate) {
		for (k = 0; k < nuflags; k++)
			if (uflags[k].given && uflags[k].gate && !strcmp(uflags[k].param, u->m.gate.name))
				gate = &uflags[k];
		*value = gate && gate->value ? gate->value : u->m.gate.def;
		if (gate && *value)
			param_add(o, u->m.gate.name, *value);
	}
	return gate;
}

/*
 * The analysis the n arguments left in argv name, and the database: ANALYSIS DB, or with --sql FILE, DB.
 * *u its user's module (--sql FILE's, or NAME.sql of GPUPROF_ANALYSES's), else NULL. NULL after a
 * message (a usage error).
 */
static const struct analysis *pick(int n, char **argv, const struct user_module **u, const char **dbpath)
{
	int bad;
	*u = NULL;
	if (sql_file) {
		if (n != 1) {
			usage_error(n < 1 ? "need a database" : "too many arguments (--sql FILE names the analysis)");
			return NULL;
		}
		if (!sql_module && !(sql_module = user_load(sql_file)))
			return NULL;
		*u = sql_module;
		*dbpath = argv[0];
		return sql_module->a;
	}
	if (n != 2) {
		usage_error(n < 2 ? "need an analysis and a database" : "too many arguments");
		return NULL;
	}
	*dbpath = argv[1];
	if (analysis_find(argv[0]))
		return analysis_find(argv[0]);
	if ((*u = user_find(argv[0], &bad)))
		return (*u)->a;
	if (!bad)
		error("no analysis '%s' (gpuprof-analyze --list names them)", argv[0]);
	return NULL;
}

int main(int argc, char **argv)
{
	struct analysis_opts o;
	struct render_opts ro = { 0, 0, 0, 0 };
	struct tables ts = { NULL, 0 };
	const struct analysis *a;
	const struct user_module *u = NULL;	/* a user's module (--sql FILE, GPUPROF_ANALYSES) */
	const struct uflag *ugate = NULL;	/* its gate's flag, given */
	const char *ugate_value = NULL;
	const struct format *fmt = NULL;
	const char *session = NULL, *dbpath;
	sqlite3 *db;
	int c, i, n, status, failed = 0, gated = 0;
	int shown = 0;		/* with a gate: --top, applied here rather than by the analysis */
	char gate[600] = "";	/* the gate's line for stderr, when there is a gate */

	util_init(argv[0]);
	analysis_opts_init(&o);
	if (sql_prescan(argc, argv))
		return EXIT_USAGE;
	options_build(&o, &ro, &fmt, &session);
	if ((n = options_parse(argc, argv, options)) < 0)
		return n == OPTIONS_DONE ? EXIT_OK : EXIT_USAGE;
	if (!fmt)
		fmt = formats;
	if (argc == 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!(a = pick(n, argv, &u, &dbpath)) || uflags_check(u))
		return EXIT_USAGE;
	for (i = 0; i < nextra; i++)
		if (given[i] && !extra[i]->lenient && !analysis_takes(a, extra[i])) {
			not_taken(extra[i]);
			return EXIT_USAGE;
		}
	if ((o.match && db_regex_check(o.match)) || (o.exclude && db_regex_check(o.exclude)))
		return EXIT_USAGE;
	ro.width = render_width();
	if (!(db = db_open(dbpath, DB_READ)))
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
	if (u)
		ugate = uparams(u, &o, &ugate_value);
	gated |= ugate != NULL;
	if (gated) {
		shown = o.top;
		o.top = 0;
	} else if (u) {
		shown = o.top;	/* a user's module is cut to --top whether its SQL reads :top or not */
	}
	/* An analysis that reads the kernels through several tables decodes them once (as the report does). */
	if (a->kernel_cache && db_exec(db, "SELECT gpuprof_kernel_cache(1)"))
		status = EXIT_SYSTEM;
	else
		status = !analysis_run(db, a, &o, &ts) ? EXIT_OK :
			 /* A user's module that is wrong (no such column) is a usage error; the system's failure not. */
			 u && db_exit_code() != EXIT_SYSTEM ? EXIT_USAGE : EXIT_SYSTEM;
	if (status == EXIT_OK && ugate)
		failed = user_judge(&ts, 0, u, ugate_value, gate, sizeof(gate));
	else if (status == EXIT_OK && gated)
		failed = a->gate->judge(&ts, &o, gate, sizeof(gate));
	if (u)
		user_drop_fail(&ts, 0);
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
	params_free(&o);
	return status;
}
