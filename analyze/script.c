/*
 * script: running an analysis's SQL file statement by statement, with the options bound by name, and
 * moving result rows into tables.
 */
#include "analysis.h"
#include "embed.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

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
	if ((i = sqlite3_bind_parameter_index(st, ":min_delta")))
		sqlite3_bind_int64(st, i, o->min_delta);
	if ((i = sqlite3_bind_parameter_index(st, ":min_calls")))
		sqlite3_bind_int64(st, i, o->min_calls);
	if ((i = sqlite3_bind_parameter_index(st, ":limit")))
		sqlite3_bind_int64(st, i, o->limit);
}

/* temp.name_groups: o's --group NAME=RE options, in order. */
static int groups_fill(sqlite3 *db, const struct analysis_opts *o)
{
	sqlite3_stmt *st;
	int g, rc = SQLITE_DONE;
	if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS name_groups(ord INTEGER PRIMARY KEY, name TEXT, "
			 "pattern TEXT); DELETE FROM temp.name_groups", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO temp.name_groups VALUES (?1, ?2, ?3)", -1, &st, NULL) != SQLITE_OK)
		return error("sqlite: %s", sqlite3_errmsg(db));
	for (g = 0; g < o->ngroups && rc == SQLITE_DONE; g++) {
		const char *eq = strchr(o->groups[g], '=');
		sqlite3_bind_int(st, 1, g);
		sqlite3_bind_text(st, 2, o->groups[g], (int)(eq - o->groups[g]), SQLITE_STATIC);
		sqlite3_bind_text(st, 3, eq + 1, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : error("sqlite: %s", sqlite3_errmsg(db));
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

/*
 * Result rows of st into a new table of spec, with h's title and note (else spec's title, and the note of
 * the rows' `_note` column); the columns' keys must be spec's (then `_note`).
 */
static int fill_table(sqlite3_stmt *st, const struct table_spec *spec, const struct heading *h, struct tables *out)
{
	struct table *t = table_new(spec->name, h->title ? h->title : spec->title);
	int ncol = sqlite3_column_count(st), note = -1, c, rc;
	tables_add(out, t);
	table_cols(t, spec->cols, spec->ncols);
	t->vertical = spec->vertical;
	if (h->note)
		t->note = xstrdup(h->note);
	for (c = 0; c < ncol; c++) {
		const char *key = sqlite3_column_name(st, c);
		if (c == spec->ncols && !strcmp(key, "_note"))
			note = c;
		else if (c >= spec->ncols || strcmp(key, spec->cols[c].key)) {
			sqlite3_finalize(st);
			return error("internal: %s: result column %d is '%s', not '%s'", spec->name, c + 1, key,
				     c < spec->ncols ? spec->cols[c].key : "_note");
		}
	}
	if (ncol < spec->ncols) {
		sqlite3_finalize(st);
		return error("internal: %s: %d result columns for %d", spec->name, ncol, spec->ncols);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cells_from_row(t, table_row(t), 0, st, spec->ncols);
		if (note >= 0 && !t->note && sqlite3_column_type(st, note) != SQLITE_NULL)
			t->note = xstrdup((const char *)sqlite3_column_text(st, note));
	}
	if (rc != SQLITE_DONE)
		return step_error(st);
	sqlite3_finalize(st);
	for (c = spec->ncols - 1; c >= 0; c--) {
		size_t r;
		if (!(spec->cols[c].flags & C_HIDE_NULL))
			continue;
		for (r = 0; r < t->nrows && table_cell(t, r, c)->null; r++)
			;
		if (r == t->nrows)
			table_drop_col(t, c);
	}
	return 0;
}

int script_run(sqlite3 *db, const char *sql, const struct analysis_opts *o, const struct table_spec *tables,
	       int n, struct tables *out)
{
	struct script sc = { db, sql, o };
	const char *views = embed_get("analyze/views.sql");
	struct heading h = { NULL, NULL };	/* the next table's */
	int made = 0;
	if (!views)
		return error("internal: no analyze/views.sql");
	if (sqlite3_exec(db, views, NULL, NULL, NULL) != SQLITE_OK)
		return error("sqlite: %s", sqlite3_errmsg(db));
	if (groups_fill(db, o))
		return -1;
	for (;;) {
		sqlite3_stmt *st = NULL;
		while (!st && sc.tail && *sc.tail)
			if (sqlite3_prepare_v2(db, sc.tail, -1, &st, &sc.tail) != SQLITE_OK) {
				heading_release(&h);
				return error("sqlite: %s", sqlite3_errmsg(db));
			}
		if (!st)
			break;
		script_bind(st, o);
		if (!sqlite3_column_count(st)) {
			int rc = sqlite3_step(st);
			if (rc != SQLITE_DONE) {
				heading_release(&h);
				return step_error(st);
			}
			sqlite3_finalize(st);
		} else if (is_heading(st)) {
			if (heading_read(st, &h))
				return -1;
		} else if (made == n) {
			sqlite3_finalize(st);
			heading_release(&h);
			return error("internal: analysis SQL has more result statements than its %d tables", n);
		} else {
			int rc = fill_table(st, &tables[made++], &h, out);
			heading_release(&h);
			if (rc)
				return -1;
		}
	}
	heading_release(&h);
	return made == n ? 0 : error("internal: analysis SQL fills %d of its %d tables", made, n);
}

/* The next statement of the script, bound; NULL with a message when there is none or it fails. */
sqlite3_stmt *script_next(struct script *sc)
{
	sqlite3_stmt *st = NULL;
	while (!st) {
		if (!sc->tail || !*sc->tail) {
			error("internal: analysis script has too few statements");
			return NULL;
		}
		if (sqlite3_prepare_v2(sc->db, sc->tail, -1, &st, &sc->tail) != SQLITE_OK) {
			error("sqlite: %s", sqlite3_errmsg(sc->db));
			return NULL;
		}
	}
	script_bind(st, sc->o);
	return st;
}

void script_skip(struct script *sc)
{
	const char *p = sc->tail;
	struct buf b;
	if (!p)
		return;
	/* The shortest prefix that is a complete statement (sqlite3_complete knows strings and comments). */
	buf_init(&b);
	while ((p = strchr(p, ';'))) {
		p++;
		b.len = 0;
		buf_add(&b, sc->tail, (size_t)(p - sc->tail));
		if (sqlite3_complete(b.s))
			break;
	}
	buf_release(&b);
	sc->tail = p ? p : sc->tail + strlen(sc->tail);
}

int step_error(sqlite3_stmt *st)
{
	error("sqlite: %s", sqlite3_errmsg(sqlite3_db_handle(st)));
	sqlite3_finalize(st);
	return -1;
}

void set_col_text(struct table *t, size_t r, int c, sqlite3_stmt *st, int i)
{
	table_set_text(t, r, c, (const char *)sqlite3_column_text(st, i));
}

void cells_from_row(struct table *t, size_t r, int first, sqlite3_stmt *st, int n)
{
	int c;
	for (c = 0; c < n; c++) {
		if (sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		if (t->cols[first + c].type == C_TEXT)
			set_col_text(t, r, first + c, st, c);
		else if (sqlite3_column_type(st, c) == SQLITE_FLOAT)
			table_set_real(t, r, first + c, sqlite3_column_double(st, c));
		else
			table_set_int(t, r, first + c, sqlite3_column_int64(st, c));
	}
}

void set_stats(struct table *t, size_t r, int col, const struct dstats *s)
{
	table_set_int(t, r, col, s->total);
	table_set_int(t, r, col + 1, s->n);
	table_set_real(t, r, col + 2, s->mean);
	table_set_real(t, r, col + 3, s->median);
	table_set_int(t, r, col + 4, s->min);
	table_set_int(t, r, col + 5, s->max);
	table_set_real(t, r, col + 6, s->stddev);
}

int script_stats(struct script *sc, int64_t (*map)(void *ctx, int64_t key), void *ctx, struct dstats **s,
		 size_t *n, int64_t *all)
{
	sqlite3_stmt *st = script_next(sc);
	size_t i;
	int rc;
	if (!st)
		return -1;
	rc = stats_by_key(st, map, ctx, s, n);
	sqlite3_finalize(st);
	if (rc)
		return -1;
	if (all)
		for (*all = 0, i = 0; i < *n; i++)
			*all += (*s)[i].total;
	return 0;
}

int script_table(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out, int which,
		 const char *name, const char *title, const struct colspec *cols, int ncols)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new(name, title);
	sqlite3_stmt *st = NULL;
	int i, rc;
	tables_add(out, t);
	table_cols(t, cols, ncols);
	for (i = 0; i <= which; i++) {
		sqlite3_finalize(st);
		if (!(st = script_next(&sc)))
			return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		cells_from_row(t, table_row(t), 0, st, ncols);
	if (rc != SQLITE_DONE)
		return step_error(st);
	sqlite3_finalize(st);
	return 0;
}
