/*
 * trend: the top kernels' total time across all sessions, with step changes against the median of each
 * name's earlier sessions.
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
