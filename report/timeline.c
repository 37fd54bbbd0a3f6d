/*
 * timeline: the HTML report's timeline, one SVG for the session. Rows, top to bottom: per process, a row
 * per host thread with its NVTX ranges (push/pop ranges, nested ones a sub-row lower, then start/end
 * ranges); per GPU (node, device: see analyze/ext/sqlext_nodes.c), a lane per stream with its kernels (upper bar)
 * and copies and memsets (lower bar), and under it the stream's GPU-side NVTX annotations (kind 3).
 * Every bar's <title> says what it is, how long and where (stream or thread).
 *
 * Zoom: the plot is a nested <svg class="tlp"> whose viewBox spans NF units of session time, so each
 * unit is a pixel at the deepest zoom; report/timeline.js changes that viewBox, relabels the axis and
 * moves the range names. Without script the page shows the whole session.
 *
 * Bounded output: in each row, intervals shorter than t that lie less than t apart merge into one bar
 * (its title counts them, its opacity is their busy share), t doubling from one unit until the row fits
 * its share of a budget of bars. Streams past MAX_LANES per GPU fold into one lane; threads past
 * MAX_THREADS per process and ranges nested deeper than MAX_DEPTH are left out; the note under the
 * chart says what was merged or left out.
 */
#include "db.h"
#include "html.h"
#include "intmap.h"
#include "rows.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NF 1000000		/* plot units across the session: one a pixel at the deepest zoom (NF / NB) */
#define BAR_BUDGET 2000		/* kernel and copy bars in all lanes together, shared by their counts */
#define RANGE_BUDGET 2000	/* NVTX range bars in all rows together, likewise */
#define MIN_ROW_BARS 64		/* bars a row may have however many rows there are */
#define MAX_LANES 24		/* streams shown per GPU; the rest fold into one lane */
#define MAX_THREADS 16		/* NVTX threads shown per process, those with the most ranges */
#define MAX_DEPTH 8		/* sub-rows of one thread's (or stream's) ranges of one kind */
#define TITLE_NAME 128		/* bytes of a name in a title, the NUL included: longer ones cut */
#define NAME_MIN_PX 24		/* a range's name is written inside its bar when the bar is this wide */
#define OPEN_END (1 << 30)	/* in iv.aux: the range never ended (drawn to the session's end) */
#define DOMAIN(aux) (((aux) & (OPEN_END - 1)) - 1)	/* iv.aux's domain id, -1 for none */
#define LANE_H 18		/* a stream's lane: kernels 11, copies 5 */
#define RANGE_H 16		/* one sub-row of ranges: names of 12 px in bars of 14 */
#define HEAD_H 20		/* a process's or GPU's heading */

struct iv {
	int64_t s, e;		/* ns since the session's start */
	int32_t name;		/* strings id; ops: -1 memset, -1000 - k memcpy of copy_kinds k */
	int32_t aux;		/* ranges: 1 + domain strings id (0: none), | OPEN_END; ops: 0 */
};

struct ivs {
	struct iv *v;
	size_t n, alloc;
};

struct lane {
	int64_t node, device, stream;	/* stream -1 when unknown; -2 for the folded "other streams" lane */
	struct ivs ops[2];		/* [0] kernels, [1] copies and memsets, by start once sorted */
	struct ivs sub[MAX_DEPTH];	/* the stream's GPU-side ranges, by nesting depth */
	int nsub;			/* sub-rows used */
	int64_t busy;			/* summed durations of ops */
	int nstreams;			/* streams folded into this lane */
	int64_t pid;			/* a process with ranges on it: for the rows' "where" */
};

struct thread {
	int64_t pid, tid;		/* tid -1 when unknown */
	struct ivs sub[2][MAX_DEPTH];	/* [0] push/pop, [1] start/end ranges, by depth */
	int nsub[2];
	size_t n;			/* its ranges */
};

/* A pid's node and how the GPUs and processes of that node are named (temp.gpu_nodes). */
struct node_of {
	int64_t pid, node;
	char name[64];			/* "rank 3", "host a" or "" in a session of one node */
};

enum { ROW_HEAD, ROW_LANE, ROW_RANGES };

struct row {
	int kind, y, h;
	const struct lane *lane;	/* ROW_LANE */
	const struct ivs *iv;		/* ROW_RANGES: one sub-row */
	char label[112];		/* left of the plot */
	char tip[352];			/* the label's title */
	char where[240];		/* in bar titles: "stream 7 of GPU 0" */
};

struct tl {
	FILE *out;
	const struct report_doc *d;
	sqlite3 *db;
	double unit;			/* ns per plot unit */
	int64_t span;
	sqlite3_stmt *str, *copy;	/* a string by id; a copy kind's name */
	struct node_of *nodes;
	size_t nnodes, nodes_alloc;
	struct intmap node_index;	/* pid + 1 (intmap keeps no 0: Kineto's pid) to its index in nodes */
	int multi;			/* several nodes: GPUs and processes say which */
	struct lane **lanes;
	size_t nlanes, lanes_alloc;
	struct thread **threads;
	size_t nthreads, threads_alloc;
	struct row *rows;
	size_t nrows, rows_alloc;
	size_t dropped_deep, dropped_threads, dropped_gpu_ranges, merged_bars;
	double max_t;			/* the widest merge threshold any row needed, ns */
	char buf[TITLE_NAME];		/* name_of's answer */
	int failed;			/* name_of could not read a name (its message printed) */
};

static void ivs_add(struct ivs *a, int64_t s, int64_t e, int32_t name, int32_t aux)
{
	ALLOC_GROW(a->v, a->n + 1, a->alloc);
	a->v[a->n].s = s;
	a->v[a->n].e = e;
	a->v[a->n].name = name;
	a->v[a->n++].aux = aux;
}

static int iv_cmp(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->e > y->e ? -1 : x->e < y->e;
}

/* a in iv_cmp's order; left as it is when it is so already (a lane's kernels come in start order). */
static void ivs_sort(struct ivs *a)
{
	size_t i;
	for (i = 1; i < a->n && iv_cmp(&a->v[i - 1], &a->v[i]) <= 0; i++)
		;
	if (i < a->n)
		xqsort(a->v, a->n, sizeof(struct iv), iv_cmp);
}

/* The node of pid (0 when unknown), and its name in *name. */
static int64_t node_find(const struct tl *c, int64_t pid, const char **name)
{
	int64_t i;
	if (!intmap_get(&c->node_index, (int64_t)((uint64_t)pid + 1), &i)) {
		*name = "";
		return 0;
	}
	*name = c->nodes[i].name;
	return c->nodes[i].node;
}

static int nodes_read(struct tl *c)
{
	sqlite3_stmt *st;
	int rc;
	if (!(st = rows_open(c->db, "timeline_nodes")))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct node_of *n;
		ALLOC_GROW(c->nodes, c->nnodes + 1, c->nodes_alloc);
		n = &c->nodes[c->nnodes++];
		n->pid = sqlite3_column_int64(st, 0);
		n->node = sqlite3_column_int64(st, 1);
		intmap_put(&c->node_index, (int64_t)((uint64_t)n->pid + 1), (int64_t)c->nnodes - 1);
		if (n->node > 0)
			c->multi = 1;
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			snprintf(n->name, sizeof(n->name), "rank %lld", (long long)sqlite3_column_int64(st, 3));
		else if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			snprintf(n->name, sizeof(n->name), "%s", (const char *)sqlite3_column_text(st, 2));
		else
			n->name[0] = '\0';
	}
	return rows_end(st, rc);
}

/* The lane of (node, device, stream), added if new; device -1 matches any device of the node. */
static struct lane *lane_get(struct tl *c, struct lane **last, int64_t node, int64_t dev, int64_t stream)
{
	size_t i;
	struct lane *l = *last;
	if (l && l->node == node && (dev < 0 || l->device == dev) && l->stream == stream)
		return l;
	for (i = 0; i < c->nlanes; i++) {
		l = c->lanes[i];
		if (l->node == node && (dev < 0 || l->device == dev) && l->stream == stream)
			return *last = l;
	}
	ALLOC_GROW(c->lanes, c->nlanes + 1, c->lanes_alloc);
	l = c->lanes[c->nlanes++] = xcalloc(1, sizeof(struct lane));
	l->node = node;
	l->device = dev;
	l->stream = stream;
	l->nstreams = 1;
	l->pid = -1;
	return *last = l;
}

/* Kernels, copies and memsets into their lanes. */
static int ops_read(struct tl *c, int64_t t0)
{
	static const char *const views[] = { "timeline_kernels", "timeline_memcpys", "timeline_memsets" };
	struct lane *last = NULL;
	size_t v;
	for (v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		sqlite3_stmt *st;
		int rc;
		if (!(st = rows_open(c->db, views[v])))
			return -1;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *nn;
			int64_t node = node_find(c, sqlite3_column_int64(st, 1), &nn);
			int64_t s = sqlite3_column_int64(st, 4) - t0, e = sqlite3_column_int64(st, 5) - t0;
			struct lane *l = lane_get(c, &last, node, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
			ivs_add(&l->ops[sqlite3_column_int(st, 0)], s, e, sqlite3_column_int(st, 6), 0);
			l->busy += e > s ? e - s : 0;
		}
		if (rows_end(st, rc))
			return -1;
	}
	return 0;
}

/*
 * One range into the first of sub[0..MAX_DEPTH) free at its start (ranges come by start, the longest
 * first, so a nested range lands a sub-row below the one holding it); counted as left out past MAX_DEPTH.
 */
static void range_place(struct tl *c, struct ivs *sub, int *nsub, const struct iv *r)
{
	int d;
	for (d = 0; d < MAX_DEPTH; d++)
		if (d >= *nsub || sub[d].v[sub[d].n - 1].e <= r->s)
			break;
	if (d == MAX_DEPTH) {
		c->dropped_deep++;
		return;
	}
	if (d == *nsub)
		(*nsub)++;
	ivs_add(&sub[d], r->s, r->e, r->name, r->aux);
}

/* NVTX ranges: host ones (kinds 1, 2) per thread, GPU ones (3) on their stream's lane. */
static int ranges_read(struct tl *c, int64_t t0)
{
	struct thread *th = NULL;
	struct lane *last = NULL;
	sqlite3_stmt *st;
	int rc;
	if (!(st = rows_open(c->db, "timeline_ranges")))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int kind = sqlite3_column_int(st, 0);
		int64_t pid = sqlite3_column_int64(st, 1), tid = sqlite3_column_int64(st, 2);
		struct iv r;
		r.s = sqlite3_column_int64(st, 3) - t0;
		r.e = sqlite3_column_int64(st, 4) - t0;
		r.name = sqlite3_column_int(st, 5);
		r.aux = (sqlite3_column_int(st, 6) + 1) | (sqlite3_column_int(st, 7) ? OPEN_END : 0);
		if (kind == 3) {
			const char *nn;
			struct lane *l = lane_get(c, &last, node_find(c, pid, &nn), -1, tid);
			l->pid = pid;
			range_place(c, l->sub, &l->nsub, &r);
			continue;
		}
		if (!th || th->pid != pid || th->tid != tid) {
			ALLOC_GROW(c->threads, c->nthreads + 1, c->threads_alloc);
			th = c->threads[c->nthreads++] = xcalloc(1, sizeof(struct thread));
			th->pid = pid;
			th->tid = tid;
		}
		th->n++;
		range_place(c, th->sub[kind - 1], &th->nsub[kind - 1], &r);
	}
	return rows_end(st, rc);
}

static int lane_cmp(const void *a, const void *b)
{
	const struct lane *x = *(const struct lane *const *)a, *y = *(const struct lane *const *)b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->busy != y->busy)
		return x->busy > y->busy ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* Processes in pid order, their threads with the most ranges first. */
static int thread_cmp(const void *a, const void *b)
{
	const struct thread *x = *(const struct thread *const *)a, *y = *(const struct thread *const *)b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * A name for bar titles: a string of the session, a copy's kind or "memset"; "?" when unknown. When the
 * database cannot be read, "?" too and c->failed set (one message, for the first).
 */
static const char *name_of(struct tl *c, int32_t id)
{
	sqlite3_stmt *st = id >= 0 ? c->str : id <= -1000 ? c->copy : NULL;
	int rc;
	snprintf(c->buf, sizeof(c->buf), "%s", id == -1 ? "memset" : "?");
	if (!st)
		return c->buf;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id >= 0 ? id : -1000 - (int64_t)id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (id >= 0)
			html_short_name(c->buf, TITLE_NAME, (const char *)sqlite3_column_text(st, 0));
		else
			snprintf(c->buf, sizeof(c->buf), "memcpy %s", (const char *)sqlite3_column_text(st, 0));
	} else if (rc != SQLITE_DONE && !c->failed) {
		c->failed = 1;
		db_error(c->db);
	}
	return c->buf;
}

struct cluster {
	size_t i, j, longest;	/* v[i, j) merged; the longest of them */
	int64_t s, e, busy;	/* extent, and the length of the union of the intervals */
};

/*
 * The bar starting at v[i] (v by start): v[i] alone when at least t long; else with the next intervals
 * shorter than t that start less than t after the bar's end, while the bar spans less than 4t.
 */
static void cluster_at(const struct iv *v, size_t n, size_t i, double t, struct cluster *k)
{
	k->i = k->longest = i;
	k->s = v[i].s;
	k->e = v[i].e;
	k->busy = v[i].e - v[i].s;
	for (k->j = i + 1; (double)(v[i].e - v[i].s) < t && k->j < n; k->j++) {
		const struct iv *x = &v[k->j];
		if ((double)(x->e - x->s) >= t || (double)(x->s - k->e) >= t || (double)(x->e - k->s) >= 4 * t)
			break;
		if (x->e > k->e) {
			k->busy += x->e - (x->s > k->e ? x->s : k->e);
			k->e = x->e;
		}
		if (x->e - x->s > v[k->longest].e - v[k->longest].s)
			k->longest = k->j;
	}
}

/* The merge threshold for a row of intervals: from one plot unit, doubled until its bars fit budget. */
static double row_threshold(struct tl *c, const struct ivs *a, size_t budget)
{
	double t = c->unit;
	for (;;) {
		size_t i = 0, bars = 0;
		struct cluster k;
		while (i < a->n && bars <= budget) {
			cluster_at(a->v, a->n, i, t, &k);
			i = k.j;
			bars++;
		}
		if (bars <= budget)
			break;
		t *= 2;
	}
	if (t > c->max_t && t > c->unit)
		c->max_t = t;
	return t;
}

/* The plot units [*x0, *x1) of [s, e): at least one unit wide. */
static void units_of(const struct tl *c, int64_t s, int64_t e, long *x0, long *x1)
{
	*x0 = (long)floor((double)s / c->unit);
	*x1 = (long)ceil((double)e / c->unit);
	if (*x0 < 0)
		*x0 = 0;
	if (*x1 > NF)
		*x1 = NF;
	if (*x1 <= *x0)
		*x1 = *x0 + 1;
}

/*
 * A row's bars into the plot, class cls (NULL: ranges, coloured by name), at y and height h, each titled with what it holds (what, plural:
 * "kernels", "ranges") and where. The names of ranges drawn alone and wide enough go to names (when not
 * NULL), as <svg class="lb"> boxes at name_y that report/timeline.js moves with the zoom.
 */
static void row_bars(struct tl *c, const struct ivs *a, size_t budget, const char *cls, int y, int h,
		     const char *what, const char *where, FILE *names, int name_y)
{
	double t = row_threshold(c, a, budget);
	size_t i = 0;
	struct cluster k;
	while (i < a->n) {
		const struct iv *l;
		long x0, x1;
		char dur[64], busy[64];
		int level, open;
		cluster_at(a->v, a->n, i, t, &k);
		i = k.j;
		l = &a->v[k.longest];
		open = (l->aux & OPEN_END) != 0;
		units_of(c, k.s, k.e, &x0, &x1);
		level = k.e > k.s ? (int)ceil((double)k.busy / (double)(k.e - k.s) * 10) : 10;
		if (cls)
			fprintf(c->out, "<rect class=\"%s%s\" x=\"%ld\"", cls, k.j - k.i > 1 ? " m" : "", x0);
		else	/* a range: its name's colour (not the kernels' or copies'), so neighbours stand apart */
			fprintf(c->out, "<rect class=\"nv s%u%s\" x=\"%ld\"", 2 + ((uint32_t)l->name * 2654435761u >> 16) % 6,
				k.j - k.i > 1 ? " m" : "", x0);
		if (y)
			fprintf(c->out, " y=\"%d\"", y);
		fprintf(c->out, " width=\"%ld\" height=\"%d\"", x1 - x0, h);
		if (level < 10)
			fprintf(c->out, " opacity=\".%d\"", level < 1 ? 1 : level);
		fputs("><title>", c->out);
		if (k.j - k.i > 1) {
			c->merged_bars++;
			fmt_ns(dur, sizeof(dur), (double)(k.e - k.s));
			fmt_ns(busy, sizeof(busy), (double)k.busy);
			fprintf(c->out, "%zu %s in %s (busy %s) on ", k.j - k.i, what, dur, busy);
			html_esc(c->out, where);
			fputs("&#10;longest: ", c->out);
		}
		if (DOMAIN(l->aux) >= 0) {
			html_esc(c->out, name_of(c, DOMAIN(l->aux)));
			fputs(": ", c->out);
		}
		html_esc(c->out, name_of(c, l->name));
		fmt_ns(dur, sizeof(dur), (double)(l->e - l->s));
		fprintf(c->out, "&#10;%s%s%s", open ? "at least " : "", dur, open ? " (never ended)" : "");
		if (k.j - k.i == 1) {
			fputs(" on ", c->out);
			html_esc(c->out, where);
		}
		fputs("</title></rect>", c->out);
		if (names && k.j - k.i == 1 && x1 - x0 >= NAME_MIN_PX) {
			double px = LABEL_W + (double)x0 * NB / NF, pw = (double)(x1 - x0) * NB / NF;
			fprintf(names, "<svg class=\"lb\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" data-a=\"%ld\" "
				"data-b=\"%ld\"%s><text x=\"2\" y=\"%d\">", px, name_y, pw, h, x0, x1,
				pw < NAME_MIN_PX ? " display=\"none\"" : "", h - 3);
			html_esc(names, name_of(c, l->name));
			fputs("</text></svg>\n", names);
		}
	}
}

static struct row *row_add(struct tl *c, int kind, int *y, int h)
{
	struct row *r;
	ALLOC_GROW(c->rows, c->nrows + 1, c->rows_alloc);
	r = &c->rows[c->nrows++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->y = *y;
	r->h = h;
	*y += h;
	return r;
}

/* Rows of the host threads' ranges, per process: a heading, then each thread's sub-rows. */
static void thread_rows(struct tl *c, int *y)
{
	size_t i, j;
	xqsort(c->threads, c->nthreads, sizeof(*c->threads), thread_cmp);
	for (i = 0; i < c->nthreads; i = j) {
		const char *nn;
		struct row *h = row_add(c, ROW_HEAD, y, HEAD_H);
		node_find(c, c->threads[i]->pid, &nn);
		snprintf(h->label, sizeof(h->label), "process %lld%s%s%s", (long long)c->threads[i]->pid,
			 c->multi ? " (" : "", c->multi ? nn : "", c->multi ? ")" : "");
		for (j = i; j < c->nthreads && c->threads[j]->pid == c->threads[i]->pid; j++) {
			const struct thread *t = c->threads[j];
			char tid[32];
			int kind, d;
			if (j - i >= MAX_THREADS) {
				c->dropped_threads++;
				continue;
			}
			if (t->tid < 0)
				snprintf(tid, sizeof(tid), "thread ?");
			else
				snprintf(tid, sizeof(tid), "thread %lld", (long long)t->tid);
			for (kind = 0; kind < 2; kind++)
				for (d = 0; d < t->nsub[kind]; d++) {
					struct row *r = row_add(c, ROW_RANGES, y, RANGE_H);
					r->iv = &t->sub[kind][d];
					if (d == 0)
						snprintf(r->label, sizeof(r->label), "%s%s", kind && t->nsub[0] ? "" : tid,
							 kind ? " start/end" : "");
					snprintf(r->where, sizeof(r->where), "%s, pid %lld", tid, (long long)t->pid);
					snprintf(r->tip, sizeof(r->tip), "%s: %zu NVTX ranges", r->where, t->n);
				}
		}
	}
}

/* Stream lanes folded into one: their ops by start, busy summed. */
static struct lane *lanes_fold(struct tl *c, struct lane **v, size_t n)
{
	struct lane *o = xcalloc(1, sizeof(*o));
	size_t i, k;
	int m;
	o->node = v[0]->node;
	o->device = v[0]->device;
	o->stream = -2;
	for (i = 0; i < n; i++) {
		for (m = 0; m < 2; m++)
			for (k = 0; k < v[i]->ops[m].n; k++)
				ivs_add(&o->ops[m], v[i]->ops[m].v[k].s, v[i]->ops[m].v[k].e, v[i]->ops[m].v[k].name, 0);
		for (m = 0; m < v[i]->nsub; m++)
			c->dropped_gpu_ranges += v[i]->sub[m].n;
		o->busy += v[i]->busy;
		o->nstreams++;
	}
	for (m = 0; m < 2; m++)
		ivs_sort(&o->ops[m]);
	return o;
}

/* Rows of the GPUs: per (node, device) a heading, then a lane per stream and its GPU ranges' sub-rows. */
static void gpu_rows(struct tl *c, int *y)
{
	size_t i, j, k, m;
	for (i = 0; i < c->nlanes; i++)
		for (m = 0; m < 2; m++)
			ivs_sort(&c->lanes[i]->ops[m]);
	xqsort(c->lanes, c->nlanes, sizeof(*c->lanes), lane_cmp);
	for (i = 0; i < c->nlanes; i = j) {
		const struct lane *g = c->lanes[i];
		const char *nn = "";
		char gpu[112];
		size_t shown;
		struct row *h;
		for (j = i; j < c->nlanes && c->lanes[j]->node == g->node && c->lanes[j]->device == g->device; j++)
			;
		for (k = 0; c->multi && k < c->nnodes; k++)
			if (c->nodes[k].node == g->node) {
				nn = c->nodes[k].name;
				break;
			}
		if (g->device < 0)
			snprintf(gpu, sizeof(gpu), "%s%sGPU ?", nn, *nn ? " " : "");
		else
			snprintf(gpu, sizeof(gpu), "%s%sGPU %lld", nn, *nn ? " " : "", (long long)g->device);
		h = row_add(c, ROW_HEAD, y, HEAD_H);
		snprintf(h->label, sizeof(h->label), "%s", gpu);
		shown = j - i > MAX_LANES ? MAX_LANES - 1 : j - i;
		for (k = 0; k < shown + (j - i > shown); k++) {
			const struct lane *l = k < shown ? c->lanes[i + k] : lanes_fold(c, c->lanes + i + shown, j - i - shown);
			struct row *r = row_add(c, ROW_LANE, y, LANE_H);
			char busy[64];
			int d;
			r->lane = l;
			if (l->stream == -2)
				snprintf(r->label, sizeof(r->label), "%d other streams", l->nstreams);
			else if (l->stream == -1)
				snprintf(r->label, sizeof(r->label), "stream ?");
			else
				snprintf(r->label, sizeof(r->label), "stream %lld", (long long)l->stream);
			snprintf(r->where, sizeof(r->where), "%s, %s", r->label, gpu);
			fmt_ns(busy, sizeof(busy), (double)l->busy);
			snprintf(r->tip, sizeof(r->tip), "%s: %zu kernels, %zu copies and memsets, busy %s", r->where,
				 l->ops[0].n, l->ops[1].n, busy);
			for (d = 0; d < l->nsub; d++) {
				struct row *s = row_add(c, ROW_RANGES, y, RANGE_H);
				s->iv = &l->sub[d];
				snprintf(s->label, sizeof(s->label), "%s", d ? "" : "NVTX");
				snprintf(s->where, sizeof(s->where), "%s", r->where);
				snprintf(s->tip, sizeof(s->tip), "%s: GPU-side NVTX ranges", r->where);
			}
		}
	}
}

static void lane_free(struct lane *l)
{
	int m;
	for (m = 0; m < 2; m++)
		free(l->ops[m].v);
	for (m = 0; m < MAX_DEPTH; m++)
		free(l->sub[m].v);
	free(l);
}

/* What was merged or left out, under the chart. */
static void timeline_note(struct tl *c)
{
	char t[64];
	fputs("<p class=\"note\">Hover a bar for what it holds. ", c->out);
	if (c->merged_bars) {
		fmt_ns(t, sizeof(t), c->max_t);
		fprintf(c->out, "Bars of several events (%zu, drawn lighter where less busy) merge events shorter than "
			"a pixel at the deepest zoom, or than %s in the busiest rows, so the page stays small. ",
			c->merged_bars, t);
	}
	if (c->dropped_deep)
		fprintf(c->out, "%zu NVTX ranges nested more than %d deep are not drawn. ", c->dropped_deep, MAX_DEPTH);
	if (c->dropped_threads)
		fprintf(c->out, "%zu threads past the %d with the most ranges in their process are not drawn. ",
			c->dropped_threads, MAX_THREADS);
	if (c->dropped_gpu_ranges)
		fprintf(c->out, "%zu GPU-side NVTX ranges of folded streams are not drawn. ", c->dropped_gpu_ranges);
	fputs("</p>\n", c->out);
}

/* A row's share of budget: in proportion to its n of all, at least MIN_ROW_BARS. */
static size_t share(size_t budget, size_t n, size_t all)
{
	size_t b = all ? (size_t)((double)budget * (double)n / (double)all) : budget;
	return b > MIN_ROW_BARS ? b : MIN_ROW_BARS;
}

/* The section: rows' labels, the axis, the zoomable plot of bars, the range names, the note. */
static int timeline_write(struct tl *c, int height)
{
	size_t i, ops = 0, ranges = 0;
	char *names = NULL;
	size_t names_len = 0;
	FILE *nf = open_memstream(&names, &names_len);
	if (!nf)
		return error("html: cannot buffer the timeline: out of memory");
	for (i = 0; i < c->nrows; i++) {
		if (c->rows[i].kind == ROW_LANE)
			ops += c->rows[i].lane->ops[0].n + c->rows[i].lane->ops[1].n;
		if (c->rows[i].kind == ROW_RANGES)
			ranges += c->rows[i].iv->n;
	}
	fputs("<section id=\"c-timeline\"><h2>Timeline</h2>\n<p class=\"sub legend\">", c->out);
	if (ops)
		fputs("<span><i class=\"k\"></i>kernels</span><span><i class=\"cp\"></i>copies and memsets</span>", c->out);
	if (ranges)
		fputs("<span><i class=\"c2\"></i><i class=\"c3\"></i><i class=\"c5\"></i>NVTX ranges, coloured by name; "
		      "nested ones a row lower</span>", c->out);
	fputs("<span>lighter = less busy</span></p>\n<div class=\"tl\"><p class=\"tlbar\" hidden>"
	      "<button type=\"button\" value=\"2\">Zoom in</button><button type=\"button\" value=\"0.5\">Zoom out"
	      "</button><button type=\"button\">Reset</button><span class=\"muted\">Ctrl+wheel zooms at the "
	      "pointer, drag pans, double-click resets</span></p>\n", c->out);
	html_chart_open(c->out, "chart tlc", LABEL_W + NB + 10, height + 22, "Timeline");
	for (i = 0; i < c->nrows; i++) {
		const struct row *r = &c->rows[i];
		if (r->kind == ROW_HEAD) {
			fprintf(c->out, "<text class=\"hd\" x=\"0\" y=\"%d\">", r->y + 14);
			html_esc(c->out, r->label);
			fprintf(c->out, "</text><line class=\"grid\" x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", r->y + 18,
				LABEL_W + NB, r->y + 18);
			continue;
		}
		fprintf(c->out, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
			r->kind == ROW_LANE ? "lane" : "lane nvl", LABEL_W, r->y, NB, r->h - 2);
		if (!*r->label) {
			fputs("\n", c->out);
			continue;
		}
		fprintf(c->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"><title>", LABEL_W - 6, r->y + 11);
		html_esc(c->out, r->tip);
		fputs("</title>", c->out);
		html_esc(c->out, r->label);
		fputs("</text>\n", c->out);
	}
	fputs("<g class=\"ax\">", c->out);
	html_time_axis(c->out, height, 14, (double)c->span);
	fprintf(c->out, "</g>\n<svg class=\"tlp\" x=\"%d\" y=\"0\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"preserveAspectRatio=\"none\" data-nf=\"%d\" data-span=\"%lld\">\n", LABEL_W, NB, height, NF, height,
		NF, (long long)c->span);
	for (i = 0; i < c->nrows; i++) {
		const struct row *r = &c->rows[i];
		if (r->kind == ROW_HEAD)
			continue;
		fprintf(c->out, "<g transform=\"translate(0 %d)\">", r->y);
		if (r->kind == ROW_LANE) {
			row_bars(c, &r->lane->ops[0], share(BAR_BUDGET, r->lane->ops[0].n, ops), "k", 0, 11, "kernels",
				 r->where, NULL, 0);
			row_bars(c, &r->lane->ops[1], share(BAR_BUDGET, r->lane->ops[1].n, ops), "cp", 11, 5,
				 "copies and memsets", r->where, NULL, 0);
		} else
			row_bars(c, r->iv, share(RANGE_BUDGET, r->iv->n, ranges), NULL, 0, r->h - 2, "NVTX ranges", r->where,
				 nf, r->y);
		fputs("</g>\n", c->out);
	}
	fputs("</svg>\n", c->out);
	fclose(nf);
	if (names)
		fwrite(names, 1, names_len, c->out);
	free(names);
	fputs("</svg></div></div>\n", c->out);
	timeline_note(c);
	fputs("</section>\n", c->out);
	return 0;
}

int html_timeline(FILE *out, const struct report_doc *d, int64_t t0, int64_t t1)
{
	struct tl c;
	size_t i;
	int ret = 0, y = 0, kind, m;
	if (t1 <= t0)
		return 0;
	memset(&c, 0, sizeof(c));
	c.out = out;
	c.d = d;
	c.db = d->db;
	c.span = t1 - t0;
	c.unit = (double)c.span / NF;
	/* The rows: analyze/timeline.sql's views, which report_html made for the session. */
	if (!(c.str = rows_open_by(c.db, "timeline_strings", "id")) ||
	    !(c.copy = rows_open_by(c.db, "timeline_copy_kinds", "id")) || nodes_read(&c) || ops_read(&c, t0) ||
	    ranges_read(&c, t0)) {
		ret = -1;
		goto done;
	}
	if (!c.nlanes && !c.nthreads)
		goto done;
	thread_rows(&c, &y);
	gpu_rows(&c, &y);
	ret = timeline_write(&c, y);
	if (c.failed)
		ret = -1;
done:
	for (i = 0; i < c.nrows; i++)
		if (c.rows[i].kind == ROW_LANE && c.rows[i].lane->stream == -2)
			lane_free((struct lane *)c.rows[i].lane);
	for (i = 0; i < c.nlanes; i++)
		lane_free(c.lanes[i]);
	for (i = 0; i < c.nthreads; i++) {
		for (kind = 0; kind < 2; kind++)
			for (m = 0; m < MAX_DEPTH; m++)
				free(c.threads[i]->sub[kind][m].v);
		free(c.threads[i]);
	}
	free(c.lanes);
	free(c.threads);
	free(c.rows);
	free(c.nodes);
	intmap_release(&c.node_index);
	sqlite3_finalize(c.str);
	sqlite3_finalize(c.copy);
	return ret;
}
