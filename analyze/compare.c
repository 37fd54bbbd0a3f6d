/*
 * compare: a baseline session against a new one, kernel by kernel (CI mode). Each side's per-name
 * statistics come from its own connection and session, so the baseline may be another database or another
 * session of the same one. Names are matched by their text (string ids are per session).
 *
 * A name present on both sides is regressed when its median grew by more than both the relative threshold
 * and the absolute minimum delta, improved when it shrank by more than both, else unchanged; names with
 * fewer than min_calls calls on both sides are unchanged. Names on one side only are new or gone.
 */
#include "analysis.h"
#include "names.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cmp_status { CMP_REGRESSED, CMP_NEW, CMP_GONE, CMP_IMPROVED, CMP_UNCHANGED };
static const char *const status_names[] = { "regressed", "new", "gone", "improved", "unchanged" };

static const struct colspec compare_cols[] = {
	{ "status", "Status", C_TEXT },
	{ "delta_pct", "Med delta %", C_PCT },
	{ "delta_ns", "Med delta", C_NS },
	{ "base_med_ns", "Base med", C_NS },
	{ "new_med_ns", "New med", C_NS },
	{ "base_avg_ns", "Base avg", C_NS },
	{ "new_avg_ns", "New avg", C_NS },
	{ "base_total_ns", "Base total", C_NS },
	{ "new_total_ns", "New total", C_NS },
	{ "total_delta_pct", "Total delta %", C_PCT },
	{ "base_calls", "Base calls", C_INT },
	{ "new_calls", "New calls", C_INT },
	{ "name", "Name", C_TEXT },
};

struct kstat {
	char *name;		/* owned */
	struct dstats s;
};

struct crow {
	const struct kstat *b, *n;	/* either may be NULL (new, gone) */
	enum cmp_status status;
	int64_t total_delta;		/* new total - base total, for ordering */
};

static int kstat_by_name(const void *a, const void *b)
{
	return strcmp(((const struct kstat *)a)->name, ((const struct kstat *)b)->name);
}

static void kstats_free(struct kstat *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/*
 * One side's statistics per name, sorted by name, into *out and *n. Runs the first two statements of the
 * script on db with session `session`. 0, or -1 with a message.
 */
static int side_load(sqlite3 *db, const char *sql, const struct analysis_opts *o, int64_t session,
		     struct kstat **out, size_t *n)
{
	struct analysis_opts so = *o;
	struct script sc = { db, sql, &so };
	struct dstats *s = NULL;
	struct kstat *v;
	struct fold f;
	sqlite3_stmt *st, *name;
	size_t ns = 0, i;
	int folded = names_folded(o);

	so.session = session;
	*out = NULL;
	*n = 0;
	if (folded && fold_load(db, &so, &f))
		return -1;
	if (!(st = script_next(&sc)))
		goto fail;
	if (stats_by_key(st, folded ? fold_key : NULL, &f, &s, &ns)) {
		sqlite3_finalize(st);
		goto fail;
	}
	sqlite3_finalize(st);
	if (!(name = script_next(&sc)))
		goto fail;
	v = xcalloc(ns ? ns : 1, sizeof(*v));
	for (i = 0; i < ns; i++) {
		v[i].s = s[i];
		if (folded) {
			v[i].name = xstrdup(fold_name(&f, s[i].key));
			continue;
		}
		sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), s[i].key);
		if (sqlite3_step(name) == SQLITE_ROW)
			v[i].name = xstrdup((const char *)sqlite3_column_text(name, 0));
		else
			v[i].name = xstrdup("(unknown)");
		sqlite3_reset(name);
	}
	sqlite3_finalize(name);
	free(s);
	if (folded)
		fold_release(&f);
	xqsort(v, ns, sizeof(*v), kstat_by_name);
	*out = v;
	*n = ns;
	return 0;
fail:
	free(s);
	if (folded)
		fold_release(&f);
	return -1;
}

/* The verdict for a name present on both sides. */
static enum cmp_status judge(const struct analysis_opts *o, const struct dstats *b, const struct dstats *n)
{
	double delta = n->median - b->median;
	double rel = o->threshold * b->median;
	if (b->n < o->min_calls && n->n < o->min_calls)
		return CMP_UNCHANGED;
	if (delta > (double)o->min_delta && delta > rel)
		return CMP_REGRESSED;
	if (-delta > (double)o->min_delta && -delta > rel)
		return CMP_IMPROVED;
	return CMP_UNCHANGED;
}

/* Regressions first, then new, gone, improved, unchanged; within each the largest change of total first. */
static int crow_order(const void *pa, const void *pb)
{
	const struct crow *a = pa, *b = pb;
	int64_t da = llabs(a->total_delta), db = llabs(b->total_delta);
	if (a->status != b->status)
		return (int)a->status - (int)b->status;
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->b ? a->b->name : a->n->name, b->b ? b->b->name : b->n->name);
}

static void set_side(struct table *t, size_t r, int med, int avg, int total, int calls, const struct dstats *s)
{
	table_set_real(t, r, med, s->median);
	table_set_real(t, r, avg, s->mean);
	table_set_int(t, r, total, s->total);
	table_set_int(t, r, calls, s->n);
}

/* "2 regressed, 1 improved, 1 new, 1 gone; total kernel time +3.2% (12.300 ms -> 12.700 ms): FAIL" */
static void verdict_text(char *line, size_t n, const int counts[5], int64_t base, int64_t now)
{
	char pct[32] = "n/a", from[32], to[32];
	if (base > 0)
		snprintf(pct, sizeof(pct), "%+.1f%%", 100.0 * (double)(now - base) / (double)base);
	fmt_ns(from, sizeof(from), (double)base);
	fmt_ns(to, sizeof(to), (double)now);
	snprintf(line, n, "%d regressed, %d improved, %d new, %d gone; total kernel time %s (%s -> %s): %s",
		 counts[CMP_REGRESSED], counts[CMP_IMPROVED], counts[CMP_NEW], counts[CMP_GONE], pct, from, to,
		 counts[CMP_REGRESSED] ? "FAIL" : "ok");
}

int run_compare(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct table *t = table_new("compare", "Kernels against the baseline (regressions first)");
	sqlite3 *bdb = o->base_db ? o->base_db : db;
	struct kstat *bv = NULL, *nv = NULL;
	struct crow *rows;
	size_t bn = 0, nn = 0, i = 0, j = 0, nr = 0, k;

	tables_add(out, t);
	table_cols(t, compare_cols, NCOLS(compare_cols));
	if (side_load(bdb, sql, o, o->base_session, &bv, &bn) || side_load(db, sql, o, o->session, &nv, &nn)) {
		kstats_free(bv, bn);
		return -1;
	}
	rows = xcalloc(bn + nn + 1, sizeof(*rows));
	while (i < bn || j < nn) {
		struct crow *c = &rows[nr++];
		int cmp = i >= bn ? 1 : j >= nn ? -1 : strcmp(bv[i].name, nv[j].name);
		if (cmp <= 0)
			c->b = &bv[i++];
		if (cmp >= 0)
			c->n = &nv[j++];
		c->total_delta = (c->n ? c->n->s.total : 0) - (c->b ? c->b->s.total : 0);
		c->status = !c->b ? CMP_NEW : !c->n ? CMP_GONE : judge(o, &c->b->s, &c->n->s);
	}
	xqsort(rows, nr, sizeof(*rows), crow_order);
	{
		/* The verdict over every name (not only the --top shown) heads the table, for CI summaries. */
		int counts[5] = { 0, 0, 0, 0, 0 };
		int64_t base = 0, now = 0;
		char line[256];
		struct buf title;
		for (k = 0; k < nr; k++) {
			counts[rows[k].status]++;
			base += rows[k].b ? rows[k].b->s.total : 0;
			now += rows[k].n ? rows[k].n->s.total : 0;
		}
		verdict_text(line, sizeof(line), counts, base, now);
		buf_init(&title);
		buf_addf(&title, "Kernels against the baseline: %s", line);
		free(t->title);
		t->title = xstrdup(title.s);
		buf_release(&title);
	}
	for (k = 0; k < nr && (o->top <= 0 || k < (size_t)o->top); k++) {
		const struct crow *c = &rows[k];
		size_t r = table_row(t);
		table_set_text(t, r, 0, status_names[c->status]);
		if (c->b)
			set_side(t, r, 3, 5, 7, 10, &c->b->s);
		else
			table_set_int(t, r, 10, 0);
		if (c->n)
			set_side(t, r, 4, 6, 8, 11, &c->n->s);
		else
			table_set_int(t, r, 11, 0);
		if (c->b && c->n) {
			double d = c->n->s.median - c->b->s.median;
			table_set_real(t, r, 2, d);
			if (c->b->s.median > 0)
				table_set_real(t, r, 1, 100.0 * d / c->b->s.median);
			if (c->b->s.total > 0)
				table_set_real(t, r, 9, 100.0 * (double)c->total_delta / (double)c->b->s.total);
		}
		table_set_text(t, r, 12, c->b ? c->b->name : c->n->name);
	}
	free(rows);
	kstats_free(bv, bn);
	kstats_free(nv, nn);
	return 0;
}

int compare_default_base(sqlite3 *db, int64_t session, int64_t *base)
{
	sqlite3_stmt *st;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT max(id) FROM sessions WHERE id < ?", -1, &st, NULL) != SQLITE_OK)
		return error("sqlite: %s", sqlite3_errmsg(db));
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

static int64_t cell_i64(struct table *t, size_t r, int c)
{
	const struct cell *x = table_cell(t, r, c);
	return x->null ? 0 : x->is_real ? (int64_t)llround(x->d) : x->i;
}

int compare_verdict(struct table *t, char *line, size_t n)
{
	int counts[5] = { 0, 0, 0, 0, 0 }, s, scol = table_find_col(t, "status");
	int bcol = table_find_col(t, "base_total_ns"), ncol = table_find_col(t, "new_total_ns");
	int64_t base = 0, now = 0;
	size_t r;

	for (r = 0; r < t->nrows; r++) {
		const char *st = table_cell(t, r, scol)->s;
		for (s = 0; s < 5; s++)
			if (st && !strcmp(st, status_names[s]))
				counts[s]++;
		base += cell_i64(t, r, bcol);
		now += cell_i64(t, r, ncol);
	}
	verdict_text(line, n, counts, base, now);
	return counts[CMP_REGRESSED];
}

static const struct colspec trend_cols[] = {
	{ "name", "Name", C_TEXT },
	{ "session_id", "Session", C_INT },
	{ "start_ns", "Start", C_TIME },
	{ "total_ns", "Total", C_NS },
	{ "calls", "Calls", C_INT },
	{ "step", "Step", C_TEXT },
};

struct tpoint {
	int64_t session, start, total, calls;
};

struct tname {
	char *name;		/* owned */
	struct tpoint *p;	/* owned, in time order */
	size_t n, alloc;
	int64_t sum;		/* total over all sessions, for ranking */
};

static int tname_order(const void *pa, const void *pb)
{
	const struct tname *a = pa, *b = pb;
	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* "up", "down" or "": point i against the median of the points before it. */
static const char *step_of(const struct tname *k, size_t i, double threshold, int64_t *scratch)
{
	double med;
	size_t j;
	if (i == 0)
		return "";
	for (j = 0; j < i; j++)
		scratch[j] = k->p[j].total;
	xqsort(scratch, i, sizeof(*scratch), cmp_i64);
	med = i % 2 ? (double)scratch[i / 2] : ((double)scratch[i / 2 - 1] + (double)scratch[i / 2]) / 2.0;
	if ((double)k->p[i].total - med > threshold * med)
		return "up";
	if (med - (double)k->p[i].total > threshold * med)
		return "down";
	return "";
}

int run_trend(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("trend", "Kernel time across sessions, with step changes");
	struct tname *v = NULL;
	size_t n = 0, alloc = 0, i, j, most = 0;
	int64_t *scratch;
	sqlite3_stmt *st;
	int rc;

	tables_add(out, t);
	table_cols(t, trend_cols, NCOLS(trend_cols));
	if (!(st = script_next(&sc)))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		struct tname *k;
		struct tpoint *p;
		if (!n || strcmp(v[n - 1].name, name)) {
			ALLOC_GROW(v, n + 1, alloc);
			memset(&v[n], 0, sizeof(v[n]));
			v[n++].name = xstrdup(name);
		}
		k = &v[n - 1];
		ALLOC_GROW(k->p, k->n + 1, k->alloc);
		p = &k->p[k->n++];
		p->session = sqlite3_column_int64(st, 1);
		p->start = sqlite3_column_int64(st, 2);
		p->total = sqlite3_column_int64(st, 3);
		p->calls = sqlite3_column_int64(st, 4);
		k->sum += p->total;
		if (k->n > most)
			most = k->n;
	}
	if (rc != SQLITE_DONE) {
		step_error(st);
		st = NULL;
	} else {
		sqlite3_finalize(st);
	}
	if (n)
		xqsort(v, n, sizeof(*v), tname_order);
	scratch = xcalloc(most + 1, sizeof(*scratch));
	for (i = 0; st && i < n && (o->top <= 0 || i < (size_t)o->top); i++)
		for (j = 0; j < v[i].n; j++) {
			size_t r = table_row(t);
			table_set_text(t, r, 0, v[i].name);
			table_set_int(t, r, 1, v[i].p[j].session);
			table_set_int(t, r, 2, v[i].p[j].start);
			table_set_int(t, r, 3, v[i].p[j].total);
			table_set_int(t, r, 4, v[i].p[j].calls);
			table_set_text(t, r, 5, step_of(&v[i], j, o->threshold, scratch));
		}
	free(scratch);
	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].p);
	}
	free(v);
	return st ? 0 : -1;
}
