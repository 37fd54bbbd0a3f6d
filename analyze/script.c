/*
 * script: running an analysis's SQL file statement by statement, with the options bound by name, and
 * moving result rows into tables.
 */
#include "analysis.h"
#include "db.h"
#include "embed.h"
#include "module.h"
#include "utf8.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parameters script_bind binds (and script_run's data files): a user's option of one of these names
   is gpuprof's own. */
static const char *const bound_names[] = {
	"session", "match", "exclude", "top", "short", "folded", "base_session", "threshold", "threshold_given",
	"min_delta", "min_calls", "limit", "by_shape", "fold_backward", "carbon_intensity", "stall_reasons",
	"class_rules", "class_rules_file", "gpu_peaks", "gpu_peaks_file",
};

int script_binds(const char *name)
{
	size_t i;
	for (i = 0; i < sizeof(bound_names) / sizeof(bound_names[0]); i++)
		if (!strcmp(bound_names[i], name))
			return 1;
	return 0;
}

/* Bind v at i: an integer if it is one, a real if it is a (finite) number, else text; NULL as NULL. */
static void bind_value(sqlite3_stmt *st, int i, const char *v)
{
	int64_t n;
	double d;
	char *end;
	if (!v)
		sqlite3_bind_null(st, i);
	else if (!parse_i64(v, strlen(v), &n))
		sqlite3_bind_int64(st, i, n);
	else if (strchr("+-.0123456789", *v) && *v && (d = strtod(v, &end), !*end) && isfinite(d))
		sqlite3_bind_double(st, i, d);
	else
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

void script_bind(sqlite3_stmt *st, const struct analysis_opts *o)
{
	char name[256];
	int i;
	for (i = 0; i < o->nparams; i++) {
		int at;
		snprintf(name, sizeof(name), ":%s", o->params[i].name);
		if ((at = sqlite3_bind_parameter_index(st, name)))
			bind_value(st, at, o->params[i].value);
	}
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
}

/*
 * The data files analyses read as text, bound by name: :PARAM (the text) and :PARAM_file (its name, for
 * messages), from the file the environment variable names, else the built-in one.
 */
static const struct data_file {
	const char *param;	/* ":class_rules" */
	const char *file_param;	/* ":class_rules_file" */
	const char *env;	/* GPUPROF_CLASS_RULES */
	const char *embedded;	/* analyze/kernel-classes.rules */
	const char *what;	/* for messages: "class rules" */
} data_files[] = {
	{ ":class_rules", ":class_rules_file", "GPUPROF_CLASS_RULES", "analyze/kernel-classes.rules", "class rules" },
	{ ":gpu_peaks", ":gpu_peaks_file", "GPUPROF_GPU_PEAKS", "analyze/gpu-peaks.rules", "GPU peaks" },
};
#define NDATA_FILES (sizeof(data_files) / sizeof(data_files[0]))

/* What script_run read of the data files, once each. */
struct data_texts {
	struct buf text[NDATA_FILES];
	const char *file[NDATA_FILES];	/* NULL: not read yet */
};

/* Data file f's text into b and its name into *file: the file f->env names, else the built-in one; 0, or -1. */
static int data_file_read(const struct data_file *f, struct buf *b, const char **file)
{
	const char *path = getenv(f->env);
	char chunk[8192];
	size_t n;
	FILE *in;
	if (!path || !*path) {
		const char *text = embed_get(f->embedded);
		if (!text)
			return error("internal: no embedded %s", f->embedded);
		buf_addstr(b, text);
		*file = f->embedded;
		return 0;
	}
	if (!(in = fopen(path, "rb")))
		return error("cannot read %s '%s' (%s): %s", f->what, path, f->env, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		buf_add(b, chunk, n);
	if (ferror(in) || memchr(b->s, '\0', b->len)) {
		int bad_nul = !ferror(in);
		fclose(in);
		return error("cannot read %s '%s' (%s): %s", f->what, path, f->env,
			     bad_nul ? "not a text file" : "read error");
	}
	fclose(in);
	*file = path;
	return 0;
}

/* Bind the data files st names beyond script_bind's (:class_rules, :gpu_peaks), read once into d; 0 or -1. */
static int script_bind_files(sqlite3_stmt *st, struct data_texts *d)
{
	size_t k;
	for (k = 0; k < NDATA_FILES; k++) {
		const struct data_file *f = &data_files[k];
		int i = sqlite3_bind_parameter_index(st, f->param), j = sqlite3_bind_parameter_index(st, f->file_param);
		if (!i && !j)
			continue;
		if (!d->file[k] && data_file_read(f, &d->text[k], &d->file[k]))
			return -1;
		if (i)
			sqlite3_bind_text(st, i, d->text[k].s, (int)d->text[k].len, SQLITE_STATIC);
		if (j)
			sqlite3_bind_text(st, j, d->file[k], -1, SQLITE_STATIC);
	}
	return 0;
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
 * The failure of the statement at `at` of a user's module m (whole text `text`): "FILE:LINE: message",
 * unless it was the system's (I/O, memory: db_error's message). -1.
 */
static int module_error(sqlite3 *db, const struct module *m, const char *text, const char *at)
{
	const char *p;
	int line = 1;
	if (db_system_error(sqlite3_extended_errcode(db)))
		return db_error(db);
	for (p = text; p < at; p++)
		line += *p == '\n';
	return error("%s:%d: %s", m->file, line, sqlite3_errmsg(db));
}

/* A user's module's undeclared column, its kind told by its values: whether any was text, any a real. */
struct guess {
	int text, real;
};

/*
 * Result rows of st into a new table named name, titled title (or h's), its columns the result columns:
 * kinds from m's column lines, their names, else their values (struct guess). `_note` and `_footer` as
 * fill_table takes them; `_fail` an int column.
 */
static int fill_module_table(sqlite3_stmt *st, const struct module *m, const char *name, const char *title,
			     const struct heading *h, struct tables *out)
{
	struct table *t = table_new(name, h->title ? h->title : title);
	int ncol = sqlite3_column_count(st), c, k, rc, note = -1, footer = -1;
	int *col = xcalloc((size_t)ncol, sizeof(*col));	/* result column c's table column, -1 none */
	struct guess *g = xcalloc((size_t)ncol, sizeof(*g));
	int *guessed = xcalloc((size_t)ncol, sizeof(*guessed));
	tables_add(out, t);
	if (h->note)
		t->note = utf8_dup(h->note, NULL);
	for (c = 0; c < ncol; c++) {
		const char *key = sqlite3_column_name(st, c);
		int type = -1;
		char *made = NULL;
		const char *ctitle = NULL;
		col[c] = -1;
		if (!strcmp(key, "_note") || !strcmp(key, "_footer")) {
			*(key[1] == 'n' ? &note : &footer) = c;
			continue;
		}
		for (k = 0; k < m->ncolumns; k++)
			if (!strcmp(m->columns[k].key, key)) {
				type = (int)m->columns[k].type;
				ctitle = m->columns[k].title;
			}
		if (!strcmp(key, "_fail"))
			type = C_INT;
		if (type < 0 && (type = module_kind_from_name(key)) < 0) {
			type = C_REAL;
			guessed[c] = 1;
		}
		if (!ctitle)
			ctitle = made = module_default_title(key);
		col[c] = table_col(t, key, ctitle, (enum col_type)type);
		free(made);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t r = table_row(t);
		for (c = 0; c < ncol; c++) {
			int kind = sqlite3_column_type(st, c);
			if (c == note && !t->note && kind != SQLITE_NULL)
				t->note = utf8_dup((const char *)sqlite3_column_text(st, c), NULL);
			if (c == footer && !t->footer && kind != SQLITE_NULL)
				t->footer = utf8_dup((const char *)sqlite3_column_text(st, c), NULL);
			if (col[c] < 0 || kind == SQLITE_NULL)
				continue;
			if (guessed[c]) {
				/* Kept both ways until the column's kind is known: text in s, the number in i/d. */
				struct cell *cell = table_cell(t, r, col[c]);
				g[c].text |= kind == SQLITE_TEXT || kind == SQLITE_BLOB;
				g[c].real |= kind == SQLITE_FLOAT;
				if (kind == SQLITE_FLOAT)
					table_set_real(t, r, col[c], sqlite3_column_double(st, c));
				else
					table_set_int(t, r, col[c], sqlite3_column_int64(st, c));
				cell->null = 0;
				cell->s = utf8_dup((const char *)sqlite3_column_text(st, c), NULL);
			} else if (t->cols[col[c]].type == C_TEXT) {
				table_set_text(t, r, col[c], (const char *)sqlite3_column_text(st, c));
			} else if (kind == SQLITE_FLOAT) {
				table_set_real(t, r, col[c], sqlite3_column_double(st, c));
			} else {
				table_set_int(t, r, col[c], sqlite3_column_int64(st, c));
			}
		}
	}
	/* The guessed columns: text when any value was, else numbers (without their text). */
	for (c = 0; c < ncol; c++) {
		size_t r;
		if (!guessed[c])
			continue;
		t->cols[col[c]].type = g[c].text ? C_TEXT : g[c].real ? C_REAL : C_INT;
		for (r = 0; !g[c].text && r < t->nrows; r++) {
			struct cell *cell = table_cell(t, r, col[c]);
			free(cell->s);
			cell->s = NULL;
		}
	}
	free(col);
	free(g);
	free(guessed);
	if (rc != SQLITE_DONE)
		return -1;	/* the caller says why */
	sqlite3_finalize(st);
	return 0;
}

/*
 * script_run's work: with m (a user's module, whose whole file is sql), statements that fail say
 * FILE:LINE, and with n == 0 each result statement makes a table of its own.
 */
static int run(sqlite3 *db, const char *sql, const struct module *m, const struct analysis_opts *o,
	       const struct table_spec *tables, int n, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct data_texts files;
	struct heading h = { NULL, NULL };	/* the next table's */
	int made = 0, status = -1, own = m && !n;
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
				if (m)
					module_error(db, m, sql, at);
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
		if (!sqlite3_column_count(st)) {
			int rc = sqlite3_step(st);
			if (rc != SQLITE_DONE) {
				if (m) {
					module_error(db, m, sql, at);
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
		} else if (own) {
			char name[256];
			int rc;
			if (made++)
				snprintf(name, sizeof(name), "%s_%d", m->name, made);
			else
				snprintf(name, sizeof(name), "%s", m->name);
			rc = fill_module_table(st, m, name, m->title ? m->title : m->name, &h, out);
			heading_release(&h);
			if (rc) {
				module_error(db, m, sql, at);
				sqlite3_finalize(st);
				goto done;
			}
		} else if (made == n) {
			sqlite3_finalize(st);
			if (m)
				error("%s: more result statements than its %d tables", m->file, n);
			else
				error("internal: analysis SQL has more result statements than its %d tables", n);
			goto done;
		} else {
			int rc = fill_table(st, &tables[made++], &h, out);
			heading_release(&h);
			if (rc)
				goto done;
		}
	}
	if (own || made == n)
		status = 0;
	else if (m)
		status = error("%s: %d result statements fill its %d tables", m->file, made, n);
	else
		status = error("internal: analysis SQL fills %d of its %d tables", made, n);
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

int script_run_module(sqlite3 *db, const char *text, const struct module *m, const struct analysis_opts *o,
		      const struct table_spec *tables, int n, struct tables *out)
{
	return run(db, text, m, o, tables, n, out);
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

