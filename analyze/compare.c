/*
 * compare: a baseline session against a new one (CI mode), in three tables: kernels by name, NVTX ranges
 * by nesting path and style (wall time, as the ranges analysis groups them: a host range and a GPU
 * annotation of one name are two rows) and copies by kind (memcpy kinds and memsets, as the memcpy
 * analysis labels them). Each side's statistics come from its own connection and session, so the
 * baseline may be another database or another session of the same one. Groups are matched by their text
 * and style (string ids are per session).
 *
 * A group present on both sides is regressed when its median grew by more than both the relative
 * threshold and the absolute minimum delta, improved when it shrank by more than both, else unchanged;
 * groups with fewer than min_calls calls on both sides are unchanged. Groups on one side only are new or
 * gone. A table has rows only for what either side has (no ranges recorded: no range rows).
 */
#include "analysis.h"
#include "columns.h"
#include "db.h"
#include "embed.h"
#include "intmap.h"
#include "names.h"
#include "scan.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cmp_status { CMP_REGRESSED, CMP_NEW, CMP_GONE, CMP_IMPROVED, CMP_UNCHANGED };
static const char *const status_names[] = { "regressed", "new", "gone", "improved", "unchanged" };

/* The columns of every compare table; copies add bytes_cols; the name column comes last. */
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
};

static const struct colspec style_cols[] = {
	{ "style", "Style", C_TEXT },
};

static const struct colspec bytes_cols[] = {
	{ "base_bytes", "Base bytes", C_BYTES },
	{ "new_bytes", "New bytes", C_BYTES },
};

/*
 * The NVTX ranges of o->session per path and style, as the ranges analysis shows them (all its rows): the
 * wall time statistics of the ranges that ended, n counting unfinished ones too. 0, or -1 with a message.
 */
static int ranges_by_path(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct named_stats **out,
			  size_t *n)
{
	const struct analysis *a = analysis_find("ranges");
	struct analysis_opts all = *o;
	struct tables ts = { NULL, 0 };
	struct table *t;
	size_t r;
	int c, rc;

	*out = NULL;
	*n = 0;
	all.top = 0;
	rc = script_run(db, sql, &all, a->tables, a->ntables, &ts);
	if (rc || ts.n != 1) {
		tables_free(&ts);
		return -1;
	}
	t = ts.v[0];
	*out = xcalloc(t->nrows ? t->nrows : 1, sizeof(**out));
	for (r = 0; r < t->nrows; r++) {
		struct named_stats *x = &(*out)[r];
		static const char *const styles[] = { "", "PushPop", "StartEnd", "GPU" };
		const char *style = table_cell(t, r, table_find_col(t, "style"))->s;
		int64_t *ints[] = { &x->s.total, &x->s.n, NULL, NULL, &x->s.min, &x->s.max, NULL };
		double *reals[] = { NULL, NULL, &x->s.mean, &x->s.median, NULL, NULL, &x->s.stddev };
		for (c = 0; c < 7; c++) {
			const struct cell *v = table_cell(t, r, c);
			if (ints[c])
				*ints[c] = v->null ? 0 : v->is_real ? (int64_t)v->d : v->i;
			else
				*reals[c] = v->null ? 0 : v->is_real ? v->d : (double)v->i;
		}
		for (c = 0; c < 4 && strcmp(styles[c], style ? style : ""); c++)
			;
		x->style = styles[c < 4 ? c : 0];	/* static, as named_stats asks */
		x->name = xstrdup(table_cell(t, r, table_find_col(t, "path"))->s);
	}
	*n = t->nrows;
	tables_free(&ts);
	return 0;
}

/* The tables of compare, in order ("tables, not switches"): what each compares and how a side loads. */
static const struct cmp_kind {
	const char *table, *title;
	const char *noun;		/* the table's part of the verdict line, "ranges" */
	const char *name_title;		/* heading of the name column (key "name" in every table) */
	const char *sql;		/* the SQL file load runs; NULL: the analysis's own, compare.sql */
	int bytes;			/* with base_bytes and new_bytes columns */
	int style;			/* with a style column (ranges: PushPop, StartEnd, GPU), a second key */
	int (*load)(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct named_stats **out,
		    size_t *n);
} kinds[] = {
	{ "compare", "Kernels against the baseline", "kernels", "Name", NULL, 0, 0, kernels_by_name },
	{ "compare_ranges", "NVTX ranges against the baseline, by path and style (wall time)", "ranges", "Path",
	  "analyze/ranges.sql", 0, 1, ranges_by_path },
	{ "compare_copies", "Copies and memsets against the baseline, by kind", "copies", "Kind",
	  "analyze/memcpy.sql", 1, 0, memcpy_by_kind },
};
#define NKINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))

struct crow {
	const struct named_stats *b, *n;	/* either may be NULL (new, gone) */
	enum cmp_status status;
	int64_t total_delta;		/* new total - base total, for ordering */
};

/* One table's comparison: both sides' groups (sorted by name) and the rows matching them. */
struct cmp {
	struct named_stats *b, *n;
	size_t bn, nn;
	struct crow *rows;		/* in table order */
	size_t nr;
};

static void cmp_release(struct cmp *c)
{
	named_stats_free(c->b, c->bn);
	named_stats_free(c->n, c->nn);
	free(c->rows);
}

/* The verdict for a group present on both sides. */
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
	return named_stats_cmp(a->b ? a->b : a->n, b->b ? b->b : b->n);
}

/* Load both sides of table k and match them into c->rows. 0, or -1 with a message. */
static int cmp_run(const struct cmp_kind *k, sqlite3 *db, const char *sql, const struct analysis_opts *o,
		   struct cmp *c)
{
	struct analysis_opts so = *o;
	const char *ksql = k->sql ? embed_get(k->sql) : sql;
	size_t i = 0, j = 0;

	if (!ksql)
		return error("internal: compare has no SQL file %s", k->sql);
	so.session = o->base_session;
	if (k->load(o->base_db ? o->base_db : db, ksql, &so, &c->b, &c->bn))
		return -1;
	if (k->load(db, ksql, o, &c->n, &c->nn))
		return -1;
	named_stats_sort(c->b, c->bn);
	named_stats_sort(c->n, c->nn);
	c->rows = xcalloc(c->bn + c->nn + 1, sizeof(*c->rows));
	while (i < c->bn || j < c->nn) {
		struct crow *r = &c->rows[c->nr++];
		int d = i >= c->bn ? 1 : j >= c->nn ? -1 : named_stats_cmp(&c->b[i], &c->n[j]);
		if (d <= 0)
			r->b = &c->b[i++];
		if (d >= 0)
			r->n = &c->n[j++];
		r->total_delta = (r->n ? r->n->s.total : 0) - (r->b ? r->b->s.total : 0);
		r->status = !r->b ? CMP_NEW : !r->n ? CMP_GONE : judge(o, &r->b->s, &r->n->s);
	}
	xqsort(c->rows, c->nr, sizeof(*c->rows), crow_order);
	return 0;
}

/* What the verdict line counts: statuses per table over every row (not cut by --top), and kernel time. */
struct verdict {
	int counts[NKINDS][5];
	size_t rows[NKINDS];
	int64_t base, now;		/* kernel time of the compared names, each side */
};

/*
 * "2 regressed, 1 improved, 1 new, 1 gone; total kernel time +3.2% (12.300 ms -> 12.700 ms); ranges 1
 * regressed, 2 new; copies unchanged: FAIL". The kernel part always; a part per other table that has
 * rows, naming only the statuses that occur. FAIL when anything regressed.
 */
static void verdict_text(char *line, size_t n, const struct verdict *v)
{
	static const enum cmp_status order[] = { CMP_REGRESSED, CMP_IMPROVED, CMP_NEW, CMP_GONE };
	char pct[32] = "n/a", from[32], to[32];
	int k, s, regressed = 0, any;
	struct buf b;

	if (v->base > 0)
		snprintf(pct, sizeof(pct), "%+.1f%%", 100.0 * (double)(v->now - v->base) / (double)v->base);
	fmt_ns(from, sizeof(from), (double)v->base);
	fmt_ns(to, sizeof(to), (double)v->now);
	buf_init(&b);
	buf_addf(&b, "%d regressed, %d improved, %d new, %d gone; total kernel time %s (%s -> %s)",
		 v->counts[0][CMP_REGRESSED], v->counts[0][CMP_IMPROVED], v->counts[0][CMP_NEW],
		 v->counts[0][CMP_GONE], pct, from, to);
	for (k = 0; k < NKINDS; k++) {
		regressed += v->counts[k][CMP_REGRESSED];
		if (!k || !v->rows[k])
			continue;
		buf_addf(&b, "; %s", kinds[k].noun);
		for (any = 0, s = 0; s < (int)(sizeof(order) / sizeof(order[0])); s++)
			if (v->counts[k][order[s]])
				buf_addf(&b, "%s %d %s", any++ ? "," : "", v->counts[k][order[s]], status_names[order[s]]);
		if (!any)
			buf_addstr(&b, " unchanged");
	}
	snprintf(line, n, "%s: %s", b.s, regressed ? "FAIL" : "ok");
	buf_release(&b);
}

static void set_side(struct table *t, size_t r, int med, int avg, int total, int calls, const struct dstats *s)
{
	table_set_real(t, r, med, s->median);
	table_set_real(t, r, avg, s->mean);
	table_set_int(t, r, total, s->total);
	table_set_int(t, r, calls, s->n);
}

/* The first `top` rows of c (all with top <= 0) into t, which has k's columns. */
static void cmp_fill(struct table *t, const struct cmp_kind *k, const struct cmp *c, int top)
{
	size_t i;
	for (i = 0; i < c->nr && (top <= 0 || i < (size_t)top); i++) {
		const struct crow *x = &c->rows[i];
		size_t r = table_row(t);
		table_set_text(t, r, 0, status_names[x->status]);
		if (x->b)
			set_side(t, r, 3, 5, 7, 10, &x->b->s);
		else
			table_set_int(t, r, 10, 0);
		if (x->n)
			set_side(t, r, 4, 6, 8, 11, &x->n->s);
		else
			table_set_int(t, r, 11, 0);
		if (x->b && x->n) {
			double d = x->n->s.median - x->b->s.median;
			table_set_real(t, r, 2, d);
			if (x->b->s.median > 0)
				table_set_real(t, r, 1, 100.0 * d / x->b->s.median);
			if (x->b->s.total > 0)
				table_set_real(t, r, 9, 100.0 * (double)x->total_delta / (double)x->b->s.total);
		}
		if (k->bytes) {
			if (x->b)
				table_set_int(t, r, 12, x->b->bytes);
			if (x->n)
				table_set_int(t, r, 13, x->n->bytes);
		}
		if (k->style)
			table_set_text(t, r, t->ncols - 2, x->b ? x->b->style : x->n->style);
		table_set_text(t, r, t->ncols - 1, x->b ? x->b->name : x->n->name);
	}
}

int run_compare(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct cmp c[NKINDS];
	struct table *t[NKINDS];
	struct verdict v;
	char line[512];
	struct buf title;
	int k, rc = -1;
	size_t i;

	memset(c, 0, sizeof(c));
	memset(&v, 0, sizeof(v));
	for (k = 0; k < NKINDS; k++) {
		t[k] = table_new(kinds[k].table, kinds[k].title);
		tables_add(out, t[k]);
		table_cols(t[k], compare_cols, NCOLS(compare_cols));
		if (kinds[k].bytes)
			table_cols(t[k], bytes_cols, NCOLS(bytes_cols));
		if (kinds[k].style)
			table_cols(t[k], style_cols, NCOLS(style_cols));
		table_col(t[k], "name", kinds[k].name_title, C_TEXT);
	}
	for (k = 0; k < NKINDS; k++)
		if (cmp_run(&kinds[k], db, sql, o, &c[k]))
			goto out;
	/* The verdict over every row of every table (not only the --top shown) heads the first, for CI. */
	for (k = 0; k < NKINDS; k++) {
		v.rows[k] = c[k].nr;
		for (i = 0; i < c[k].nr; i++)
			v.counts[k][c[k].rows[i].status]++;
	}
	for (i = 0; i < c[0].nr; i++) {
		v.base += c[0].rows[i].b ? c[0].rows[i].b->s.total : 0;
		v.now += c[0].rows[i].n ? c[0].rows[i].n->s.total : 0;
	}
	verdict_text(line, sizeof(line), &v);
	buf_init(&title);
	buf_addf(&title, "%s: %s", kinds[0].title, line);
	free(t[0]->title);
	t[0]->title = xstrdup(title.s);
	buf_release(&title);
	for (k = 0; k < NKINDS; k++)
		cmp_fill(t[k], &kinds[k], &c[k], o->top);
	rc = 0;
out:
	for (k = 0; k < NKINDS; k++)
		cmp_release(&c[k]);
	return rc;
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

int compare_verdict(const struct tables *ts, char *line, size_t n)
{
	struct verdict v;
	int i, k, s, regressed = 0;
	size_t r;

	memset(&v, 0, sizeof(v));
	for (i = 0; i < ts->n; i++) {
		struct table *t = ts->v[i];
		int scol = table_find_col(t, "status");
		int bcol = table_find_col(t, "base_total_ns"), ncol = table_find_col(t, "new_total_ns");
		for (k = 0; k < NKINDS && strcmp(t->name, kinds[k].table); k++)
			;
		if (k == NKINDS || scol < 0 || bcol < 0 || ncol < 0)
			continue;
		v.rows[k] = t->nrows;
		for (r = 0; r < t->nrows; r++) {
			const char *st = table_cell(t, r, scol)->s;
			for (s = 0; st && s < 5 && strcmp(st, status_names[s]); s++)
				;
			if (st && s < 5)
				v.counts[k][s]++;
			if (k == 0) {
				v.base += cell_i64(t, r, bcol);
				v.now += cell_i64(t, r, ncol);
			}
		}
		regressed += v.counts[k][CMP_REGRESSED];
	}
	verdict_text(line, n, &v);
	return regressed;
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

/* A point with its name, before points are grouped by name. */
struct tflat {
	char *name;		/* owned */
	struct tpoint p;
};

static int cmp_flat(const void *pa, const void *pb)
{
	const struct tflat *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->p.start != b->p.start)
		return a->p.start < b->p.start ? -1 : 1;
	return (a->p.session > b->p.session) - (a->p.session < b->p.session);
}

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

/* Kernel time of one (session, name id). */
struct tsum {
	int64_t session, name, total, calls;
};

/* One slice of the scan of every session's kernels: sums per (session, name id). */
struct trend_slice {
	struct tsum *v;
	size_t n, alloc;
	struct intmap ix;	/* (session << 32 | name) + 1 -> index + 1 */
	int bad;		/* an id too big for the key */
	int64_t session;	/* column chunks: the session they belong to */
};

static int tsum_add(struct trend_slice *t, int64_t session, int64_t name, int64_t total, int64_t calls)
{
	int64_t key, i;
	if (session < 0 || session >= INT32_MAX || name < 0 || name >= INT32_MAX) {
		t->bad = 1;
		return -1;
	}
	key = (session << 32 | name) + 1;
	if (!intmap_get(&t->ix, key, &i)) {
		ALLOC_GROW(t->v, t->n + 1, t->alloc);
		t->v[t->n].session = session;
		t->v[t->n].name = name;
		t->v[t->n].total = t->v[t->n].calls = 0;
		i = (int64_t)++t->n;
		intmap_put(&t->ix, key, i);
	}
	t->v[i - 1].total += total;
	t->v[i - 1].calls += calls;
	return 0;
}

static int trend_row(sqlite3_stmt *st, void *arg)
{
	return tsum_add(arg, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
			1);
}

static int trend_chunk(void *arg, int64_t *const *cols, size_t n)
{
	struct trend_slice *t = arg;
	size_t i;
	for (i = 0; i < n; i++)
		if (tsum_add(t, t->session, cols[CSK_NAME][i], cols[CSK_DUR][i], 1))
			return -1;
	return 0;
}

/*
 * Every session's kernels from their column chunks, a session at a time on every core, into the slices
 * ts[SCAN_MAX_SLICES]: 1 when done, 0 when a session lacks complete chunks (read the rows instead), -1.
 */
static int trend_chunks(sqlite3 *db, struct trend_slice *ts)
{
	sqlite3_stmt *st;
	int rc, j, done = 1, version = db_schema_version(db);
	if (version < colstore_specs[CS_KERNELS].version)
		return version < 0 ? -1 : 0;	/* a database from before these chunks */
	if (!(st = db_prepare(db, "SELECT id, coalesce((" COLSTORE_COMPLETE_SQL_OF("sessions.id", "'kernels'")
			      "), 0) FROM sessions ORDER BY id")))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		done &= sqlite3_column_int(st, 1);
	if (rc != SQLITE_DONE)
		return step_error(st);
	sqlite3_reset(st);
	while (done && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t session = sqlite3_column_int64(st, 0);
		for (j = 0; j < SCAN_MAX_SLICES; j++)
			ts[j].session = session;
		rc = chunks_each(db, session, CS_KERNELS, 1u << CSK_NAME | 1u << CSK_DUR, trend_chunk, ts, sizeof(*ts));
		if (rc <= 0) {
			sqlite3_finalize(st);
			return rc < 0 ? -1 : error("trend: session %lld changed while it was being read",
						   (long long)session);
		}
	}
	sqlite3_finalize(st);
	return done;
}

static int cmp_tsum(const void *pa, const void *pb)
{
	const struct tsum *a = pa, *b = pb;
	if (a->session != b->session)
		return a->session < b->session ? -1 : 1;
	return (a->name > b->name) - (a->name < b->name);
}

/*
 * Every session's kernel time per name into *v (sorted by name, then session start), names filtered by
 * --match/--exclude: statement 1 on every core, names by statement 2, starts by statement 3. 0, or -1.
 */
static int trend_load(sqlite3 *db, struct script *sc, struct tname **out, size_t *nout, size_t *most)
{
	struct trend_slice ts[SCAN_MAX_SLICES], all;
	struct scan_plan p;
	struct tname *v = NULL;
	struct tflat *flat = NULL;
	sqlite3_stmt *st = NULL, *name = NULL, *start = NULL;
	size_t n = 0, alloc = 0, nflat = 0, i;
	int64_t session_start = 0;
	int j, rc = -1, have_start = 0;

	memset(ts, 0, sizeof(ts));
	memset(&all, 0, sizeof(all));
	/* From the sessions' column chunks, else statement 1 on every core. */
	if ((rc = trend_chunks(db, ts)) == 0)
		rc = scan_plan(db, "kernels", &p) || scan_run(db, &p, sc->tail, sc->o, trend_row, ts, sizeof(ts[0]))
		     ? -1 : 1;
	if (rc < 0) {
		for (j = 0; j < SCAN_MAX_SLICES; j++)
			if (ts[j].bad)
				error("trend: a session or name id is out of range");
		rc = -1;
		goto out;
	}
	rc = -1;
	for (j = 0; j < SCAN_MAX_SLICES; j++)
		for (i = 0; i < ts[j].n; i++)
			tsum_add(&all, ts[j].v[i].session, ts[j].v[i].name, ts[j].v[i].total, ts[j].v[i].calls);
	xqsort(all.v, all.n, sizeof(*all.v), cmp_tsum);
	if (!(st = script_next(sc)))	/* statement 1 ran through scan.c: step past it */
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (!(name = script_next(sc)) || !(start = script_next(sc)))
		goto out;
	/* Every (session, name) that passes the filters as a named point; sessions come in order. */
	flat = xcalloc(all.n ? all.n : 1, sizeof(*flat));
	for (i = 0; i < all.n; i++) {
		int r;
		if (i == 0 || all.v[i].session != all.v[i - 1].session) {
			sqlite3_reset(start);
			sqlite3_bind_int64(start, sqlite3_bind_parameter_index(start, ":s"), all.v[i].session);
			if ((r = sqlite3_step(start)) != SQLITE_ROW && r != SQLITE_DONE)
				goto fail_step;
			have_start = r == SQLITE_ROW;
			session_start = have_start ? sqlite3_column_int64(start, 0) : 0;
		}
		if (!have_start)
			continue;	/* no such session */
		sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":s"), all.v[i].session);
		sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), all.v[i].name);
		if ((r = sqlite3_step(name)) != SQLITE_ROW && r != SQLITE_DONE)
			goto fail_step;
		/* A name not in strings is left out, as the join left it out; so is one the filters reject. */
		if (r == SQLITE_ROW && sqlite3_column_int(name, 1)) {
			const char *text = (const char *)sqlite3_column_text(name, 0);
			if (names_folded(sc->o)) {
				/* --group/--short: a family's names in one session add up to one point. */
				struct buf folded;
				buf_init(&folded);
				if (name_fold(sc->o, text, &folded)) {
					buf_release(&folded);
					sqlite3_reset(name);
					goto out;
				}
				flat[nflat].name = xstrdup(folded.s);
				buf_release(&folded);
			} else {
				flat[nflat].name = xstrdup(text);
			}
			flat[nflat].p.session = all.v[i].session;
			flat[nflat].p.start = session_start;
			flat[nflat].p.total = all.v[i].total;
			flat[nflat].p.calls = all.v[i].calls;
			nflat++;
		}
		sqlite3_reset(name);
	}
	/* By name, then time (session start, then id): each name's points are one run. */
	xqsort(flat, nflat, sizeof(*flat), cmp_flat);
	*most = 0;
	for (i = 0; i < nflat; i++) {
		struct tname *k;
		if (!n || strcmp(v[n - 1].name, flat[i].name)) {
			ALLOC_GROW(v, n + 1, alloc);
			memset(&v[n], 0, sizeof(v[n]));
			v[n++].name = flat[i].name;
		} else {
			free(flat[i].name);
		}
		flat[i].name = NULL;
		k = &v[n - 1];
		k->sum += flat[i].p.total;
		if (k->n && k->p[k->n - 1].session == flat[i].p.session) {
			k->p[k->n - 1].total += flat[i].p.total;	/* folded names of one session */
			k->p[k->n - 1].calls += flat[i].p.calls;
			continue;
		}
		ALLOC_GROW(k->p, k->n + 1, k->alloc);
		k->p[k->n++] = flat[i].p;
		if (k->n > *most)
			*most = k->n;
	}
	rc = 0;
	goto out;
fail_step:
	error("sqlite: %s", sqlite3_errmsg(db));
out:
	sqlite3_finalize(name);
	sqlite3_finalize(start);
	for (i = 0; i < nflat; i++)
		free(flat[i].name);
	free(flat);
	for (j = 0; j < SCAN_MAX_SLICES; j++) {
		free(ts[j].v);
		intmap_release(&ts[j].ix);
	}
	free(all.v);
	intmap_release(&all.ix);
	*out = v;
	*nout = n;
	return rc;
}

int run_trend(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("trend", "Kernel time across sessions, with step changes");
	struct tname *v = NULL;
	size_t n = 0, i, j, most = 0;
	int64_t *scratch;
	int ok;

	tables_add(out, t);
	table_cols(t, trend_cols, NCOLS(trend_cols));
	ok = !trend_load(db, &sc, &v, &n, &most);
	if (n)
		xqsort(v, n, sizeof(*v), tname_order);
	scratch = xcalloc(most + 1, sizeof(*scratch));
	for (i = 0; ok && i < n && (o->top <= 0 || i < (size_t)o->top); i++)
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
	return ok ? 0 : -1;
}
