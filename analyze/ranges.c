/*
 * ranges: NVTX ranges and scopes by nesting path, with the GPU time each caused (which Nsight Systems
 * does not give). A kernel counts toward every range open on its launching thread when it was launched
 * (so a parent includes its children). Ranges that never ended count, but have no duration.
 */
#include "analysis.h"
#include "intmap.h"
#include "names.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct range {
	int64_t pid, thread, start, end;	/* end INT64_MAX when it never ended */
	int kind, ended;
	size_t seq;			/* load order, the last tie-break of the nesting order */
	char *path;
	const char *name;		/* the last component of path */
	int64_t gpu_ns, kernels;
};

struct launch {
	int64_t pid, thread, ts, dur;
};

static int cmp_path(const void *a, const void *b)
{
	const struct range *const *x = a, *const *y = b;
	return strcmp((*x)->path, (*y)->path);
}

/* Nesting order: by process, host ranges before GPU ranges, thread, start, the longest first, load order. */
static int cmp_nesting(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if ((x->kind == 3) != (y->kind == 3))
		return x->kind == 3 ? 1 : -1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Range names by string id, each looked up (statement 2) and folded once. */
struct name_cache {
	struct intmap index;	/* string id + 1 -> index + 1 in names */
	char **names;		/* owned */
	size_t n, alloc;
};

/* The name of string id as the options show it into *name (NULL when there is none). 0, or -1 with a message. */
static int name_of(struct name_cache *c, sqlite3_stmt *st, const struct analysis_opts *o, int64_t id,
		   const char **name)
{
	struct buf folded;
	int64_t i;
	int rc;
	*name = NULL;
	if (intmap_get(&c->index, id + 1, &i)) {
		*name = i ? c->names[i - 1] : NULL;
		return 0;
	}
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":id"), id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		error("sqlite: %s", sqlite3_errmsg(sqlite3_db_handle(st)));
		sqlite3_reset(st);
		return -1;
	}
	if (rc == SQLITE_ROW) {
		buf_init(&folded);
		if (names_folded(o) && name_fold(o, (const char *)sqlite3_column_text(st, 0), &folded)) {
			buf_release(&folded);
			sqlite3_reset(st);
			return -1;
		}
		ALLOC_GROW(c->names, c->n + 1, c->alloc);
		c->names[c->n++] = names_folded(o) ? xstrdup(folded.s) :
				   xstrdup((const char *)sqlite3_column_text(st, 0));
		buf_release(&folded);
		*name = c->names[c->n - 1];
	}
	sqlite3_reset(st);
	intmap_put(&c->index, id + 1, *name ? (int64_t)c->n : 0);
	return 0;
}

/*
 * Load statement 1 (names by statement 2) and give each range its path: push/pop ranges nest within
 * their thread. Ranges whose name is not in the strings table are left out.
 */
static int load_ranges(struct script *sc, struct range **out, size_t *nout)
{
	struct name_cache names = { INTMAP_INIT, NULL, 0, 0 };
	sqlite3_stmt *st = script_next(sc), *name_st = NULL;
	struct range *v = NULL;
	size_t n = 0, alloc = 0, *stack = NULL, depth = 0, sdepth = 0, i;
	int64_t gpid = INT64_MIN, gthread = INT64_MIN;
	int gkind = -1, rc = SQLITE_ERROR;	/* SQLITE_DONE once every path is made */

	*out = NULL;
	*nout = 0;
	if (!st || !(name_st = script_next(sc)))
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct range *r;
		const char *name;
		if (name_of(&names, name_st, sc->o, sqlite3_column_int64(st, 5), &name))
			break;
		if (!name)
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		r = &v[n];
		memset(r, 0, sizeof(*r));
		r->pid = sqlite3_column_int64(st, 0);
		r->thread = sqlite3_column_int64(st, 1);
		r->start = sqlite3_column_int64(st, 2);
		r->ended = sqlite3_column_type(st, 3) != SQLITE_NULL;
		r->end = r->ended ? sqlite3_column_int64(st, 3) : INT64_MAX;
		r->kind = sqlite3_column_int(st, 4);
		r->name = name;		/* the cache's, until the path is made */
		r->seq = n++;
	}
	if (rc != SQLITE_DONE) {
		if (rc != SQLITE_ROW)	/* else name_of said what went wrong */
			error("sqlite: %s", sqlite3_errmsg(sc->db));
		goto out;
	}
	xqsort(v, n, sizeof(*v), cmp_nesting);
	for (i = 0; i < n; i++) {
		struct range *r = &v[i];
		struct buf path;
		if (r->pid != gpid || r->thread != gthread || (r->kind == 3) != (gkind == 3)) {
			gpid = r->pid;
			gthread = r->thread;
			gkind = r->kind;
			depth = 0;
		}
		/*
		 * Close the ranges that ended before this one starts, or that do not contain it. Start/end
		 * ranges neither nest nor close anything: one may outlive the push/pop range it began in.
		 */
		while (r->kind != 2 && depth &&
		       (v[stack[depth - 1]].end <= r->start || v[stack[depth - 1]].end < r->end))
			depth--;
		buf_init(&path);
		if (r->kind != 2 && depth) {
			buf_addstr(&path, v[stack[depth - 1]].path);
			buf_addch(&path, '/');
		}
		buf_addstr(&path, r->name);
		r->name = path.s + (path.len - strlen(r->name));
		r->path = path.s;
		if (r->kind != 2) {
			ALLOC_GROW(stack, depth + 1, sdepth);
			stack[depth++] = i;
		}
	}
	rc = SQLITE_DONE;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(name_st);
	free(stack);
	for (i = 0; i < names.n; i++)
		free(names.names[i]);
	free(names.names);
	intmap_release(&names.index);
	*out = v;
	*nout = n;
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * GPU time by (pid, correlation id). CUPTI numbers correlation ids densely per process, so a plain array
 * per process serves when they stay below a bound; otherwise a hash map.
 */
struct corr_durs {
	int64_t pid;
	int64_t *dur;		/* dur[corr] + 1, 0 = no kernel */
	size_t n;
	struct intmap sparse;	/* corr + 1 -> dur + 1, for ids beyond the array */
};

#define DENSE_MAX ((int64_t)1 << 26)

static struct corr_durs *durs_for(struct corr_durs **v, size_t *n, size_t *alloc, int64_t pid)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if ((*v)[i].pid == pid)
			return &(*v)[i];
	ALLOC_GROW(*v, *n + 1, *alloc);
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].pid = pid;
	return &(*v)[(*n)++];
}

static int cmp_ts(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * Kernel launches as (pid, thread, time, GPU duration): every kernel's duration by correlation id, then
 * the calls with those ids, grouped per (pid, thread) and sorted by time (they mostly already are).
 */
static int load_launches(struct script *sc, struct launch **out, size_t *nout)
{
	struct corr_durs *cd = NULL, *c = NULL;
	struct launch *l = NULL;
	size_t ncd = 0, acd = 0, n = 0, alloc = 0, i, j;
	sqlite3_stmt *st = script_next(sc), *kst;
	int rc;
	if (!st)
		return -1;
	/* Statement 4 (calls) is stepped after statement 5 (kernels): prepare both now. */
	if (!(kst = script_next(sc))) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = sqlite3_step(kst)) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(kst, 0), corr = sqlite3_column_int64(kst, 1);
		int64_t dur = sqlite3_column_int64(kst, 2);
		if (!c || c->pid != pid)
			c = durs_for(&cd, &ncd, &acd, pid);
		if (corr >= 0 && corr < DENSE_MAX) {
			if ((size_t)corr >= c->n) {
				size_t old = c->n;
				ALLOC_GROW(c->dur, (size_t)corr + 1, c->n);
				memset(c->dur + old, 0, (c->n - old) * sizeof(*c->dur));
			}
			c->dur[corr] = dur + 1;
		} else {
			intmap_put(&c->sparse, corr + 1, dur + 1);
		}
	}
	if (rc != SQLITE_DONE) {
		step_error(kst);
		sqlite3_finalize(st);
		goto fail;
	}
	sqlite3_finalize(kst);
	c = NULL;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(st, 0), corr = sqlite3_column_int64(st, 1), d = 0;
		if (!c || c->pid != pid) {
			for (c = NULL, i = 0; i < ncd; i++)
				if (cd[i].pid == pid)
					c = &cd[i];
			if (!c)
				continue;
		}
		/* The first call with the kernel's id launched it (a driver call may share the id). */
		if (corr >= 0 && (size_t)corr < c->n) {
			d = c->dur[corr];
			c->dur[corr] = 0;
		} else if ((corr < 0 || corr >= DENSE_MAX) && intmap_get(&c->sparse, corr + 1, &d)) {
			intmap_put(&c->sparse, corr + 1, 0);
		}
		if (!d)
			continue;	/* not a kernel launch, or one already counted */
		ALLOC_GROW(l, n + 1, alloc);
		l[n].pid = pid;
		l[n].thread = sqlite3_column_int64(st, 2);
		l[n].ts = sqlite3_column_int64(st, 3);
		l[n].dur = d - 1;
		n++;
	}
	if (rc != SQLITE_DONE) {
		step_error(st);
		goto fail;
	}
	sqlite3_finalize(st);
	/* Group by (pid, thread) keeping time order (a stable pass), then sort each run if it is not sorted. */
	{
		struct launch *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
		size_t k, pos = 0;
		struct { int64_t pid, thread; size_t count, at; } *keys = NULL;
		size_t nkeys = 0, akeys = 0;
		for (i = 0; i < n; i++) {
			for (k = nkeys; k-- > 0;)
				if (keys[k].pid == l[i].pid && keys[k].thread == l[i].thread)
					break;
			if (k == (size_t)-1) {
				ALLOC_GROW(keys, nkeys + 1, akeys);
				keys[nkeys].pid = l[i].pid;
				keys[nkeys].thread = l[i].thread;
				keys[nkeys].count = 0;
				k = nkeys++;
			}
			keys[k].count++;
		}
		/* Keys in (pid, thread) order, so the sweep meets them as it meets the ranges. */
		for (i = 1; i < nkeys; i++)
			for (j = i; j > 0 && (keys[j - 1].pid > keys[j].pid ||
				 (keys[j - 1].pid == keys[j].pid && keys[j - 1].thread > keys[j].thread)); j--) {
				__typeof__(*keys) t = keys[j];
				keys[j] = keys[j - 1];
				keys[j - 1] = t;
			}
		for (k = 0; k < nkeys; k++) {
			keys[k].at = pos;
			pos += keys[k].count;
		}
		for (i = 0; i < n; i++) {
			size_t key;
			for (key = 0; keys[key].pid != l[i].pid || keys[key].thread != l[i].thread; key++)
				;
			tmp[keys[key].at++] = l[i];
		}
		for (k = 0, pos = 0; k < nkeys; k++) {
			size_t start = keys[k].at - keys[k].count, m;
			for (m = start + 1; m < keys[k].at && tmp[m - 1].ts <= tmp[m].ts; m++)
				;
			if (m < keys[k].at)
				xqsort(tmp + start, keys[k].count, sizeof(*tmp), cmp_ts);
		}
		free(keys);
		free(l);
		l = tmp;
	}
	for (i = 0; i < ncd; i++) {
		free(cd[i].dur);
		intmap_release(&cd[i].sparse);
	}
	free(cd);
	*out = l;
	*nout = n;
	return 0;
fail:
	for (i = 0; i < ncd; i++) {
		free(cd[i].dur);
		intmap_release(&cd[i].sparse);
	}
	free(cd);
	free(l);
	return -1;
}

/*
 * Sweep each thread's launches in time order against its ranges (sorted by start): every range open at
 * a launch gets the kernel's time.
 */
static void attribute(struct range *r, size_t nr, const struct launch *l, size_t nl)
{
	size_t i = 0, j = 0, *active = NULL, nact = 0, aact = 0;
	while (j < nl) {
		/* The ranges of the launch's (pid, thread), host ranges only. */
		size_t a, k;
		while (i < nr && (r[i].pid < l[j].pid || (r[i].pid == l[j].pid && (r[i].kind == 3 ||
		       r[i].thread < l[j].thread))))
			i++;
		if (i == nr || r[i].pid != l[j].pid || r[i].thread != l[j].thread) {
			j++;
			continue;
		}
		nact = 0;
		for (a = i; j < nl && l[j].pid == r[i].pid && l[j].thread == r[i].thread; j++) {
			while (a < nr && r[a].pid == r[i].pid && r[a].thread == r[i].thread && r[a].kind != 3 &&
			       r[a].start <= l[j].ts) {
				ALLOC_GROW(active, nact + 1, aact);
				active[nact++] = a++;
			}
			for (k = 0; k < nact;) {
				if (r[active[k]].end <= l[j].ts)
					active[k] = active[--nact];
				else
					k++;
			}
			for (k = 0; k < nact; k++) {
				r[active[k]].gpu_ns += l[j].dur;
				r[active[k]].kernels++;
			}
		}
	}
	free(active);
}

static const struct colspec ranges_cols[] = {
	STATS_COLUMNS("count", "Count"),
	{ "gpu_ns", "GPU time", C_NS },
	{ "kernels", "Kernels", C_INT },
	{ "style", "Style", C_TEXT },
	{ "name", "Name", C_TEXT },
	{ "path", "Path", C_TEXT },
};

struct group {
	struct range **r;	/* the group's ranges */
	size_t n;
	struct dstats s;	/* wall times of the ranges that ended */
	int64_t gpu_ns, kernels;
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	return strcmp(x->r[0]->path, y->r[0]->path);
}

/*
 * The ranges grouped by path, in path order, into *g and *ng, leaving out the paths statement 3 (keep)
 * rejects; each group's ranges point into *byp. The caller frees *byp and *g, also after an error.
 * 0, or -1 with a message.
 */
static int group_paths(struct range *r, size_t nr, sqlite3_stmt *keep, struct range ***byp, struct group **g,
		       size_t *ng)
{
	struct range **p = xmalloc((nr ? nr : 1) * sizeof(*p));
	int64_t *durs = xmalloc((nr ? nr : 1) * sizeof(*durs));
	size_t i, j;

	*byp = p;
	*g = xcalloc(nr ? nr : 1, sizeof(**g));
	*ng = 0;
	for (i = 0; i < nr; i++)
		p[i] = &r[i];
	xqsort(p, nr, sizeof(*p), cmp_path);
	for (i = 0; i < nr; i = j) {
		size_t nd = 0;
		for (j = i; j < nr && !strcmp(p[j]->path, p[i]->path); j++)
			if (p[j]->ended)
				durs[nd++] = p[j]->end - p[j]->start;
		sqlite3_bind_text(keep, sqlite3_bind_parameter_index(keep, ":path"), p[i]->path, -1, SQLITE_STATIC);
		if (sqlite3_step(keep) != SQLITE_ROW) {
			error("sqlite: %s", sqlite3_errmsg(sqlite3_db_handle(keep)));
			free(durs);
			return -1;
		}
		if (sqlite3_column_int(keep, 0)) {
			(*g)[*ng].r = p + i;
			(*g)[*ng].n = j - i;
			stats_of(durs, nd, &(*g)[*ng].s);
			(*ng)++;
		}
		sqlite3_reset(keep);
	}
	free(durs);
	return 0;
}

static void ranges_free(struct range *r, size_t nr)
{
	size_t i;
	for (i = 0; i < nr; i++)
		free(r[i].path);
	free(r);
}

int ranges_by_path(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct named_stats **out,
		   size_t *n)
{
	struct script sc = { db, sql, o };
	struct range *r = NULL, **byp = NULL;
	struct group *g = NULL;
	sqlite3_stmt *keep = NULL;
	size_t nr = 0, ng = 0, i;
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (load_ranges(&sc, &r, &nr) || !(keep = script_next(&sc)) || group_paths(r, nr, keep, &byp, &g, &ng))
		goto out;
	*out = xcalloc(ng ? ng : 1, sizeof(**out));
	for (i = 0; i < ng; i++) {
		(*out)[i].name = xstrdup(g[i].r[0]->path);
		(*out)[i].s = g[i].s;
		(*out)[i].s.n = (int64_t)g[i].n;	/* unfinished ranges count too */
	}
	*n = ng;
	rc = 0;
out:
	sqlite3_finalize(keep);
	ranges_free(r, nr);
	free(byp);
	free(g);
	return rc;
}

int run_ranges(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	static const char *styles[] = { "", "PushPop", "StartEnd", "GPU" };
	struct script sc = { db, sql, o };
	struct table *t = table_new("ranges", "NVTX ranges by path, with the GPU time of the kernels they launched");
	struct range *r = NULL, **byp = NULL;
	struct launch *l = NULL;
	struct group *g = NULL;
	size_t nr = 0, nl = 0, ng = 0, i, k;
	sqlite3_stmt *keep = NULL;
	int rc = -1;

	tables_add(out, t);
	table_cols(t, ranges_cols, NCOLS(ranges_cols));
	if (load_ranges(&sc, &r, &nr) || !(keep = script_next(&sc)) || load_launches(&sc, &l, &nl))
		goto out;
	attribute(r, nr, l, nl);
	if (group_paths(r, nr, keep, &byp, &g, &ng))
		goto out;
	for (k = 0; k < ng; k++)
		for (i = 0; i < g[k].n; i++) {
			g[k].gpu_ns += g[k].r[i]->gpu_ns;
			g[k].kernels += g[k].r[i]->kernels;
		}
	xqsort(g, ng, sizeof(*g), cmp_group);
	for (k = 0; k < ng && (o->top <= 0 || k < (size_t)o->top); k++) {
		size_t row = table_row(t);
		set_stats(t, row, 0, &g[k].s);
		table_set_int(t, row, 1, (int64_t)g[k].n);	/* unfinished ranges count too */
		if (g[k].r[0]->kind == 3) {
			table_set_text(t, row, 7, NULL);
		} else {
			table_set_int(t, row, 7, g[k].gpu_ns);
			table_set_int(t, row, 8, g[k].kernels);
		}
		table_set_text(t, row, 9, styles[g[k].r[0]->kind >= 1 && g[k].r[0]->kind <= 3 ? g[k].r[0]->kind : 0]);
		table_set_text(t, row, 10, g[k].r[0]->name);
		table_set_text(t, row, 11, g[k].r[0]->path);
	}
	rc = 0;
out:
	sqlite3_finalize(keep);
	ranges_free(r, nr);
	free(l);
	free(byp);
	free(g);
	return rc;
}
