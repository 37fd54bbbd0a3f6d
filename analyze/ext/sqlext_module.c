/*
 * sqlext_module: gpuprof_module(NAME), the table-valued function every shipped analysis file calls first,
 * so that it runs as it is in the sqlite3 shell (`.load gpuprof_sqlite` then `.read analyze/NAME.sql`).
 * It returns no rows; on the way it
 *   - makes the sqlite3 shell's parameter table temp.sqlite_parameters (when missing) and fills in the
 *     parameters the analyses read that are not set there: :session (the newest session, as
 *     gpuprof-analyze), :top (-1, all rows), :short (0), :folded (:short, or 1 when temp.name_groups has
 *     rows), :match and :exclude (NULL), the module's options' defaults (its header's `-- option:` lines;
 *     :threshold_given 1 when :threshold was set), and the data files it reads (:class_rules and
 *     :class_rules_file, :gpu_peaks and :gpu_peaks_file: the file GPUPROF_CLASS_RULES / GPUPROF_GPU_PEAKS
 *     names, else the built-in one; :stall_reasons);
 *   - makes temp.name_groups(ord, name, pattern), the --group NAME=RE families, when missing (empty);
 *   - for a module that compares with a baseline (`-- baseline: required`): attaches the database itself
 *     as `base` unless a `base` is attached, sets :base_session (the session before :session in the same
 *     file, else the newest of base) and makes temp.base_ops;
 *   - runs the modules it includes (`-- include:`, transitively, each after its own includes) that have
 *     not run on this connection with the same parameters: temp.gpuprof_modules(name, signature) says
 *     which did (a rolled-back transaction forgets them with what they made). Their statements are bound
 *     from temp.sqlite_parameters as the shell binds a statement (NULL for a parameter not there). NAME
 *     itself runs too when it is a prelude (`-- module:`): gpuprof_module('memory-events') gives a
 *     query of one's own the memory tables.
 * gpuprof-analyze runs the same statement after writing its own bindings into temp.sqlite_parameters
 * (analyze/script.c), so there the defaults fill in nothing and the includes see its options.
 *
 * An include runs while the calling statement does: SQLite refuses to drop a table then ("database table
 * is locked"), so an included module makes its tables with CREATE ... IF NOT EXISTS and empties them with
 * DELETE (views may be dropped). Errors name the module file and line: "gpuprof_module: analyze/X.sql:12:
 * no such table: y".
 */
#include "sqlext_int.h"
#include "sqlext.h"
#include "embed.h"
#include "module.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GPUPROF_SQLITE_LOADABLE
SQLITE_EXTENSION_INIT3
#endif

#define MAX_INCLUDES 64		/* modules one module may pull in, transitively */

const struct sqlext_data_file sqlext_data_files[] = {
	{ ":class_rules", ":class_rules_file", "GPUPROF_CLASS_RULES", "analyze/kernel-classes.rules", "class rules" },
	{ ":gpu_peaks", ":gpu_peaks_file", "GPUPROF_GPU_PEAKS", "analyze/gpu-peaks.rules", "GPU peaks" },
	{ ":stall_reasons", NULL, NULL, "analyze/stall-reasons.txt", "stall reasons" },
	{ NULL, NULL, NULL, NULL, NULL }
};

int sqlext_data_file_read(const struct sqlext_data_file *f, struct buf *b, const char **file, char *msg, size_t n)
{
	const char *path = f->env ? getenv(f->env) : NULL;
	char chunk[8192];
	size_t got;
	FILE *in;
	if (!path || !*path) {
		const char *text = embed_get(f->embedded);
		if (!text) {
			snprintf(msg, n, "internal: no embedded %s", f->embedded);
			return -1;
		}
		buf_addstr(b, text);
		*file = f->embedded;
		return 0;
	}
	if (!(in = fopen(path, "rb"))) {
		snprintf(msg, n, "cannot read %s '%s' (%s): %s", f->what, path, f->env, strerror(errno));
		return -1;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), in)) > 0)
		buf_add(b, chunk, got);
	if (ferror(in) || memchr(b->s, '\0', b->len)) {
		int bad_nul = !ferror(in);
		fclose(in);
		snprintf(msg, n, "cannot read %s '%s' (%s): %s", f->what, path, f->env,
			 bad_nul ? "not a text file" : "read error");
		return -1;
	}
	fclose(in);
	*file = path;
	return 0;
}

int gpuprof_sqlite_params_table(sqlite3 *db)
{
	int defensive = 0, writable = 0, rc;
	/* As the shell's .parameter does: a table named sqlite_* needs the schema writable for a moment. */
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, -1, &defensive);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 0, (int *)0);
	sqlite3_db_config(db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, -1, &writable);
	sqlite3_db_config(db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, 1, (int *)0);
	rc = sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS temp.sqlite_parameters(key TEXT PRIMARY KEY, value) "
			  "WITHOUT ROWID", NULL, NULL, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, writable, (int *)0);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, defensive, (int *)0);
	return rc;
}

/* The text of module name (analyze/NAME.sql, embedded), or NULL. */
static const char *module_text(const char *name, char *file, size_t n)
{
	snprintf(file, n, "analyze/%s.sql", name);
	return embed_get(file);
}

/* What one call collects: the modules to run, includes first, the module itself last. */
struct plan {
	char *names[MAX_INCLUDES + 1];	/* owned */
	int n;
	struct module top;	/* the module's own header */
	char msg[512];
};

static int plan_has(const struct plan *p, const char *name)
{
	int i;
	for (i = 0; i < p->n; i++)
		if (!strcmp(p->names[i], name))
			return 1;
	return 0;
}

/*
 * Module name and, before it, what it includes (depth first, each once) into p; stack holds the modules
 * being visited (a cycle is an error). 0, or -1 with p->msg set.
 */
static int plan_add(struct plan *p, const char *name, const char **stack, int depth)
{
	struct module m;
	char file[300];
	const char *text;
	int i;
	if (plan_has(p, name))
		return 0;
	for (i = 0; i < depth; i++)
		if (!strcmp(stack[i], name)) {
			snprintf(p->msg, sizeof(p->msg), "module '%s' includes itself (through '%s')", name,
				 stack[depth - 1]);
			return -1;
		}
	if (depth == MAX_INCLUDES || p->n == MAX_INCLUDES + 1) {
		snprintf(p->msg, sizeof(p->msg), "module '%s': more than %d modules included", stack[0], MAX_INCLUDES);
		return -1;
	}
	if (!(text = module_text(name, file, sizeof(file)))) {
		if (depth)
			snprintf(p->msg, sizeof(p->msg), "%s: includes '%s', which is no module (%s)", stack[depth - 1],
				 name, file);
		else
			snprintf(p->msg, sizeof(p->msg), "no module '%s' (%s)", name, file);
		return -1;
	}
	if (module_parse(file, text, &m)) {
		snprintf(p->msg, sizeof(p->msg), "%s: a malformed header", file);
		return -1;
	}
	stack[depth] = name;
	for (i = 0; i < m.nincludes; i++)
		if (plan_add(p, m.includes[i], stack, depth + 1)) {
			module_release(&m);
			return -1;
		}
	if (!depth)
		p->top = m;	/* (released with the plan) */
	else
		module_release(&m);
	p->names[p->n++] = xstrdup(name);
	return 0;
}

static void plan_release(struct plan *p)
{
	int i;
	for (i = 0; i < p->n; i++)
		free(p->names[i]);
	p->n = 0;
	module_release(&p->top);
}

/* Whether text names parameter key (":top") outside comments and string literals. */
static int names_param(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *s;
	for (s = text; *s; s++) {
		if (s[0] == '-' && s[1] == '-') {
			while (*s && *s != '\n')
				s++;
			if (!*s)
				break;
		} else if (*s == '\'') {
			while (s[1] && s[1] != '\'')
				s++;
			if (!*++s)
				break;
		} else if (!strncmp(s, key, n) && (s == text || !(s[-1] == '_' || (s[-1] >= '0' && s[-1] <= '9') ||
								   ((s[-1] | 32) >= 'a' && (s[-1] | 32) <= 'z'))) &&
			   !(s[n] == '_' || (s[n] >= '0' && s[n] <= '9') || ((s[n] | 32) >= 'a' && (s[n] | 32) <= 'z'))) {
			return 1;
		}
	}
	return 0;
}

/* Run sql (no parameters) on db; SQLITE_OK, or SQLite's code with msg set to its message. */
static int run_sql(sqlite3 *db, const char *sql, char *msg, size_t n)
{
	char *err = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
	if (rc != SQLITE_OK)
		snprintf(msg, n, "%s", err ? err : sqlite3_errstr(rc));
	sqlite3_free(err);
	return rc;
}

/* Bind st's parameters from temp.sqlite_parameters (NULL where there is no row), as the sqlite3 shell. */
static int bind_params(sqlite3 *db, sqlite3_stmt *st)
{
	sqlite3_stmt *q;
	int i, n = sqlite3_bind_parameter_count(st), rc;
	if (!n)
		return SQLITE_OK;
	if ((rc = sqlite3_prepare_v2(db, "SELECT value FROM temp.sqlite_parameters WHERE key = ?1", -1, &q, NULL)) !=
	    SQLITE_OK)
		return rc;
	for (i = 1; i <= n; i++) {
		const char *name = sqlite3_bind_parameter_name(st, i);
		if (!name)
			continue;
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW)
			sqlite3_bind_value(st, i, sqlite3_column_value(q, 0));
		else
			sqlite3_bind_null(st, i);
		sqlite3_reset(q);
	}
	return sqlite3_finalize(q);
}

/*
 * A default: key with the value of sql (an expression, or a SELECT of one column, that may read ?1: arg,
 * as text), unless temp.sqlite_parameters has key; temp.gpuprof_defaults records what it put there
 * (defaults_forget takes it out again before the next call).
 */
static int param_default(sqlite3 *db, const char *key, const char *sql, const char *arg, char *msg, size_t n)
{
	char text[512];
	sqlite3_stmt *st;
	int rc;
	snprintf(text, sizeof(text), "INSERT OR IGNORE INTO temp.sqlite_parameters(key, value) SELECT ?2, (%s)", sql);
	if ((rc = sqlite3_prepare_v2(db, text, -1, &st, NULL)) == SQLITE_OK) {
		if (arg)
			sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE && sqlite3_changes(db) == 1 &&
		    (rc = sqlite3_prepare_v2(db, "REPLACE INTO temp.gpuprof_defaults SELECT key, value FROM "
					     "temp.sqlite_parameters WHERE key = ?1", -1, &st, NULL)) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
			rc = sqlite3_step(st);
			sqlite3_finalize(st);
		}
		if (rc == SQLITE_DONE)
			return SQLITE_OK;
	}
	snprintf(msg, n, "%s: %s", key, sqlite3_errmsg(db));
	return rc;
}

/*
 * Take out the defaults an earlier call put into temp.sqlite_parameters and that are still as it put
 * them, so that this call computes them again (:folded after :short changed, :session after an ingest);
 * what was set since stays.
 */
static int defaults_forget(sqlite3 *db, char *msg, size_t n)
{
	return run_sql(db, "DELETE FROM temp.sqlite_parameters WHERE EXISTS (SELECT 1 FROM temp.gpuprof_defaults d "
		       "WHERE d.key = sqlite_parameters.key AND d.value IS sqlite_parameters.value); "
		       "DELETE FROM temp.gpuprof_defaults", msg, n);
}

/* Whether temp.sqlite_parameters has key. */
static int param_set(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st;
	int have = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM temp.sqlite_parameters WHERE key = ?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		have = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return have;
}

/* The defaults of the parameters every analysis may read (see the top of the file). */
static int common_defaults(sqlite3 *db, char *msg, size_t n)
{
	static const struct {
		const char *key, *sql;
	} rows[] = {
		{ ":session", "SELECT max(id) FROM main.sessions" },
		{ ":top", "-1" },
		{ ":short", "0" },
		{ ":folded", "SELECT coalesce((SELECT value FROM temp.sqlite_parameters WHERE key = ':short'), 0) <> 0 "
			     "OR EXISTS (SELECT 1 FROM temp.name_groups)" },
		{ ":match", "NULL" },
		{ ":exclude", "NULL" },
	};
	size_t i;
	int rc;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if ((rc = param_default(db, rows[i].key, rows[i].sql, NULL, msg, n)) != SQLITE_OK)
			return rc;
	{
		sqlite3_stmt *st;
		int none = 0;
		if (sqlite3_prepare_v2(db, "SELECT value IS NULL FROM temp.sqlite_parameters WHERE key = ':session'", -1,
				       &st, NULL) != SQLITE_OK)
			return SQLITE_ERROR;
		none = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		if (none) {
			/* Not left as NULL: the next analysis would take it for a session that was set. */
			sqlite3_exec(db, "DELETE FROM temp.sqlite_parameters WHERE key = ':session' AND value IS NULL", NULL,
				     NULL, NULL);
			snprintf(msg, n, "the database holds no session");
			return SQLITE_ERROR;
		}
	}
	return SQLITE_OK;
}

/*
 * The defaults of m's options (`-- option: NAME DEFAULT`): DEFAULT as an integer or a real where it reads
 * as one, else as text; '-' is NULL. Before each, :NAME_given (where text names it) says whether :NAME
 * was set (ranks' threshold has a default of its own when not).
 */
static int option_defaults(sqlite3 *db, const struct module *m, const char *text, char *msg, size_t n)
{
	int i, rc = SQLITE_OK;
	for (i = 0; i < m->nparams; i++) {
		const struct module_param *o = &m->params[i];
		char key[128], given[160], *end;
		const char *as = "NULL";
		snprintf(key, sizeof(key), ":%s", o->name);
		snprintf(given, sizeof(given), ":%s_given", o->name);
		if (!names_param(text, key))
			continue;	/* one the program reads (--baseline FILE) */
		if (names_param(text, given) &&
		    (rc = param_default(db, given, param_set(db, key) ? "1" : "0", NULL, msg, n)) != SQLITE_OK)
			return rc;
		/* DEFAULT as an integer or a real where the whole of it reads as one (as gpuprof-analyze binds it). */
		if (o->def && *o->def) {
			(void)strtoll(o->def, &end, 10);
			if (!*end)
				as = "CAST(?1 AS INTEGER)";
			else
				as = ((void)strtod(o->def, &end), !*end) ? "CAST(?1 AS REAL)" : "?1";
		}
		if ((rc = param_default(db, key, as, o->def, msg, n)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/* The data files the modules of p name (their text, and file name where they have one). */
static int file_defaults(sqlite3 *db, const struct plan *p, char *msg, size_t n)
{
	const struct sqlext_data_file *f;
	int i, rc;
	for (f = sqlext_data_files; f->param; f++) {
		int named = 0;
		char file[300];
		for (i = 0; i < p->n && !named; i++) {
			const char *text = module_text(p->names[i], file, sizeof(file));
			named = text && (names_param(text, f->param) || (f->file_param && names_param(text, f->file_param)));
		}
		if (!named || (param_set(db, f->param) && (!f->file_param || param_set(db, f->file_param))))
			continue;
		{
			struct buf b;
			const char *name = NULL;
			buf_init(&b);
			if (sqlext_data_file_read(f, &b, &name, msg, n)) {
				buf_release(&b);
				return SQLITE_ERROR;
			}
			rc = param_default(db, f->param, "?1", b.s, msg, n);
			if (rc == SQLITE_OK && f->file_param)
				rc = param_default(db, f->file_param, "?1", name, msg, n);
			buf_release(&b);
			if (rc != SQLITE_OK)
				return rc;
		}
	}
	return SQLITE_OK;
}

/*
 * A module that compares: schema base (attached here to the database itself when missing), :base_session
 * (the session before :session in the same file, else base's newest) and temp.base_ops (base.ops with
 * its rowid as id, or no rows where base predates ops), as gpuprof-analyze's analysis_baseline.
 */
static int baseline(sqlite3 *db, char *msg, size_t n)
{
	static const char cols[] = "session_id, id, pid, thread_id, start_ns, end_ns, name_id, external_id";
	const char *main_file = sqlite3_db_filename(db, "main"), *base_file = sqlite3_db_filename(db, "base");
	char sql[512];
	sqlite3_stmt *st;
	int rc, has_ops;
	if (!base_file) {
		if (!main_file || !*main_file) {
			snprintf(msg, n, "a baseline is needed: ATTACH 'BASE.db' AS base");
			return SQLITE_ERROR;
		}
		if ((rc = sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS base", -1, &st, NULL)) != SQLITE_OK)
			return rc;
		sqlite3_bind_text(st, 1, main_file, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			snprintf(msg, n, "cannot attach '%s' as the baseline: %s", main_file, sqlite3_errmsg(db));
			return SQLITE_ERROR;
		}
		base_file = sqlite3_db_filename(db, "base");
	}
	if (main_file && base_file && !strcmp(main_file, base_file))
		rc = param_default(db, ":base_session", "SELECT max(id) FROM main.sessions WHERE id < (SELECT value FROM "
				   "temp.sqlite_parameters WHERE key = ':session')", NULL, msg, n);
	else
		rc = param_default(db, ":base_session", "SELECT max(id) FROM base.sessions", NULL, msg, n);
	if (rc != SQLITE_OK)
		return rc;
	if (sqlite3_prepare_v2(db, "SELECT value IS NULL FROM temp.sqlite_parameters WHERE key = ':base_session'", -1,
			       &st, NULL) != SQLITE_OK)
		return SQLITE_ERROR;
	rc = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc) {
		sqlite3_exec(db, "DELETE FROM temp.sqlite_parameters WHERE key = ':base_session' AND value IS NULL", NULL,
			     NULL, NULL);
		snprintf(msg, n, "no session before :session to compare with (ATTACH 'BASE.db' AS base, or "
			 ".parameter set :base_session ID)");
		return SQLITE_ERROR;
	}
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM base.sqlite_master WHERE type = 'table' AND name = 'ops'", -1, &st,
			       NULL) != SQLITE_OK) {
		snprintf(msg, n, "%s", sqlite3_errmsg(db));
		return SQLITE_ERROR;
	}
	has_ops = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS temp.base_ops; CREATE TEMP VIEW base_ops(%s) AS SELECT %s",
		 cols, has_ops ? "session_id, rowid, pid, thread_id, start_ns, end_ns, name_id, external_id FROM base.ops"
			       : "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0");
	return run_sql(db, sql, msg, n);
}

/*
 * What module text's last run depends on, into sig: the data version of main and the values of the
 * parameters its text names.
 */
static int signature(sqlite3 *db, const char *text, struct buf *sig)
{
	sqlite3_stmt *st;
	int rc;
	buf_addf(sig, "%lld", (long long)sqlext_data_version(db, "main"));
	if ((rc = sqlite3_prepare_v2(db, "SELECT key, quote(value) FROM temp.sqlite_parameters ORDER BY key", -1, &st,
				     NULL)) != SQLITE_OK)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		if (key && names_param(text, key))
			buf_addf(sig, "\n%s=%s", key, (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Whether temp.gpuprof_modules says module name ran with sig. */
static int ran_already(sqlite3 *db, const char *name, const struct buf *sig)
{
	sqlite3_stmt *st;
	int same = 0;
	if (sqlite3_prepare_v2(db, "SELECT signature = ?2 FROM temp.gpuprof_modules WHERE name = ?1", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, sig->s, (int)sig->len, SQLITE_STATIC);
		same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return same;
}

/* The 1-based line of text where the statement at s begins (after blanks and comments). */
static int line_at(const char *text, const char *s)
{
	const char *p;
	int line = 1;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (s[0] != '-' || s[1] != '-')
			break;
		while (*s && *s != '\n')
			s++;
	}
	for (p = text; p < s; p++)
		line += *p == '\n';
	return line;
}

/* Run every statement of module file's text, bound from temp.sqlite_parameters; SQLITE_OK or msg set. */
static int run_module(sqlite3 *db, const char *file, const char *text, char *msg, size_t n)
{
	const char *tail = text;
	while (tail && *tail) {
		const char *at = tail;
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(db, at, -1, &st, &tail);
		if (rc == SQLITE_OK && st && (rc = bind_params(db, st)) == SQLITE_OK)
			while ((rc = sqlite3_step(st)) == SQLITE_ROW)
				;
		if (rc != SQLITE_OK && rc != SQLITE_DONE) {
			snprintf(msg, n, "%s:%d: %s", file, line_at(text, at), sqlite3_errmsg(db));
			sqlite3_finalize(st);
			return rc;
		}
		sqlite3_finalize(st);
	}
	return SQLITE_OK;
}

/* Everything gpuprof_module(name) does (see the top of the file); SQLITE_OK, or an error with msg set. */
static int module_prepare(sqlite3 *db, const char *name, char *msg, size_t n)
{
	struct plan p;
	const char *stack[MAX_INCLUDES];
	char file[300];
	int i, rc;
	memset(&p, 0, sizeof(p));
	if (plan_add(&p, name, stack, 0)) {
		snprintf(msg, n, "%s", p.msg);
		plan_release(&p);
		return SQLITE_ERROR;
	}
	if ((rc = gpuprof_sqlite_params_table(db)) != SQLITE_OK) {
		snprintf(msg, n, "cannot make temp.sqlite_parameters: %s", sqlite3_errmsg(db));
		goto done;
	}
	if ((rc = run_sql(db, "CREATE TEMP TABLE IF NOT EXISTS name_groups(ord INTEGER PRIMARY KEY, name TEXT, "
			  "pattern TEXT); CREATE TEMP TABLE IF NOT EXISTS gpuprof_modules(name TEXT PRIMARY KEY, "
			  "signature TEXT) WITHOUT ROWID; CREATE TEMP TABLE IF NOT EXISTS gpuprof_defaults(key TEXT "
			  "PRIMARY KEY, value) WITHOUT ROWID", msg, n)) != SQLITE_OK ||
	    (rc = defaults_forget(db, msg, n)) != SQLITE_OK ||
	    (rc = common_defaults(db, msg, n)) != SQLITE_OK ||
	    (p.top.needs_baseline && (rc = baseline(db, msg, n)) != SQLITE_OK) ||
	    (rc = option_defaults(db, &p.top, module_text(name, file, sizeof(file)), msg, n)) != SQLITE_OK ||
	    (rc = file_defaults(db, &p, msg, n)) != SQLITE_OK)
		goto done;
	if (p.top.kernel_cache && (rc = run_sql(db, "SELECT gpuprof_kernel_cache(1)", msg, n)) != SQLITE_OK)
		goto done;
	/* An analysis's own statements are the caller's; a prelude asked for by name runs too. */
	for (i = 0; i < p.n - p.top.is_analysis && rc == SQLITE_OK; i++) {
		const char *text = module_text(p.names[i], file, sizeof(file));
		struct buf sig;
		buf_init(&sig);
		if ((rc = signature(db, text, &sig)) != SQLITE_OK)
			snprintf(msg, n, "%s", sqlite3_errmsg(db));
		else if (!ran_already(db, p.names[i], &sig) && (rc = run_module(db, file, text, msg, n)) == SQLITE_OK) {
			sqlite3_stmt *st;
			if ((rc = sqlite3_prepare_v2(db, "REPLACE INTO temp.gpuprof_modules VALUES (?1, ?2)", -1, &st,
						     NULL)) == SQLITE_OK) {
				sqlite3_bind_text(st, 1, p.names[i], -1, SQLITE_STATIC);
				sqlite3_bind_text(st, 2, sig.s, (int)sig.len, SQLITE_STATIC);
				rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
				sqlite3_finalize(st);
			}
			if (rc != SQLITE_OK)
				snprintf(msg, n, "%s", sqlite3_errmsg(db));
		}
		buf_release(&sig);
	}
done:
	plan_release(&p);
	return rc;
}

enum { GM_MODULE, GM_NAME };

static int gm_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	struct sqlext_vtab *v;
	int rc;
	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	if ((rc = sqlite3_declare_vtab(db, "CREATE TABLE x(_module TEXT, name HIDDEN)")) != SQLITE_OK)
		return rc;
	if (!(v = sqlite3_malloc(sizeof(*v))))
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->db = db;
	/* It writes TEMP tables and attaches: only in statements the user runs, not in views or triggers. */
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
	*out = &v->base;
	return SQLITE_OK;
}

static int gm_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	(void)v;
	return sqlext_args_best_index(ix, GM_NAME, 1, 1);
}

static int gm_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	(void)v;
	return sqlext_list_open(out, sizeof(struct sqlext_list_cursor));
}

static int gm_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int gm_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	const char *name = argc > 0 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
	char msg[1024], full[1100];
	(void)idx;
	(void)idxstr;
	((struct sqlext_list_cursor *)cur)->n = 0;
	if (!name)
		return sqlext_vt_error(cur, SQLITE_ERROR, "gpuprof_module: needs a module name");
	msg[0] = '\0';
	if (module_prepare(sqlext_vt_db(cur), name, msg, sizeof(msg)) == SQLITE_OK)
		return SQLITE_OK;
	snprintf(full, sizeof(full), "gpuprof_module: %s", msg);
	return sqlext_vt_error(cur, SQLITE_ERROR, full);
}

static int gm_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	(void)cur;
	(void)k;
	sqlite3_result_null(ctx);
	return SQLITE_OK;
}

static sqlite3_module gm_module = {
	.iVersion = 0,
	.xConnect = gm_connect,
	.xBestIndex = gm_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = gm_open,
	.xClose = gm_close,
	.xFilter = gm_filter,
	.xNext = sqlext_list_next,
	.xEof = sqlext_list_eof,
	.xColumn = gm_column,
	.xRowid = sqlext_list_rowid,
};

/*
 * gpuprof_schema_version() for the sqlite3 shell: PRAGMA user_version, or for a database from before
 * gpuprof kept it there, what meta's schema_version said (1: versions 1 to 3, told apart by the tables
 * they brought; 2: version 4). gpuprof's programs register their own (lib/db.c, the version db_open found).
 */
static void sql_schema_version(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	sqlite3_stmt *st;
	int64_t v = 0, user = 0;
	(void)argc;
	(void)argv;
	if (sqlite3_prepare_v2(db, "PRAGMA main.user_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			user = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (user > 0) {
		sqlite3_result_int64(ctx, user);
		return;
	}
	if (sqlite3_prepare_v2(db, "SELECT CAST(value AS INTEGER), (SELECT count(*) FROM main.sqlite_master WHERE "
			       "name = 'column_chunks'), (SELECT count(*) FROM main.sqlite_master WHERE name = "
			       "'overheads') FROM main.meta WHERE key = 'schema_version'", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			int64_t said = sqlite3_column_int64(st, 0);
			v = said == 1 ? (!sqlite3_column_int64(st, 1) ? 1 : !sqlite3_column_int64(st, 2) ? 2 : 3)
				      : said == 2 ? 4 : said;
		}
		sqlite3_finalize(st);
	}
	sqlite3_result_int64(ctx, v);
}

int gpuprof_sqlite_schema_version(sqlite3 *db)
{
	return sqlite3_create_function(db, "gpuprof_schema_version", 0, SQLITE_UTF8, NULL, sql_schema_version, NULL,
				       NULL);
}

int gpuprof_sqlite_module(sqlite3 *db)
{
	return sqlite3_create_module(db, "gpuprof_module", &gm_module, NULL);
}
