/*
 * script: running an analysis's SQL file statement by statement, with the options bound by name, and
 * moving result rows into tables; running an analysis (its includes, then its file) and attaching its
 * baseline.
 */
#include "analysis.h"
#include "db.h"
#include "embed.h"
#include "module.h"
#include "sqlext.h"
#include "utf8.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bind value (NULL: NULL) to parameter i: an integer or a real when the whole of it reads as one, else text. */
static void bind_value(sqlite3_stmt *st, int i, const char *value)
{
	int64_t n;
	double d;
	char *end;
	if (!value) {
		sqlite3_bind_null(st, i);
	} else if (!parse_i64(value, strlen(value), &n)) {
		sqlite3_bind_int64(st, i, n);
	} else if (*value && (d = strtod(value, &end), !*end) && isfinite(d) && !isspace((unsigned char)*value)) {
		sqlite3_bind_double(st, i, d);
	} else {
		sqlite3_bind_text(st, i, value, -1, SQLITE_STATIC);
	}
}

/*
 * A user's module's own gate (not built in: README "Your own analyses"): :GATE its value in o->params when
 * the gate was given (gpuprof-analyze puts it there), else NULL, the gate off.
 */
static void bind_gate(sqlite3_stmt *st, const struct analysis_opts *o)
{
	const char *name = o->module->gate.name, *value = NULL;
	size_t n;
	char param[160];
	int k, i;
	if (!name)
		return;
	snprintf(param, sizeof(param), ":%s", name);
	if (!(i = sqlite3_bind_parameter_index(st, param)))
		return;
	n = strlen(name);
	for (k = 0; k < o->nparams; k++)
		if (!strncmp(o->params[k], name, n) && o->params[k][n] == '=')
			value = o->params[k] + n + 1;
	bind_value(st, i, value);
}

/* o->module's own options (not built in) that st names: the last value o->params gives, else the default. */
static void bind_params(sqlite3_stmt *st, const struct analysis_opts *o)
{
	const struct module *m = o->module;
	int p, k, i;
	for (p = 0; p < m->nparams; p++) {
		const char *name = m->params[p].name, *value = m->params[p].def;
		size_t n = strlen(name);
		char param[160];
		if (analysis_builtin_option(name))
			continue;
		snprintf(param, sizeof(param), ":%s", name);
		if (!(i = sqlite3_bind_parameter_index(st, param)))
			continue;
		for (k = 0; k < o->nparams; k++)
			if (!strncmp(o->params[k], name, n) && o->params[k][n] == '=')
				value = o->params[k] + n + 1;
		bind_value(st, i, value);
	}
	bind_gate(st, o);
}

void script_bind(sqlite3_stmt *st, const struct analysis_opts *o)
{
	int i;
	if ((i = sqlite3_bind_parameter_index(st, ":session")))
		sqlite3_bind_int64(st, i, o->session);
	if ((i = sqlite3_bind_parameter_index(st, ":match")) && o->match)
		sqlite3_bind_text(st, i, o->match, -1, SQLITE_STATIC);
	if ((i = sqlite3_bind_parameter_index(st, ":exclude")) && o->exclude)
		sqlite3_bind_text(st, i, o->exclude, -1, SQLITE_STATIC);
	if ((i = sqlite3_bind_parameter_index(st, ":top")))
		sqlite3_bind_int(st, i, o->top > 0 ? o->top : -1);
	if ((i = sqlite3_bind_parameter_index(st, ":short")))
		sqlite3_bind_int(st, i, o->short_names != 0);
	if ((i = sqlite3_bind_parameter_index(st, ":folded")))
		sqlite3_bind_int(st, i, o->short_names || o->ngroups > 0);
	if ((i = sqlite3_bind_parameter_index(st, ":base_session")))
		sqlite3_bind_int64(st, i, o->base_session);
	if ((i = sqlite3_bind_parameter_index(st, ":threshold")))
		sqlite3_bind_double(st, i, o->threshold);
	if ((i = sqlite3_bind_parameter_index(st, ":threshold_given")))
		sqlite3_bind_int(st, i, o->threshold_given);
	if ((i = sqlite3_bind_parameter_index(st, ":min_delta")))
		sqlite3_bind_int64(st, i, o->min_delta);
	if ((i = sqlite3_bind_parameter_index(st, ":min_calls")))
		sqlite3_bind_int64(st, i, o->min_calls);
	if ((i = sqlite3_bind_parameter_index(st, ":limit")))
		sqlite3_bind_int64(st, i, o->limit);
	if ((i = sqlite3_bind_parameter_index(st, ":by_shape")))
		sqlite3_bind_int(st, i, o->by_shape != 0);
	if ((i = sqlite3_bind_parameter_index(st, ":fold_backward")))
		sqlite3_bind_int(st, i, o->fold_backward != 0);
	if ((i = sqlite3_bind_parameter_index(st, ":carbon_intensity")) && o->carbon_given)
		sqlite3_bind_double(st, i, o->carbon_intensity);
	if ((i = sqlite3_bind_parameter_index(st, ":stall_reasons")))
		sqlite3_bind_text(st, i, embed_get("analyze/stall-reasons.txt"), -1, SQLITE_STATIC);
	if (o->module)
		bind_params(st, o);
}

/* What script_run read of the data files (sqlext_data_files), once each. */
#define NDATA_FILES 8
struct data_texts {
	struct buf text[NDATA_FILES];
	const char *file[NDATA_FILES];	/* NULL: not read yet */
};

/* Bind the data files st names (:class_rules, :gpu_peaks and their _file), read once into d; 0 or -1. */
static int script_bind_files(sqlite3_stmt *st, struct data_texts *d)
{
	const struct sqlext_data_file *f;
	size_t k;
	for (f = sqlext_data_files, k = 0; f->param && k < NDATA_FILES; f++, k++) {
		int i = sqlite3_bind_parameter_index(st, f->param);
		int j = f->file_param ? sqlite3_bind_parameter_index(st, f->file_param) : 0;
		char msg[512];
		if (!f->env || (!i && !j))
			continue;	/* (one without a file of its own: script_bind's) */
		if (!d->file[k] && sqlext_data_file_read(f, &d->text[k], &d->file[k], msg, sizeof(msg)))
			return error("%s", msg);
		if (i)
			sqlite3_bind_text(st, i, d->text[k].s, (int)d->text[k].len, SQLITE_STATIC);
		if (j)
			sqlite3_bind_text(st, j, d->file[k], -1, SQLITE_STATIC);
	}
	return 0;
}

/*
 * The parameters gpuprof-analyze binds, as gpuprof_module finds them in temp.sqlite_parameters: written
 * there before the module statement runs, so that it defaults none of them and the modules it includes
 * see these values.
 */
static const char publish_sql[] =
	"REPLACE INTO temp.sqlite_parameters(key, value) VALUES (':session', :session), (':match', :match), "
	"(':exclude', :exclude), (':top', :top), (':short', :short), (':folded', :folded), "
	"(':base_session', :base_session), (':threshold', :threshold), (':threshold_given', :threshold_given), "
	"(':min_delta', :min_delta), (':min_calls', :min_calls), (':limit', :limit), (':by_shape', :by_shape), "
	"(':fold_backward', :fold_backward), (':carbon_intensity', :carbon_intensity), "
	"(':stall_reasons', :stall_reasons), (':class_rules', :class_rules), "
	"(':class_rules_file', :class_rules_file), (':gpu_peaks', :gpu_peaks), (':gpu_peaks_file', :gpu_peaks_file)";

/* Write o's bindings into temp.sqlite_parameters (publish_sql); 0, or -1 with a message. */
static int publish(sqlite3 *db, const struct analysis_opts *o, struct data_texts *d)
{
	sqlite3_stmt *st;
	int rc;
	if (gpuprof_sqlite_params_table(db) != SQLITE_OK || sqlite3_prepare_v2(db, publish_sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(db);
	script_bind(st, o);
	if (script_bind_files(st, d)) {
		sqlite3_finalize(st);
		return -1;
	}
	rc = sqlite3_step(st);
	if (o->base_session == 0 && rc == SQLITE_DONE)	/* none: gpuprof_module's default */
		rc = sqlite3_exec(db, "DELETE FROM temp.sqlite_parameters WHERE key = ':base_session'", NULL, NULL,
				  NULL) == SQLITE_OK ? SQLITE_DONE : SQLITE_ERROR;
	if (rc != SQLITE_DONE)
		return step_error(st);
	sqlite3_finalize(st);
	/* None of them is a default gpuprof_module put there and may compute again (absent the first time). */
	sqlite3_exec(db, "DELETE FROM temp.gpuprof_defaults", NULL, NULL, NULL);
	return 0;
}

/* Whether st is the module statement (`SELECT * FROM gpuprof_module('NAME')`: one result column `_module`). */
static int is_module(sqlite3_stmt *st)
{
	return sqlite3_column_count(st) == 1 && !strcmp(sqlite3_column_name(st, 0), "_module");
}

/* temp.name_groups: o's --group NAME=RE options, in order. */
static int groups_fill(sqlite3 *db, const struct analysis_opts *o)
{
	sqlite3_stmt *st;
	int g, rc = SQLITE_DONE;
	if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS name_groups(ord INTEGER PRIMARY KEY, name TEXT, "
			 "pattern TEXT); DELETE FROM temp.name_groups", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO temp.name_groups VALUES (?1, ?2, ?3)", -1, &st, NULL) != SQLITE_OK)
		return db_error(db);
	for (g = 0; g < o->ngroups && rc == SQLITE_DONE; g++) {
		const char *eq = strchr(o->groups[g], '=');
		sqlite3_bind_int(st, 1, g);
		sqlite3_bind_text(st, 2, o->groups[g], (int)(eq - o->groups[g]), SQLITE_STATIC);
		sqlite3_bind_text(st, 3, eq + 1, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(db);
}

/* Copy cell c into row r, column col of t (of the same kind of column). */
static void cell_copy(struct table *t, size_t r, int col, const struct cell *c)
{
	if (c->null)
		return;
	if (t->cols[col].type == C_TEXT)
		table_set_text(t, r, col, c->s);
	else if (c->is_real)
		table_set_real(t, r, col, c->d);
	else
		table_set_int(t, r, col, c->i);
}

/* Whether rows a and b of t agree in columns 0..n-1. */
static int rows_equal(struct table *t, size_t a, size_t b, int n)
{
	int c;
	for (c = 0; c < n; c++) {
		const struct cell *x = table_cell(t, a, c), *y = table_cell(t, b, c);
		if (x->null != y->null || (!x->null && (t->cols[c].type == C_TEXT ? strcmp(x->s, y->s) :
							x->is_real != y->is_real || x->i != y->i || x->d != y->d)))
			return 0;
	}
	return 1;
}

/*
 * The cells of `raw` (spec's columns, then _pivot and _value, one row per cell) laid out into t (empty,
 * no columns yet) as struct table_spec's pivot says.
 */
static void pivot_layout(struct table *t, struct table *raw, const struct table_spec *spec)
{
	int n = spec->ncols, np = 0, c, at = spec->pivot_at;
	char **titles = NULL;
	size_t r, row = 0;
	for (r = 0; r < raw->nrows; r++) {
		const struct cell *p = table_cell(raw, r, n);
		for (c = 0; !p->null && c < np && strcmp(titles[c], p->s); c++)
			;
		if (!p->null && c == np) {
			titles = xrealloc(titles, (size_t)(np + 1) * sizeof(*titles));
			titles[np++] = p->s;
		}
	}
	table_cols(t, spec->cols, at);
	for (c = 0; c < np; c++) {
		struct buf key;
		buf_init(&key);
		buf_addf(&key, "%s%s", titles[c], spec->pivot->key);
		table_col(t, key.s, titles[c], spec->pivot->type);
		buf_release(&key);
	}
	table_cols(t, spec->cols + at, n - at);
	for (r = 0; r < raw->nrows; r++) {
		const struct cell *p = table_cell(raw, r, n);
		if (!r || !rows_equal(raw, r, r - 1, n)) {
			row = table_row(t);
			for (c = 0; c < n; c++)
				cell_copy(t, row, c < at ? c : c + np, table_cell(raw, r, c));
		}
		for (c = 0; !p->null && c < np; c++)
			if (!strcmp(titles[c], p->s))
				cell_copy(t, row, at + c, table_cell(raw, r, n + 1));
	}
	free(titles);
}

/* What a heading statement (result columns `_title`, `_note`) gives the next table; owned. */
struct heading {
	char *title, *note;
};

static void heading_release(struct heading *h)
{
	free(h->title);
	free(h->note);
	h->title = h->note = NULL;
}

/* Whether st is a heading statement: every result column is `_title` or `_note`. */
static int is_heading(sqlite3_stmt *st)
{
	int c;
	for (c = 0; c < sqlite3_column_count(st); c++)
		if (strcmp(sqlite3_column_name(st, c), "_title") && strcmp(sqlite3_column_name(st, c), "_note"))
			return 0;
	return 1;
}

/* Step heading statement st into *h (its first row; NULLs leave a part unset) and finalize it. */
static int heading_read(sqlite3_stmt *st, struct heading *h)
{
	int rc = sqlite3_step(st), c;
	heading_release(h);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return step_error(st);
	for (c = 0; rc == SQLITE_ROW && c < sqlite3_column_count(st); c++) {
		char **to = strcmp(sqlite3_column_name(st, c), "_title") ? &h->note : &h->title;
		if (sqlite3_column_type(st, c) != SQLITE_NULL) {
			free(*to);
			*to = xstrdup((const char *)sqlite3_column_text(st, c));
		}
	}
	sqlite3_finalize(st);
	return 0;
}

/* Whether column col is NULL in every row of t. */
static int all_null(const struct table *t, int col)
{
	size_t r;
	for (r = 0; r < t->nrows && t->cells[r * (size_t)t->ncols + (size_t)col].null; r++)
		;
	return r == t->nrows;
}

/*
 * Result rows of st into a new table of spec, with h's title and note (else spec's title, and the note of
 * the rows' `_note` column); the columns' keys must be spec's (then `_note`).
 */
static int fill_table(sqlite3_stmt *st, const struct table_spec *spec, const struct heading *h, struct tables *out)
{
	struct table *t = table_new(spec->name, h->title ? h->title : spec->title), *raw = t;
	int ncol = sqlite3_column_count(st), note = -1, footer = -1, c, rc, nkeys = spec->ncols + (spec->pivot ? 2 : 0);
	int group_null = 1, fail = -1, fail_col = -1;
	static const struct colspec pivot_cols[] = { { "_pivot", "", C_TEXT, 0 }, { "_value", "", C_REAL, 0 } };
	tables_add(out, t);
	if (spec->pivot) {
		raw = table_new(spec->name, spec->title);
		table_cols(raw, spec->cols, spec->ncols);
		table_col(raw, "_pivot", "", C_TEXT);
		table_col(raw, "_value", "", spec->pivot->type);
	} else {
		table_cols(t, spec->cols, spec->ncols);
	}
	t->vertical = spec->vertical;
	if (h->note)
		t->note = utf8_dup(h->note, NULL);
	for (c = 0; c < ncol; c++) {
		const char *key = sqlite3_column_name(st, c);
		const char *want = c < spec->ncols ? spec->cols[c].key : c < nkeys ? pivot_cols[c - spec->ncols].key : "_note";
		if (c == nkeys && !strcmp(key, "_note"))
			note = c;
		else if (c >= nkeys && c <= nkeys + 1 && !strcmp(key, "_footer"))
			footer = c;
		else if (c >= nkeys && !spec->pivot && !strcmp(key, "_fail"))	/* a user gate's verdict */
			fail = c;
		else if (c >= nkeys || strcmp(key, want)) {
			error("internal: %s: result column %d is '%s', not '%s'", spec->name, c + 1, key, want);
			sqlite3_finalize(st);
			if (raw != t)
				table_free(raw);
			return -1;
		}
	}
	if (ncol < nkeys) {
		sqlite3_finalize(st);
		if (raw != t)
			table_free(raw);
		return error("internal: %s: %d result columns for %d", spec->name, ncol, nkeys);
	}
	if (fail >= 0)
		fail_col = table_col(t, "_fail", "Fail", C_INT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t row = table_row(raw);
		cells_from_row(raw, row, 0, st, nkeys);
		if (fail >= 0 && sqlite3_column_type(st, fail) != SQLITE_NULL)
			table_set_int(t, row, fail_col, sqlite3_column_int64(st, fail));
		if (note >= 0 && !t->note && sqlite3_column_type(st, note) != SQLITE_NULL)
			t->note = utf8_dup((const char *)sqlite3_column_text(st, note), NULL);
		if (footer >= 0 && !t->footer && sqlite3_column_type(st, footer) != SQLITE_NULL)
			t->footer = utf8_dup((const char *)sqlite3_column_text(st, footer), NULL);
	}
	if (raw != t) {
		pivot_layout(t, raw, spec);
		table_free(raw);
	}
	if (rc != SQLITE_DONE)
		return step_error(st);
	sqlite3_finalize(st);
	/* Whether every C_HIDE_GROUP column is NULL in every row (then they all go), then each column. */
	for (c = 0; c < spec->ncols && group_null; c++)
		if (spec->cols[c].flags & C_HIDE_GROUP)
			group_null = all_null(t, spec->pivot && c >= spec->pivot_at ? c + t->ncols - spec->ncols : c);
	for (c = spec->ncols - 1; c >= 0; c--) {
		/* Declared column c's place: after the pivot columns from pivot_at on. */
		int at = spec->pivot && c >= spec->pivot_at ? c + t->ncols - spec->ncols : c;
		if (spec->cols[c].flags & C_HIDE_GROUP ? group_null : spec->cols[c].flags & C_HIDE_NULL && all_null(t, at))
			table_drop_col(t, at);
	}
	return 0;
}

/* Where the statement at p begins in earnest: past spaces and comments. */
static const char *stmt_start(const char *p)
{
	for (;;) {
		p += strspn(p, " \t\r\n");
		if (p[0] == '-' && p[1] == '-')
			p += strcspn(p, "\n");
		else if (p[0] == '/' && p[1] == '*' && strstr(p + 2, "*/"))
			p = strstr(p + 2, "*/") + 2;
		else
			return p;
	}
}

/*
 * The failure of the statement at `at` of file's text `text`: "FILE:LINE: SQLite's message", unless it
 * was the system's (I/O, memory: db_error's message). -1.
 */
static int file_error(sqlite3 *db, const char *file, const char *text, const char *at)
{
	const char *p;
	int line = 1;
	if (db_system_error(sqlite3_extended_errcode(db)))
		return db_error(db);
	for (p = text; p < at; p++)
		line += *p == '\n';
	return error("%s:%d: %s", file, line, sqlite3_errmsg(db));
}

/* Whether result column c of st is a trailing `_note` or `_footer` (after every other column). */
static int is_trailer(sqlite3_stmt *st, int c)
{
	const char *key = sqlite3_column_name(st, c);
	return !strcmp(key, "_note") || !strcmp(key, "_footer");
}

/*
 * Result rows of st into a new table named name of open spec (struct table_spec.open): its columns are
 * st's, typed by spec's declarations, their names, else their values.
 */
static int fill_open(sqlite3_stmt *st, const struct table_spec *spec, const char *name, const struct heading *h,
		     struct tables *out)
{
	int ncol = sqlite3_column_count(st), nkeys = ncol, c, rc, group_null = 1;
	int note = -1, footer = -1;
	struct colspec *cols;
	char **titles;
	unsigned char *guess;	/* per column: 1 its kind comes from its values; 2 a real seen, 4 text, 8 a value */
	struct table *t = table_new(name, h->title ? h->title : spec->title);
	tables_add(out, t);
	while (nkeys > 0 && is_trailer(st, nkeys - 1) && ncol - nkeys < 2)
		nkeys--;
	for (c = nkeys; c < ncol; c++)
		*(strcmp(sqlite3_column_name(st, c), "_note") ? &footer : &note) = c;
	cols = xcalloc((size_t)nkeys + 1, sizeof(*cols));
	titles = xcalloc((size_t)nkeys + 1, sizeof(*titles));
	guess = xcalloc((size_t)nkeys + 1, 1);
	for (c = 0; c < nkeys; c++) {
		const char *key = sqlite3_column_name(st, c);
		int d, k;
		for (d = 0; d < spec->ncols && strcmp(spec->cols[d].key, key); d++)
			;
		if (d < spec->ncols) {
			cols[c] = spec->cols[d];
			continue;
		}
		cols[c].key = key;
		cols[c].title = titles[c] = module_default_title(key);
		k = module_kind_from_name(key);
		cols[c].type = k >= 0 ? (enum col_type)k : C_TEXT;
		guess[c] = k < 0;
	}
	table_cols(t, cols, nkeys);
	t->vertical = spec->vertical;
	if (h->note)
		t->note = utf8_dup(h->note, NULL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t r = table_row(t);
		/* The guessed columns' values as numbers too, read before cells_from_row reads them as text. */
		for (c = 0; c < nkeys; c++) {
			int type = sqlite3_column_type(st, c);
			if (!(guess[c] & 1) || type == SQLITE_NULL)
				continue;
			guess[c] |= 8 | (type == SQLITE_FLOAT ? 2 : type == SQLITE_INTEGER ? 0 : 4);
			if (type == SQLITE_INTEGER)
				table_set_int(t, r, c, sqlite3_column_int64(st, c));
			else if (type == SQLITE_FLOAT)
				table_set_real(t, r, c, sqlite3_column_double(st, c));
		}
		cells_from_row(t, r, 0, st, nkeys);	/* (text cells keep the number set before) */
		if (note >= 0 && !t->note && sqlite3_column_type(st, note) != SQLITE_NULL)
			t->note = utf8_dup((const char *)sqlite3_column_text(st, note), NULL);
		if (footer >= 0 && !t->footer && sqlite3_column_type(st, footer) != SQLITE_NULL)
			t->footer = utf8_dup((const char *)sqlite3_column_text(st, footer), NULL);
	}
	/* Columns all of whose values are numbers become numbers: C_REAL with a real among them, else C_INT. */
	for (c = 0; c < nkeys; c++) {
		size_t r;
		if ((guess[c] & 1) && (guess[c] & 8) && !(guess[c] & 4)) {
			t->cols[c].type = guess[c] & 2 ? C_REAL : C_INT;
			for (r = 0; r < t->nrows; r++) {
				struct cell *x = table_cell(t, r, c);
				free(x->s);
				x->s = NULL;
				if (x->null)
					continue;
				if (guess[c] & 2 && !x->is_real) {
					x->d = (double)x->i;
					x->is_real = 1;
				}
				x->null = x->is_real && !isfinite(x->d);
			}
		}
	}
	for (c = 0; c < nkeys; c++)
		free(titles[c]);
	free(titles);
	free(guess);
	if (rc != SQLITE_DONE) {
		free(cols);
		return step_error(st);
	}
	sqlite3_finalize(st);
	for (c = 0; c < nkeys && group_null; c++)
		if (cols[c].flags & C_HIDE_GROUP)
			group_null = all_null(t, c);
	for (c = nkeys - 1; c >= 0; c--)
		if (cols[c].flags & C_HIDE_GROUP ? group_null : cols[c].flags & C_HIDE_NULL && all_null(t, c))
			table_drop_col(t, c);
	free(cols);
	return 0;
}

/*
 * script_run's work: with file (whose whole text is sql), a statement that fails says FILE:LINE.
 */
static int run(sqlite3 *db, const char *sql, const char *file, const struct analysis_opts *o,
	       const struct table_spec *tables, int n, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct data_texts files;
	struct heading h = { NULL, NULL };	/* the next table's */
	int made = 0, status = -1;
	size_t k;
	if (groups_fill(db, o))
		return -1;
	memset(&files, 0, sizeof(files));
	for (k = 0; k < NDATA_FILES; k++)
		buf_init(&files.text[k]);
	for (;;) {
		sqlite3_stmt *st = NULL;
		const char *at = NULL;	/* where the statement begins */
		while (!st && sc.tail && *sc.tail) {
			at = stmt_start(sc.tail);
			if (sqlite3_prepare_v2(db, sc.tail, -1, &st, &sc.tail) != SQLITE_OK) {
				if (file)
					file_error(db, file, sql, at);
				else
					db_error(db);
				goto done;
			}
		}
		if (!st)
			break;
		script_bind(st, o);
		if (script_bind_files(st, &files)) {
			sqlite3_finalize(st);
			goto done;
		}
		if (is_module(st)) {
			int rc;
			if (publish(db, o, &files)) {
				sqlite3_finalize(st);
				goto done;
			}
			while ((rc = sqlite3_step(st)) == SQLITE_ROW)
				;
			if (rc != SQLITE_DONE) {
				step_error(st);
				goto done;
			}
			sqlite3_finalize(st);
		} else if (!sqlite3_column_count(st)) {
			int rc = sqlite3_step(st);
			if (rc != SQLITE_DONE) {
				if (file) {
					file_error(db, file, sql, at);
					sqlite3_finalize(st);
				} else {
					step_error(st);
				}
				goto done;
			}
			sqlite3_finalize(st);
		} else if (is_heading(st)) {
			if (heading_read(st, &h))
				goto done;
		} else if (n && tables[n - 1].open && made >= n - 1) {
			/* An open spec: this statement's table, and every further one's (name, name_2, ...). */
			struct buf name;
			int rc;
			buf_init(&name);
			buf_addstr(&name, tables[n - 1].name);
			if (made >= n)
				buf_addf(&name, "_%d", made - n + 2);
			made++;
			rc = fill_open(st, &tables[n - 1], name.s, &h, out);
			buf_release(&name);
			heading_release(&h);
			if (rc)
				goto done;
		} else if (made == n) {
			sqlite3_finalize(st);
			error("internal: analysis SQL has more result statements than its %d tables", n);
			goto done;
		} else {
			int rc = fill_table(st, &tables[made++], &h, out);
			heading_release(&h);
			if (rc)
				goto done;
		}
	}
	status = made == n || (n && tables[n - 1].open && made >= n - 1) ? 0 :
		 error("internal: analysis SQL fills %d of its %d tables", made, n);
done:
	heading_release(&h);
	for (k = 0; k < NDATA_FILES; k++)
		buf_release(&files.text[k]);
	return status;
}

int script_run(sqlite3 *db, const char *sql, const struct analysis_opts *o, const struct table_spec *tables,
	       int n, struct tables *out)
{
	return run(db, sql, NULL, o, tables, n, out);
}

int script_run_file(sqlite3 *db, const char *sql, const char *file, const struct analysis_opts *o,
		    const struct table_spec *tables, int n, struct tables *out)
{
	return run(db, sql, file, o, tables, n, out);
}

int step_error(sqlite3_stmt *st)
{
	db_error(sqlite3_db_handle(st));
	sqlite3_finalize(st);
	return -1;
}

void cells_from_row(struct table *t, size_t r, int first, sqlite3_stmt *st, int n)
{
	int c;
	for (c = 0; c < n; c++) {
		if (sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		if (t->cols[first + c].type == C_TEXT)
			table_set_text(t, r, first + c, (const char *)sqlite3_column_text(st, c));
		else if (sqlite3_column_type(st, c) == SQLITE_FLOAT)
			table_set_real(t, r, first + c, sqlite3_column_double(st, c));
		else
			table_set_int(t, r, first + c, sqlite3_column_int64(st, c));
	}
}


/* The session before `session` in db, the default baseline, into *base; 0, or -1 with a message. */
static int default_base(sqlite3 *db, int64_t session, int64_t *base)
{
	sqlite3_stmt *st;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT max(id) FROM sessions WHERE id < ?", -1, &st, NULL) != SQLITE_OK)
		return db_error(db);
	sqlite3_bind_int64(st, 1, session);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*base = sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		error("compare: no session before session %lld to compare with (give --baseline or --base-session)",
		      (long long)session);
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The TEMP view base_ops that compare.sql reads the baseline's ops through: base.ops with its rowid as id,
 * or no rows when the baseline predates them (schema version 5 and older). 0, or -1 with a message.
 */
static int base_ops_view(sqlite3 *db)
{
	static const char cols[] = "session_id, id, pid, thread_id, start_ns, end_ns, name_id, external_id";
	char sql[512];
	sqlite3_stmt *st;
	int has = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM base.sqlite_master WHERE type = 'table' AND name = 'ops'", -1, &st,
			       NULL) != SQLITE_OK)
		return db_error(db);
	has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	if (has)
		snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS temp.base_ops; CREATE TEMP VIEW base_ops(%s) AS SELECT "
			 "session_id, rowid, pid, thread_id, start_ns, end_ns, name_id, external_id FROM base.ops", cols);
	else
		snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS temp.base_ops; CREATE TEMP VIEW base_ops(%s) AS SELECT "
			 "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0", cols);
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : db_error(db);
}

/* Attach file to db as schema `base` (again, when it is). 0, or -1 with a message. */
static int attach_base(sqlite3 *db, const char *file)
{
	sqlite3_stmt *st;
	int rc;
	sqlite3_exec(db, "DETACH DATABASE base", NULL, NULL, NULL);	/* an earlier baseline's, if any */
	if (sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS base", -1, &st, NULL) != SQLITE_OK)
		return db_error(db);
	sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("cannot attach the baseline '%s': %s", file, sqlite3_errmsg(db));
	return base_ops_view(db);
}

int analysis_baseline(sqlite3 *db, struct analysis_opts *o)
{
	const char *file = o->baseline;
	if (o->baseline) {
		if (!(o->base_db = db_open(o->baseline, DB_READ)) ||
		    db_session(o->base_db, o->base_id, &o->base_session))
			return -1;
	} else if (o->base_id ? db_session(db, o->base_id, &o->base_session)
			      : default_base(db, o->session, &o->base_session)) {
		return -1;
	}
	if (!file && !(file = sqlite3_db_filename(db, "main")))
		return error("compare: the database has no file to read the baseline from");
	return attach_base(db, file);
}


/*
 * Whether text's first statement is the module statement, `SELECT * FROM gpuprof_module('NAME');` (every
 * shipped analysis's), which runs its includes itself (analyze/ext/sqlext_module.c).
 */
static int runs_includes(const char *text)
{
	static const char stmt[] = "SELECT * FROM gpuprof_module(";
	const char *s = text;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (s[0] != '-' || s[1] != '-')
			return !strncmp(s, stmt, sizeof(stmt) - 1);
		while (*s && *s != '\n')
			s++;
	}
}

int analysis_run(sqlite3 *db, const struct analysis *a, const struct analysis_opts *o, struct tables *out)
{
	struct analysis_opts mo = *o;
	int i;
	mo.module = a->module;
	for (i = 0; i < a->nincludes && !runs_includes(a->text); i++)
		if (script_run(db, a->includes[i].text, &mo, NULL, 0, out))
			return -1;
	if (a->user)	/* its mistakes are the user's: FILE:LINE */
		return script_run_file(db, a->text, a->sql, &mo, a->tables, a->ntables, out);
	return script_run(db, a->text, &mo, a->tables, a->ntables, out);
}

int analysis_add_group(struct analysis_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return error("--group needs NAME=REGEX, not '%s'", arg);
	if (db_regex_check(eq + 1))
		return -1;
	o->groups = xrealloc(o->groups, (size_t)(o->ngroups + 1) * sizeof(*o->groups));
	o->groups[o->ngroups++] = arg;
	return 0;
}

