/*
 * ranges: NVTX ranges and scopes by nesting path and style (host push/pop, start/end, GPU annotation:
 * never merged, even under one name), with the GPU time each caused (which Nsight Systems does not give).
 * A kernel counts toward every range open on its launching thread when it was launched (gpu_ns; so a
 * parent includes its children), and toward every range of its process open then (window_gpu_ns: work
 * launched by other threads, such as PyTorch's autograd thread). A GPU annotation counts the kernels that
 * started within it on its stream (gpu_ns) and on any stream of its process (window). Ranges that never
 * ended count, but have no duration.
 */
#include "analysis.h"
#include "columns.h"
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
	int64_t gpu_ns, kernels;	/* by the range's own thread (its stream for GPU annotations) */
	int64_t window_ns, window_kernels;	/* by any thread (any stream) of its process */
};

static const char *const styles[] = { "", "PushPop", "StartEnd", "GPU" };

/* The style of a range kind, an index into styles: its group key beside the path. */
static int style_of(int kind)
{
	return kind >= 1 && kind <= 3 ? kind : 0;
}

static int cmp_path(const void *a, const void *b)
{
	const struct range *const *x = a, *const *y = b;
	int c = strcmp((*x)->path, (*y)->path);
	return c ? c : style_of((*x)->kind) - style_of((*y)->kind);
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
		struct buf clean;
		buf_init(&clean);
		buf_init(&folded);
		range_name_clean((const char *)sqlite3_column_text(st, 0), &clean);
		if (names_folded(o) && name_fold(o, clean.s, &folded)) {
			buf_release(&clean);
			buf_release(&folded);
			sqlite3_reset(st);
			return -1;
		}
		ALLOC_GROW(c->names, c->n + 1, c->alloc);
		c->names[c->n++] = xstrdup(names_folded(o) ? folded.s : clean.s);
		buf_release(&clean);
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
 * GPU time by (process, correlation id), from the shared kernel columns. Every kernel with the id counts
 * (a CUDA graph launch's kernels share its id). Correlation ids are dense per process in CUPTI, so a plain
 * array per process serves while they stay below a bound; beyond it, a hash map.
 */
struct corr_durs {
	int64_t pid;
	int64_t *dur;		/* summed kernel time per id */
	uint32_t *kernels;	/* kernels per id, 0 = none */
	uint8_t *taken;		/* 1 once a call with the id was seen (the first call wins) */
	size_t n;		/* ids 0..n-1 in the arrays */
	struct intmap sparse;	/* id + 1 -> index into sdur/skernels/staken, for other ids */
	int64_t *sdur;
	uint32_t *skernels;
	uint8_t *staken;
	size_t ns, as;
};

#define DENSE_MAX ((int64_t)1 << 26)

static void durs_free(struct corr_durs *cd, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		xunmap(cd[i].dur, cd[i].n * sizeof(*cd[i].dur));
		xunmap(cd[i].kernels, cd[i].n * sizeof(*cd[i].kernels));
		xunmap(cd[i].taken, cd[i].n);
		intmap_release(&cd[i].sparse);
		free(cd[i].sdur);
		free(cd[i].skernels);
		free(cd[i].staken);
	}
	free(cd);
}

/* Kernel time per (process index, correlation id) of the kernel columns: one entry per k->pids. */
static struct corr_durs *durs_load(const struct kcols *k)
{
	struct corr_durs *cd = xcalloc(k->npids ? k->npids : 1, sizeof(*cd));
	size_t i;
	for (i = 0; i < k->npids; i++)
		cd[i].pid = k->pids[i];
	for (i = 0; i < k->n; i++) {
		struct corr_durs *c = &cd[k->pid[i]];
		if (k->corr[i] >= 0 && k->corr[i] < DENSE_MAX && (size_t)k->corr[i] >= c->n)
			c->n = (size_t)k->corr[i] + 1;
	}
	for (i = 0; i < k->npids; i++) {
		cd[i].dur = xmap(cd[i].n * sizeof(*cd[i].dur));
		cd[i].kernels = xmap(cd[i].n * sizeof(*cd[i].kernels));
		cd[i].taken = xmap(cd[i].n);
	}
	for (i = 0; i < k->n; i++) {
		struct corr_durs *c = &cd[k->pid[i]];
		int64_t corr = k->corr[i], x;
		if (corr <= 0)
			continue;	/* no correlation id (0 stands for NULL): launched by no call we know */
		if ((size_t)corr < c->n) {
			c->dur[corr] += k->dur[i];
			c->kernels[corr]++;
			continue;
		}
		if (!intmap_get(&c->sparse, corr + 1, &x)) {
			ALLOC_GROW(c->sdur, c->ns + 1, c->as);
			c->skernels = xrealloc(c->skernels, c->as * sizeof(*c->skernels));
			c->staken = xrealloc(c->staken, c->as);
			c->sdur[c->ns] = 0;
			c->skernels[c->ns] = 0;
			c->staken[c->ns] = 0;
			x = (int64_t)c->ns++;
			intmap_put(&c->sparse, corr + 1, x);
		}
		c->sdur[x] += k->dur[i];
		c->skernels[x]++;
	}
	return cd;
}

/*
 * Work summed per range by a sweep, never a range x kernel join: each key (a host thread, a stream or a
 * whole process) has the sorted distinct start and end times of its ranges (its boundaries); work at a
 * time between two boundaries goes into one bucket, and a range's share is the sum of the buckets between
 * its start and its end (a difference of running totals).
 */
struct thread_ranges {
	int64_t pid, thread;	/* thread: a host thread, a stream (GPU annotations), 0 for a whole process */
	int64_t *b;		/* boundaries, ascending */
	size_t nb;
	size_t first;		/* the key's first bucket (nb + 1 of them) in the tally's arrays */
};

struct threads {
	struct thread_ranges *v;
	size_t n, buckets;
	size_t *slot;		/* hash of (pid, thread) -> index + 1 */
	size_t cap;
};

static size_t thread_hash(int64_t pid, int64_t thread, size_t cap)
{
	uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ULL ^ (uint64_t)thread * 0xC2B2AE3D27D4EB4FULL;
	return (size_t)(h >> 32) & (cap - 1);
}

static const struct thread_ranges *thread_find(const struct threads *t, int64_t pid, int64_t thread)
{
	size_t h;
	if (!t->n)
		return NULL;
	for (h = thread_hash(pid, thread, t->cap); t->slot[h]; h = (h + 1) & (t->cap - 1)) {
		const struct thread_ranges *x = &t->v[t->slot[h] - 1];
		if (x->pid == pid && x->thread == thread)
			return x;
	}
	return NULL;
}

/* Index of (pid, thread) in t, or SIZE_MAX. */
static size_t thread_index(const struct threads *t, int64_t pid, int64_t thread)
{
	const struct thread_ranges *x = thread_find(t, pid, thread);
	return x ? (size_t)(x - t->v) : SIZE_MAX;
}

static int cmp_i64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

/*
 * The keys of ranges r (sorted by pid, GPU ranges last, thread, start): host ranges (gpu 0) or GPU
 * annotations (gpu 1), each key a thread (a stream for annotations) or, with whole, a process (thread 0).
 */
static void threads_build(const struct range *r, size_t nr, int gpu, int whole, struct threads *t)
{
	size_t i, j, k, m;
	memset(t, 0, sizeof(*t));
	for (i = 0; i < nr; i = j) {
		struct thread_ranges *x;
		for (j = i; j < nr && r[j].pid == r[i].pid && (whole || r[j].thread == r[i].thread) &&
		     (r[j].kind == 3) == (r[i].kind == 3); j++)
			;
		if ((r[i].kind == 3) != gpu)
			continue;
		t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
		x = &t->v[t->n++];
		x->pid = r[i].pid;
		x->thread = whole ? 0 : r[i].thread;
		x->b = xmalloc(2 * (j - i) * sizeof(*x->b));
		for (x->nb = 0, k = i; k < j; k++) {
			x->b[x->nb++] = r[k].start;
			x->b[x->nb++] = r[k].end;
		}
		xqsort(x->b, x->nb, sizeof(*x->b), cmp_i64);
		for (m = 1, k = 1; k < x->nb; k++)	/* distinct; a key here has at least one range */
			if (x->b[k] != x->b[m - 1])
				x->b[m++] = x->b[k];
		x->nb = m;
		x->first = t->buckets;
		t->buckets += x->nb + 1;
	}
	for (t->cap = 16; t->cap < 2 * t->n; t->cap *= 2)
		;
	t->slot = xcalloc(t->cap, sizeof(*t->slot));
	for (i = 0; i < t->n; i++) {
		size_t h = thread_hash(t->v[i].pid, t->v[i].thread, t->cap);
		while (t->slot[h])
			h = (h + 1) & (t->cap - 1);
		t->slot[h] = i + 1;
	}
}

static void threads_release(struct threads *t)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		free(t->v[i].b);
	free(t->v);
	free(t->slot);
}

/* The number of boundaries at or before ts: the bucket of work at ts. */
static size_t bucket_of(const struct thread_ranges *x, int64_t ts)
{
	size_t lo = 0, hi = x->nb;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->b[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* bucket_of, trying first the bucket at *cursor and the next few (work mostly comes in time order). */
static size_t bucket_near(const struct thread_ranges *x, size_t *cursor, int64_t ts)
{
	size_t p = *cursor, k;
	for (k = 0; k < 4 && p <= x->nb; k++, p++)
		if ((p == 0 || x->b[p - 1] <= ts) && (p == x->nb || ts < x->b[p]))
			return *cursor = p;
	return *cursor = bucket_of(x, ts);
}

/* Kernel time and kernels per bucket of every key of t. */
struct tally {
	struct threads t;
	int64_t *dur, *kern;
	size_t *cursor;		/* per key, for bucket_near */
};

static void tally_init(struct tally *y, const struct range *r, size_t nr, int gpu, int whole)
{
	threads_build(r, nr, gpu, whole, &y->t);
	y->dur = xcalloc(y->t.buckets ? y->t.buckets : 1, sizeof(*y->dur));
	y->kern = xcalloc(y->t.buckets ? y->t.buckets : 1, sizeof(*y->kern));
	y->cursor = xcalloc(y->t.n ? y->t.n : 1, sizeof(*y->cursor));
}

static void tally_release(struct tally *y)
{
	threads_release(&y->t);
	free(y->dur);
	free(y->kern);
	free(y->cursor);
}

/* Work at ts (nk kernels, d ns) on key ti (SIZE_MAX: a key without ranges, ignored). */
static void tally_add(struct tally *y, size_t ti, int64_t ts, int64_t d, int64_t nk)
{
	const struct thread_ranges *x;
	size_t b;
	if (ti == SIZE_MAX)
		return;
	x = &y->t.v[ti];
	b = x->first + bucket_near(x, &y->cursor[ti], ts);
	y->dur[b] += d;
	y->kern[b] += nk;
}

/* Each key's running totals: bucket b becomes the work before boundary b. */
static void tally_sum(struct tally *y)
{
	size_t i, j;
	for (i = 0; i < y->t.n; i++)
		for (j = 1; j <= y->t.v[i].nb; j++) {
			y->dur[y->t.v[i].first + j] += y->dur[y->t.v[i].first + j - 1];
			y->kern[y->t.v[i].first + j] += y->kern[y->t.v[i].first + j - 1];
		}
}

/* The work of key (pid, thread) at or after start and before end, into *d and *nk (after tally_sum). */
static void tally_get(const struct tally *y, int64_t pid, int64_t thread, int64_t start, int64_t end, int64_t *d,
		      int64_t *nk)
{
	const struct thread_ranges *x = thread_find(&y->t, pid, thread);
	size_t bs, be;
	*d = *nk = 0;
	if (!x)
		return;
	/* Work before boundary b is in buckets 0..b: a range's is that before its end, not its start. */
	bs = x->first + bucket_of(x, start) - 1;
	be = x->first + bucket_of(x, end) - 1;
	*d = y->dur[be] - y->dur[bs];
	*nk = y->kern[be] - y->kern[bs];
}

/*
 * Host ranges (kinds 1 and 2): gpu_ns and kernels from the kernels whose launch call (the first API call
 * with the kernel's process and correlation id, in table order) was made on the range's thread at or
 * after its start and before its end; window_gpu_ns and window_kernels from those launched so by any
 * thread of the range's process. 0, or -1 with a message.
 */
static int attribute_host(sqlite3 *db, const struct analysis_opts *o, struct range *r, size_t nr)
{
	const struct kcols *k;
	const struct ccols *c;
	struct corr_durs *cd;
	struct tally th, pr;	/* per thread, per process */
	int64_t x;
	size_t i, j, *kpid, *tmap, *pmap;

	tally_init(&th, r, nr, 0, 0);
	if (!th.t.n) {
		tally_release(&th);
		return 0;	/* no host ranges: no GPU time to give */
	}
	if (!(k = kernels_get(db, o->session, KC_PID | KC_CORR | KC_DUR)) ||
	    !(c = calls_get(db, o->session, CC_PID | CC_THREAD | CC_CORR | CC_START))) {
		tally_release(&th);
		return -1;
	}
	tally_init(&pr, r, nr, 0, 1);
	cd = durs_load(k);
	/* The calls' process and (process, thread) indexes to the kernels' processes and to keys with ranges. */
	kpid = xmalloc((c->npids ? c->npids : 1) * sizeof(*kpid));
	pmap = xmalloc((c->npids ? c->npids : 1) * sizeof(*pmap));
	for (i = 0; i < c->npids; i++) {
		for (kpid[i] = SIZE_MAX, j = 0; j < k->npids; j++)
			if (k->pids[j] == c->pids[i])
				kpid[i] = j;
		pmap[i] = thread_index(&pr.t, c->pids[i], 0);
	}
	tmap = xmalloc((c->npids && c->nthreads ? c->npids * c->nthreads : 1) * sizeof(*tmap));
	for (i = 0; i < c->npids; i++)
		for (j = 0; j < c->nthreads; j++)
			tmap[i * c->nthreads + j] = thread_index(&th.t, c->pids[i], c->threads[j]);
	for (i = 0; i < c->n; i++) {
		struct corr_durs *p;
		int64_t corr = c->corr[i], d;
		uint32_t nk;
		uint8_t *taken;
		if (kpid[c->pid[i]] == SIZE_MAX)
			continue;
		p = &cd[kpid[c->pid[i]]];
		if (corr <= 0)
			continue;	/* as in durs_load */
		if ((size_t)corr < p->n) {
			nk = p->kernels[corr];
			d = p->dur[corr];
			taken = &p->taken[corr];
		} else if (intmap_get(&p->sparse, corr + 1, &x)) {
			nk = p->skernels[x];
			d = p->sdur[x];
			taken = &p->staken[x];
		} else {
			continue;	/* not a kernel launch */
		}
		/* The first call with the kernel's id launched it (a driver call may share the id). */
		if (!nk || *taken)
			continue;
		*taken = 1;
		tally_add(&th, tmap[(size_t)c->pid[i] * c->nthreads + (size_t)c->thread[i]], c->start[i], d, nk);
		tally_add(&pr, pmap[c->pid[i]], c->start[i], d, nk);
	}
	tally_sum(&th);
	tally_sum(&pr);
	for (i = 0; i < nr; i++) {
		if (r[i].kind == 3)
			continue;
		tally_get(&th, r[i].pid, r[i].thread, r[i].start, r[i].end, &r[i].gpu_ns, &r[i].kernels);
		tally_get(&pr, r[i].pid, 0, r[i].start, r[i].end, &r[i].window_ns, &r[i].window_kernels);
	}
	free(kpid);
	free(pmap);
	free(tmap);
	durs_free(cd, k->npids);
	tally_release(&th);
	tally_release(&pr);
	return 0;
}

/*
 * GPU annotations (kind 3, thread holding the stream): gpu_ns and kernels from the kernels of the
 * annotation's process and stream that started at or after its start and before its end; the window from
 * those of any stream of its process. 0, or -1 with a message.
 */
static int attribute_gpu(sqlite3 *db, const struct analysis_opts *o, struct range *r, size_t nr)
{
	const struct kcols *k;
	struct tally st, pr;	/* per stream, per process */
	size_t i, j, *smap, *pmap;

	tally_init(&st, r, nr, 1, 0);
	if (!st.t.n) {
		tally_release(&st);
		return 0;	/* no GPU annotations */
	}
	if (!(k = kernels_get(db, o->session, KC_PID | KC_STREAM | KC_START | KC_DUR))) {
		tally_release(&st);
		return -1;
	}
	tally_init(&pr, r, nr, 1, 1);
	pmap = xmalloc((k->npids ? k->npids : 1) * sizeof(*pmap));
	smap = xmalloc((k->npids && k->nstreams ? k->npids * k->nstreams : 1) * sizeof(*smap));
	for (i = 0; i < k->npids; i++) {
		pmap[i] = thread_index(&pr.t, k->pids[i], 0);
		for (j = 0; j < k->nstreams; j++)
			smap[i * k->nstreams + j] = thread_index(&st.t, k->pids[i], k->streams[j]);
	}
	for (i = 0; i < k->n; i++) {
		tally_add(&st, smap[(size_t)k->pid[i] * k->nstreams + (size_t)k->stream[i]], k->start[i], k->dur[i], 1);
		tally_add(&pr, pmap[k->pid[i]], k->start[i], k->dur[i], 1);
	}
	tally_sum(&st);
	tally_sum(&pr);
	for (i = 0; i < nr; i++) {
		if (r[i].kind != 3)
			continue;
		tally_get(&st, r[i].pid, r[i].thread, r[i].start, r[i].end, &r[i].gpu_ns, &r[i].kernels);
		tally_get(&pr, r[i].pid, 0, r[i].start, r[i].end, &r[i].window_ns, &r[i].window_kernels);
	}
	free(pmap);
	free(smap);
	tally_release(&st);
	tally_release(&pr);
	return 0;
}

static const struct colspec ranges_cols[] = {
	STATS_COLUMNS("count", "Count"),
	{ "gpu_ns", "GPU time", C_NS },
	{ "kernels", "Kernels", C_INT },
	{ "window_gpu_ns", "Window GPU", C_NS },
	{ "window_kernels", "Window kernels", C_INT },
	{ "style", "Style", C_TEXT },
	{ "name", "Name", C_TEXT },
	{ "path", "Path", C_TEXT },
};

struct group {
	struct range **r;	/* the group's ranges */
	size_t n;
	struct dstats s;	/* wall times of the ranges that ended */
	int64_t gpu_ns, kernels, window_ns, window_kernels;	/* summed over the group's ranges */
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	if (strcmp(x->r[0]->path, y->r[0]->path))
		return strcmp(x->r[0]->path, y->r[0]->path);
	return style_of(x->r[0]->kind) - style_of(y->r[0]->kind);
}

/*
 * The ranges grouped by path and style, in that order, into *g and *ng, leaving out the paths statement 3 (keep)
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
		for (j = i; j < nr && !strcmp(p[j]->path, p[i]->path) && style_of(p[j]->kind) == style_of(p[i]->kind);
		     j++)
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

/* The session's ranges grouped by path and style (statements 1 to 3 of ranges.sql), with their GPU time when asked. */
struct path_groups {
	struct range *r;
	size_t nr;
	struct range **byp;	/* r by path; the groups point into it */
	struct group *g;	/* in path and style order */
	size_t ng;
};

static void path_groups_release(struct path_groups *pg)
{
	size_t i;
	for (i = 0; i < pg->nr; i++)
		free(pg->r[i].path);
	free(pg->r);
	free(pg->byp);
	free(pg->g);
}

/* 0, or -1 with a message; release pg either way. */
static int path_groups_load(sqlite3 *db, const char *sql, const struct analysis_opts *o, int gpu,
			    struct path_groups *pg)
{
	struct script sc = { db, sql, o };
	sqlite3_stmt *keep = NULL;
	size_t i, k;
	int rc = -1;

	memset(pg, 0, sizeof(*pg));
	if (load_ranges(&sc, &pg->r, &pg->nr) || !(keep = script_next(&sc)) ||
	    (gpu && (attribute_host(db, o, pg->r, pg->nr) || attribute_gpu(db, o, pg->r, pg->nr))) ||
	    group_paths(pg->r, pg->nr, keep, &pg->byp, &pg->g, &pg->ng))
		goto out;
	for (k = 0; gpu && k < pg->ng; k++)
		for (i = 0; i < pg->g[k].n; i++) {
			pg->g[k].gpu_ns += pg->g[k].r[i]->gpu_ns;
			pg->g[k].kernels += pg->g[k].r[i]->kernels;
			pg->g[k].window_ns += pg->g[k].r[i]->window_ns;
			pg->g[k].window_kernels += pg->g[k].r[i]->window_kernels;
		}
	rc = 0;
out:
	sqlite3_finalize(keep);
	return rc;
}

int ranges_by_path(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct named_stats **out,
		   size_t *n)
{
	struct path_groups pg;
	size_t i;

	*out = NULL;
	*n = 0;
	if (path_groups_load(db, sql, o, 0, &pg)) {
		path_groups_release(&pg);
		return -1;
	}
	*out = xcalloc(pg.ng ? pg.ng : 1, sizeof(**out));
	for (i = 0; i < pg.ng; i++) {
		(*out)[i].name = xstrdup(pg.g[i].r[0]->path);
		(*out)[i].style = styles[style_of(pg.g[i].r[0]->kind)];
		(*out)[i].s = pg.g[i].s;
		(*out)[i].s.n = (int64_t)pg.g[i].n;	/* unfinished ranges count too */
	}
	*n = pg.ng;
	path_groups_release(&pg);
	return 0;
}

int run_ranges(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct table *t = table_new("ranges", "NVTX ranges by path and style, with the GPU time of the kernels they launched");
	struct path_groups pg;
	struct group *g;
	size_t k;

	tables_add(out, t);
	table_cols(t, ranges_cols, NCOLS(ranges_cols));
	t->note = xstrdup("GPU time: kernels launched by the range's thread while it was open; Window: by any thread "
			  "of its process (GPU style: started on its stream; on any stream)");
	if (path_groups_load(db, sql, o, 1, &pg)) {
		path_groups_release(&pg);
		return -1;
	}
	g = pg.g;
	xqsort(g, pg.ng, sizeof(*g), cmp_group);
	for (k = 0; k < pg.ng && (o->top <= 0 || k < (size_t)o->top); k++) {
		size_t row = table_row(t);
		set_stats(t, row, 0, &g[k].s);
		table_set_int(t, row, 1, (int64_t)g[k].n);	/* unfinished ranges count too */
		table_set_int(t, row, 7, g[k].gpu_ns);
		table_set_int(t, row, 8, g[k].kernels);
		table_set_int(t, row, 9, g[k].window_ns);
		table_set_int(t, row, 10, g[k].window_kernels);
		table_set_text(t, row, 11, styles[style_of(g[k].r[0]->kind)]);
		table_set_text(t, row, 12, g[k].r[0]->name);
		table_set_text(t, row, 13, g[k].r[0]->path);
	}
	path_groups_release(&pg);
	return 0;
}
