/*
 * memory, leaks, peak and growth: GPU memory from allocation events.
 *
 * Allocations and frees are paired by (process, device, address) in time order. What is still live at
 * the end is a leak candidate; a free of memory allocated before the capture began is counted apart,
 * never as a leak. The peak is the highest live total: the source's own running total (Kineto's
 * "Total Allocated") when it has one, since allocations made before the capture are invisible otherwise.
 * A device pairs only when every one of its events has an address (some PyTorch versions write none):
 * otherwise nothing of it is paired, its peak comes from the source's running total or the running sum
 * of signed bytes, and what leaked is unknown, never guessed.
 * Growth: live bytes at the end of each iteration (ranges such as ProfilerStep#N or step), a least-squares
 * slope per iteration and its R^2, which catches memory that leaks but is freed at exit.
 */
#include "analysis.h"
#include "intmap.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ITERATIONS_RE "^(ProfilerStep#\\d+|step|iteration|train_step|Step \\d+)$"
#define MiB (1024.0 * 1024.0)

struct alloc {
	int64_t pid, device, address, ts, bytes, site, kind, pc;
	int64_t freed;		/* time of its free, INT64_MAX while live */
	int64_t next;		/* index of the next live allocation at the same address, -1 */
};

/* Where a device's peak comes from (its name in the output: peak_from). */
enum peak_from { FROM_ADDRESSES, FROM_TOTAL, FROM_BYTES };
static const char *const peak_from_names[] = { "addresses", "total_allocated", "bytes" };

struct dev_mem {
	int64_t device;
	int64_t events, addressed, totalled;	/* its events, those with an address, those with a total */
	int64_t allocs, frees, alloc_bytes;
	int64_t live, peak, peak_ns;		/* paired blocks (events with an address) */
	int64_t prior_frees, prior_free_bytes;	/* frees of memory allocated before the capture */
	int64_t total, total_peak, total_peak_ns;	/* the source's running total, each process's latest summed */
	int64_t sum, sum_peak, sum_peak_ns;	/* the running sum of signed bytes */
	struct pid_total { int64_t pid, total; } *pt;	/* each process's latest total */
	size_t npt, apt;
	int paired;		/* every event has an address: blocks pair (set by dev_finish) */
	enum peak_from from;	/* set by dev_finish */
};

struct mem {
	struct alloc *a;
	size_t n, alloc;
	struct dev_mem *d;
	size_t nd, ad;
	/* Live bytes over time per device, at every event, by each rule (dev_value picks): for growth. */
	struct sample { int64_t device, ts, live, total, sum; } *tl;
	size_t ntl, atl;
};

static struct dev_mem *dev_of(struct mem *m, int64_t device)
{
	size_t i;
	for (i = 0; i < m->nd; i++)
		if (m->d[i].device == device)
			return &m->d[i];
	ALLOC_GROW(m->d, m->nd + 1, m->ad);
	memset(&m->d[m->nd], 0, sizeof(*m->d));
	m->d[m->nd].device = device;
	return &m->d[m->nd++];
}

/* The device's entry, or NULL. */
static const struct dev_mem *dev_find(const struct mem *m, int64_t device)
{
	size_t i;
	for (i = 0; i < m->nd; i++)
		if (m->d[i].device == device)
			return &m->d[i];
	return NULL;
}

/* Add one event's running total of process pid: the device's total is every process's latest, summed. */
static void dev_total(struct dev_mem *d, int64_t pid, int64_t total, int64_t ts)
{
	size_t i;
	for (i = 0; i < d->npt && d->pt[i].pid != pid; i++)
		;
	if (i == d->npt) {
		ALLOC_GROW(d->pt, d->npt + 1, d->apt);
		d->pt[d->npt].pid = pid;
		d->pt[d->npt++].total = 0;
	}
	d->total += total - d->pt[i].total;
	d->pt[i].total = total;
	if (!d->totalled || d->total > d->total_peak) {
		d->total_peak = d->total;
		d->total_peak_ns = ts;
	}
	d->totalled++;
}

/*
 * Settle how a device's memory is known once all its events are in. Its blocks pair when every event has
 * an address. The peak is the source's running total when every event has one (and, with pairing, when
 * it is no lower than the paired peak: it holds the blocks from before the capture), else the paired
 * blocks', else the running sum of signed bytes.
 */
static void dev_finish(struct dev_mem *d)
{
	int totals = d->totalled == d->events;
	d->paired = d->addressed == d->events;
	if (d->paired)
		d->from = totals && d->total_peak >= d->peak ? FROM_TOTAL : FROM_ADDRESSES;
	else
		d->from = totals ? FROM_TOTAL : FROM_BYTES;
}

/* The device's peak by its rule, and its time in *ns (0: never above zero). */
static int64_t dev_peak(const struct dev_mem *d, int64_t *ns)
{
	*ns = d->from == FROM_ADDRESSES ? d->peak_ns : d->from == FROM_TOTAL ? d->total_peak_ns : d->sum_peak_ns;
	return d->from == FROM_ADDRESSES ? d->peak : d->from == FROM_TOTAL ? d->total_peak : d->sum_peak;
}

/* Live bytes of a device by its rule: paired blocks, else the source's total, else the running sum. */
static int64_t dev_value(const struct dev_mem *d, int64_t live, int64_t total, int64_t sum)
{
	return d->paired ? live : d->from == FROM_TOTAL ? total : sum;
}

/* Why nothing of a device pairs, into out. */
static void dev_unknown(const struct dev_mem *d, char *out, size_t n)
{
	if (!d->addressed)
		snprintf(out, n, "unknown: the trace has no addresses");
	else
		snprintf(out, n, "unknown: %lld of %lld events have no address", (long long)(d->events - d->addressed),
			 (long long)d->events);
}

static int cmp_dev(const void *a, const void *b)
{
	const struct dev_mem *x = a, *y = b;
	return x->device < y->device ? -1 : x->device > y->device;
}

/*
 * Pair the event in row st of statement 1, which has an address, on device d: an allocation becomes a
 * live block, a free ends the newest live block of its process and device at its address, or counts as
 * a free of memory allocated before the capture. live maps address + 1 to index + 1 of the newest live
 * block there.
 */
static void pair(struct mem *m, struct intmap *live, struct dev_mem *d, sqlite3_stmt *st)
{
	int64_t pid = sqlite3_column_int64(st, 0), device = d->device;
	int64_t address = sqlite3_column_int64(st, 2), ts = sqlite3_column_int64(st, 3);
	int64_t bytes = sqlite3_column_int64(st, 5), head = 0;
	d->addressed++;
	intmap_get(live, address + 1, &head);
	if (sqlite3_column_int(st, 4) == 1) {
		struct alloc *a;
		ALLOC_GROW(m->a, m->n + 1, m->alloc);
		a = &m->a[m->n];
		a->pid = pid;
		a->device = device;
		a->address = address;
		a->ts = ts;
		a->bytes = bytes;
		a->site = sqlite3_column_type(st, 6) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 6);
		a->kind = sqlite3_column_int64(st, 7);
		a->pc = sqlite3_column_int64(st, 8);
		a->freed = INT64_MAX;
		a->next = head - 1;
		intmap_put(live, address + 1, (int64_t)m->n + 1);
		m->n++;
		d->live += bytes;
		if (d->live > d->peak) {
			d->peak = d->live;
			d->peak_ns = ts;
		}
	} else {
		/* The newest live allocation of this process and device at the address. */
		int64_t i = head - 1, prev = -1;
		while (i >= 0 && (m->a[i].pid != pid || m->a[i].device != device)) {
			prev = i;
			i = m->a[i].next;
		}
		if (i < 0) {
			d->prior_frees++;
			d->prior_free_bytes += bytes;
		} else {
			m->a[i].freed = ts;
			d->live -= m->a[i].bytes;
			if (prev < 0)
				intmap_put(live, address + 1, m->a[i].next + 1);
			else
				m->a[prev].next = m->a[i].next;
		}
	}
}

/* Load statement 1: every event counted and in the running sums, those with an address paired. */
static int load(struct script *sc, struct mem *m)
{
	struct intmap live = INTMAP_INIT;
	sqlite3_stmt *st = script_next(sc);
	size_t i;
	int rc;
	memset(m, 0, sizeof(*m));
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t device = sqlite3_column_int64(st, 1), ts = sqlite3_column_int64(st, 3);
		int64_t bytes = sqlite3_column_int64(st, 5);
		int alloc = sqlite3_column_int(st, 4) == 1;
		struct dev_mem *d = dev_of(m, device);
		struct sample *x;
		d->events++;
		d->allocs += alloc;
		d->frees += !alloc;
		d->alloc_bytes += alloc ? bytes : 0;
		if (sqlite3_column_type(st, 9) != SQLITE_NULL)
			dev_total(d, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 9), ts);
		d->sum += alloc ? bytes : -bytes;
		if (d->sum > d->sum_peak) {
			d->sum_peak = d->sum;
			d->sum_peak_ns = ts;
		}
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			pair(m, &live, d, st);
		ALLOC_GROW(m->tl, m->ntl + 1, m->atl);
		x = &m->tl[m->ntl++];
		x->device = device;
		x->ts = ts;
		x->live = d->live;
		x->total = d->total;
		x->sum = d->sum;
	}
	intmap_release(&live);
	if (rc != SQLITE_DONE)
		return step_error(st);
	sqlite3_finalize(st);
	for (i = 0; i < m->nd; i++)
		dev_finish(&m->d[i]);
	return 0;
}

static void mem_free(struct mem *m)
{
	size_t i;
	for (i = 0; i < m->nd; i++)
		free(m->d[i].pt);
	free(m->a);
	free(m->d);
	free(m->tl);
}

/* Allocation sites' strings by site id, each looked up once. */
struct site_cache {
	struct intmap ix;	/* site id -> index + 1 into v */
	char **v;		/* the id's string, NULL when it has none (owned) */
	size_t n, alloc;
};

static void site_cache_release(struct site_cache *c)
{
	size_t i;
	for (i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	intmap_release(&c->ix);
}

/* The string of site id (statement str), from the cache; NULL when it has none or it is empty. */
static const char *site_string(sqlite3_stmt *str, struct site_cache *c, int64_t id)
{
	int64_t i;
	if (!intmap_get(&c->ix, id, &i)) {
		const char *s = NULL;
		sqlite3_bind_int64(str, sqlite3_bind_parameter_index(str, ":id"), id);
		if (sqlite3_step(str) == SQLITE_ROW)
			s = (const char *)sqlite3_column_text(str, 0);
		ALLOC_GROW(c->v, c->n + 1, c->alloc);
		c->v[c->n] = s && *s ? xstrdup(s) : NULL;
		sqlite3_reset(str);
		i = (int64_t)++c->n;
		intmap_put(&c->ix, id, i);
	}
	return c->v[i - 1];
}

/* A leak's site: its string (allocating function), else its PC, else the innermost range, else size. */
static void site_of(sqlite3_stmt *str, sqlite3_stmt *range, struct site_cache *c, const struct alloc *a,
		    struct buf *out)
{
	const char *s;
	buf_reset(out);
	if (a->site && (s = site_string(str, c, a->site))) {
		buf_addstr(out, s);
		return;
	}
	if (a->pc) {
		buf_addf(out, "pc 0x%llx", (unsigned long long)a->pc);
		return;
	}
	sqlite3_bind_int64(range, sqlite3_bind_parameter_index(range, ":pid"), a->pid);
	sqlite3_bind_int64(range, sqlite3_bind_parameter_index(range, ":ts"), a->ts);
	if (sqlite3_step(range) == SQLITE_ROW)
		buf_addf(out, "in %s", (const char *)sqlite3_column_text(range, 0));
	sqlite3_reset(range);
	if (!out->len)
		buf_addf(out, "%lld-byte blocks", (long long)a->bytes);
}

static const struct colspec leaks_cols[] = {
	{ "bytes", "Unfreed", C_BYTES },
	{ "count", "Blocks", C_INT },
	{ "first_ns", "First", C_TIME },
	{ "last_ns", "Last", C_TIME },
	{ "device", "Device", C_INT },
	{ "mem_kind", "Kind", C_TEXT },
	{ "status", "Status", C_TEXT },
	{ "site", "Site", C_TEXT },
};

/* A leaked block with its site, before blocks are grouped. */
struct leak {
	char *site;		/* owned */
	int64_t device, kind, bytes, ts;
	size_t order;		/* the block's place among the leaked ones */
};

struct leak_group {
	const char *site;	/* its first block's */
	int64_t device, kind, count, bytes, first, last;
	size_t order;		/* its first block's, which breaks ties as the order blocks came in */
};

/* Blocks of one group together: by device, kind and site, each group in the order the blocks came. */
static int cmp_leak_key(const void *a, const void *b)
{
	const struct leak *x = a, *y = b;
	int c;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((c = strcmp(x->site, y->site)))
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

/* Largest first, then by site, then as the groups' first blocks came. */
static int cmp_leak(const void *a, const void *b)
{
	const struct leak_group *x = a, *y = b;
	int c;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if ((c = strcmp(x->site, y->site)))
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

/* The statements after statement 1, in order: string, range, iterations, device metrics, kind name. */
struct stmts {
	sqlite3_stmt *str, *range, *iter, *metrics, *kind;
};

static int prepare_rest(struct script *sc, struct stmts *s)
{
	memset(s, 0, sizeof(*s));
	if (!(s->str = script_next(sc)) || !(s->range = script_next(sc)) || !(s->iter = script_next(sc)) ||
	    !(s->metrics = script_next(sc)) || !(s->kind = script_next(sc)))
		return -1;
	sqlite3_bind_text(s->iter, sqlite3_bind_parameter_index(s->iter, ":iter"), ITERATIONS_RE, -1, SQLITE_STATIC);
	return 0;
}

static void finalize_rest(struct stmts *s)
{
	sqlite3_finalize(s->str);
	sqlite3_finalize(s->range);
	sqlite3_finalize(s->iter);
	sqlite3_finalize(s->metrics);
	sqlite3_finalize(s->kind);
}

static void kind_text(struct stmts *s, struct table *t, size_t r, int col, int64_t kind)
{
	sqlite3_bind_int64(s->kind, sqlite3_bind_parameter_index(s->kind, ":id"), kind);
	if (sqlite3_step(s->kind) == SQLITE_ROW)
		set_col_text(t, r, col, s->kind, 0);
	sqlite3_reset(s->kind);
}

int run_leaks(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("leaks", "Leak candidates: memory still allocated at the end, by site");
	struct site_cache cache = { INTMAP_INIT, NULL, 0, 0 };
	struct leak *l = NULL;
	struct leak_group *g = NULL;
	size_t nl = 0, al = 0, ng = 0, i, k;
	struct stmts s;
	struct buf site;
	struct mem m;
	int rc = -1;

	tables_add(out, t);
	table_cols(t, leaks_cols, NCOLS(leaks_cols));
	buf_init(&site);
	if (load(&sc, &m))
		return -1;
	if (prepare_rest(&sc, &s))
		goto out;
	/* Devices whose blocks do not pair first: what they leaked is unknown. */
	xqsort(m.d, m.nd, sizeof(*m.d), cmp_dev);
	for (i = 0; i < m.nd; i++) {
		char why[96];
		size_t r;
		if (m.d[i].paired)
			continue;
		dev_unknown(&m.d[i], why, sizeof(why));
		r = table_row(t);
		table_set_int(t, r, 4, m.d[i].device);
		table_set_text(t, r, 6, why);
	}
	for (i = 0; i < m.n; i++) {
		const struct alloc *a = &m.a[i];
		if (a->freed != INT64_MAX || !dev_find(&m, a->device)->paired)
			continue;
		site_of(s.str, s.range, &cache, a, &site);
		ALLOC_GROW(l, nl + 1, al);
		l[nl].site = xstrdup(site.s);
		l[nl].device = a->device;
		l[nl].kind = a->kind;
		l[nl].bytes = a->bytes;
		l[nl].ts = a->ts;
		l[nl].order = nl;
		nl++;
	}
	xqsort(l, nl, sizeof(*l), cmp_leak_key);
	g = xcalloc(nl ? nl : 1, sizeof(*g));
	for (i = 0; i < nl; i++) {
		if (!ng || g[ng - 1].device != l[i].device || g[ng - 1].kind != l[i].kind ||
		    strcmp(g[ng - 1].site, l[i].site)) {
			g[ng].site = l[i].site;
			g[ng].device = l[i].device;
			g[ng].kind = l[i].kind;
			g[ng].first = l[i].ts;
			g[ng].order = l[i].order;
			ng++;
		}
		k = ng - 1;
		g[k].count++;
		g[k].bytes += l[i].bytes;
		if (l[i].ts < g[k].first)
			g[k].first = l[i].ts;
		if (l[i].ts > g[k].last)
			g[k].last = l[i].ts;
	}
	xqsort(g, ng, sizeof(*g), cmp_leak);
	for (k = 0; k < ng; k++) {
		size_t r;
		if (o->top > 0 && t->nrows >= (size_t)o->top)	/* the unknown rows first, as the gate's cut */
			break;
		r = table_row(t);
		table_set_int(t, r, 0, g[k].bytes);
		table_set_int(t, r, 1, g[k].count);
		table_set_int(t, r, 2, g[k].first);
		table_set_int(t, r, 3, g[k].last);
		table_set_int(t, r, 4, g[k].device);
		kind_text(&s, t, r, 5, g[k].kind);
		table_set_text(t, r, 6, "unfreed");
		table_set_text(t, r, 7, g[k].site);
	}
	rc = 0;
out:
	finalize_rest(&s);
	for (i = 0; i < nl; i++)
		free(l[i].site);
	free(l);
	free(g);
	site_cache_release(&cache);
	buf_release(&site);
	mem_free(&m);
	return rc;
}

static const struct colspec memory_cols[] = {
	{ "device", "Device", C_INT },
	{ "allocs", "Allocations", C_INT },
	{ "frees", "Frees", C_INT },
	{ "alloc_bytes", "Allocated", C_BYTES },
	{ "peak_bytes", "Peak", C_BYTES },
	{ "peak_ns", "At", C_TIME },
	{ "peak_from", "Peak from", C_TEXT },
	{ "live_end_bytes", "Live at end", C_BYTES },
	{ "prior_frees", "Frees of earlier blocks", C_INT },
	{ "prior_free_bytes", "Their bytes", C_BYTES },
};

int run_memory(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("memory", "GPU memory per device: allocations, peak, live at the end");
	struct mem m;
	size_t i;

	tables_add(out, t);
	table_cols(t, memory_cols, NCOLS(memory_cols));
	if (load(&sc, &m))
		return -1;
	xqsort(m.d, m.nd, sizeof(*m.d), cmp_dev);
	for (i = 0; i < m.nd; i++) {
		const struct dev_mem *d = &m.d[i];
		size_t r = table_row(t);
		int64_t peak_ns, peak = dev_peak(d, &peak_ns);
		table_set_int(t, r, 0, d->device);
		table_set_int(t, r, 1, d->allocs);
		table_set_int(t, r, 2, d->frees);
		table_set_int(t, r, 3, d->alloc_bytes);
		table_set_int(t, r, 4, peak);
		if (peak_ns)
			table_set_int(t, r, 5, peak_ns);
		table_set_text(t, r, 6, peak_from_names[d->from]);
		table_set_int(t, r, 7, dev_value(d, d->live, d->total, d->sum));
		if (d->paired) {	/* else unknown */
			table_set_int(t, r, 8, d->prior_frees);
			table_set_int(t, r, 9, d->prior_free_bytes);
		}
	}
	mem_free(&m);
	return 0;
}

static const struct colspec peak_cols[] = {
	{ "device", "Device", C_INT },
	{ "bytes", "Bytes", C_BYTES },
	{ "alloc_ns", "Allocated at", C_TIME },
	{ "address", "Address", C_INT },
	{ "mem_kind", "Kind", C_TEXT },
	{ "site", "Site", C_TEXT },
};

static int cmp_alloc_bytes(const void *a, const void *b)
{
	const struct alloc *const *x = a, *const *y = b;
	if ((*x)->device != (*y)->device)
		return (*x)->device < (*y)->device ? -1 : 1;
	if ((*x)->bytes != (*y)->bytes)
		return (*x)->bytes > (*y)->bytes ? -1 : 1;
	return (*x)->ts < (*y)->ts ? -1 : (*x)->ts > (*y)->ts;
}

int run_peak(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("peak", "What was live at each device's peak, largest first");
	struct site_cache cache = { INTMAP_INIT, NULL, 0, 0 };
	struct alloc **live = NULL;
	size_t nl = 0, i, j, k, shown;
	struct stmts s;
	struct buf site;
	struct mem m;
	int rc = -1;

	tables_add(out, t);
	table_cols(t, peak_cols, NCOLS(peak_cols));
	buf_init(&site);
	if (load(&sc, &m))
		return -1;
	if (prepare_rest(&sc, &s))
		goto out;
	live = xmalloc((m.n ? m.n : 1) * sizeof(*live));
	for (i = 0; i < m.n; i++)
		for (j = 0; j < m.nd; j++)
			if (m.d[j].paired && m.d[j].device == m.a[i].device && m.a[i].ts <= m.d[j].peak_ns &&
			    m.a[i].freed > m.d[j].peak_ns)
				live[nl++] = &m.a[i];
	xqsort(live, nl, sizeof(*live), cmp_alloc_bytes);
	xqsort(m.d, m.nd, sizeof(*m.d), cmp_dev);
	for (j = 0, k = 0; j < m.nd; j++) {
		size_t r;
		if (!m.d[j].paired) {
			/* Its peak is known, not which blocks made it. */
			char why[96];
			int64_t ns;
			dev_unknown(&m.d[j], why, sizeof(why));
			r = table_row(t);
			table_set_int(t, r, 0, m.d[j].device);
			table_set_int(t, r, 1, dev_peak(&m.d[j], &ns));
			table_set_text(t, r, 5, why);
			continue;
		}
		for (shown = 0; k < nl && live[k]->device == m.d[j].device; k++) {
			if (o->top > 0 && shown++ >= (size_t)o->top)
				continue;
			r = table_row(t);
			table_set_int(t, r, 0, live[k]->device);
			table_set_int(t, r, 1, live[k]->bytes);
			table_set_int(t, r, 2, live[k]->ts);
			table_set_int(t, r, 3, live[k]->address);
			kind_text(&s, t, r, 4, live[k]->kind);
			site_of(s.str, s.range, &cache, live[k], &site);
			table_set_text(t, r, 5, site.s);
		}
	}
	rc = 0;
out:
	finalize_rest(&s);
	free(live);
	site_cache_release(&cache);
	buf_release(&site);
	mem_free(&m);
	return rc;
}

/* Least-squares fit y = a + b x over x = 0..n-1; returns b, and R^2 in *r2 (1 for a perfect line). */
static double fit(const double *y, size_t n, double *r2)
{
	double mx = (double)(n - 1) / 2.0, my = 0, sxy = 0, sxx = 0, syy = 0;
	size_t i;
	for (i = 0; i < n; i++)
		my += y[i];
	my /= (double)n;
	for (i = 0; i < n; i++) {
		double dx = (double)i - mx, dy = y[i] - my;
		sxy += dx * dy;
		sxx += dx * dx;
		syy += dy * dy;
	}
	if (sxx == 0) {
		*r2 = 0;
		return 0;
	}
	*r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
	return sxy / sxx;
}

/* Severity of memory at stake: none, low (< 64 MiB), medium (< 1 GiB), high. */
static const char *severity(double bytes)
{
	if (bytes <= 0)
		return "none";
	if (bytes < 64 * MiB)
		return "low";
	if (bytes < 1024 * MiB)
		return "medium";
	return "high";
}

static const char *suggestion(const char *sev, int growing)
{
	if (!strcmp(sev, "none"))
		return "no action needed";
	if (growing)
		return "memory grows every iteration and is freed only at exit: look for tensors or buffers kept "
		       "across iterations (caches, lists of outputs, graphs retained by loss.backward(retain_graph=True))";
	return "free these blocks, or check that they are meant to live for the whole run";
}

static const struct colspec growth_cols[] = {
	{ "device", "Device", C_INT },
	{ "source", "From", C_TEXT },
	{ "points", "Points", C_INT },
	{ "first_bytes", "First", C_BYTES },
	{ "last_bytes", "Last", C_BYTES },
	{ "slope_bytes", "Slope", C_BYTES },
	{ "r2", "R^2", C_REAL },
	{ "leaked_bytes", "Unfreed at end", C_BYTES },
	{ "severity", "Severity", C_TEXT },
	{ "verdict", "Verdict", C_TEXT },
	{ "suggestion", "What to check", C_TEXT },
};

/*
 * A growth row for one series: y[i] live bytes at point i. per is "step" (iterations) or "s" (seconds,
 * for device samples, where x is scaled to seconds by dt_s).
 */
static void growth_row(struct table *t, int64_t device, const char *source, const double *y, size_t n,
		       const char *per, double per_point, const int64_t *leaked)
{
	size_t r = table_row(t);
	double r2 = 0, slope = n >= 2 ? fit(y, n, &r2) / per_point : 0;
	int growing = n >= 4 && slope > 0 && r2 >= 0.9;
	double at_stake = growing ? slope * per_point * (double)(n - 1) : 0;
	char verdict[160], amount[32];
	const char *sev;
	if (leaked && (double)*leaked > at_stake)
		at_stake = (double)*leaked;
	sev = severity(at_stake);
	fmt_bytes(amount, sizeof(amount), fabs(slope));
	if (n < 4)
		snprintf(verdict, sizeof(verdict), "too few points (%zu) for a trend", n);
	else
		snprintf(verdict, sizeof(verdict), "%s %s per %s, R^2 %.2f", growing ? "growing" : "no steady growth:",
			 amount, per, r2);
	table_set_int(t, r, 0, device);
	table_set_text(t, r, 1, source);
	table_set_int(t, r, 2, (int64_t)n);
	if (n) {
		table_set_int(t, r, 3, (int64_t)y[0]);
		table_set_int(t, r, 4, (int64_t)y[n - 1]);
	}
	table_set_real(t, r, 5, slope);
	table_set_real(t, r, 6, r2);
	if (leaked)	/* else unknown */
		table_set_int(t, r, 7, *leaked);
	table_set_text(t, r, 8, sev);
	table_set_text(t, r, 9, verdict);
	table_set_text(t, r, 10, suggestion(sev, growing));
}

int run_growth(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("growth", "Memory growth per iteration (catches leaks freed only at exit)");
	int64_t *ends = NULL;
	double *y = NULL;
	size_t nends = 0, aends = 0, i, j, k;
	struct stmts s;
	struct mem m;
	int rc = -1;

	tables_add(out, t);
	table_cols(t, growth_cols, NCOLS(growth_cols));
	if (load(&sc, &m))
		return -1;
	if (prepare_rest(&sc, &s))
		goto out;
	while (sqlite3_step(s.iter) == SQLITE_ROW) {
		ALLOC_GROW(ends, nends + 1, aends);
		ends[nends++] = sqlite3_column_int64(s.iter, 0);
	}
	xqsort(m.d, m.nd, sizeof(*m.d), cmp_dev);
	if (m.nd) {
		/*
		 * Live bytes of each device at each iteration end: the last timeline sample at or before it, by
		 * the device's rule (paired blocks, else the source's total, else the running sum of bytes).
		 */
		y = xmalloc((nends ? nends : 1) * sizeof(*y));
		for (i = 0; i < m.nd; i++) {
			const struct dev_mem *d = &m.d[i];
			int64_t live = 0;
			char source[64];
			for (j = 0, k = 0; j < nends; j++) {
				for (; k < m.ntl && m.tl[k].ts <= ends[j]; k++)
					if (m.tl[k].device == d->device)
						live = dev_value(d, m.tl[k].live, m.tl[k].total, m.tl[k].sum);
				y[j] = (double)live;
			}
			snprintf(source, sizeof(source), "%s at iteration ends",
				 d->paired ? "allocations" : peak_from_names[d->from]);
			growth_row(t, d->device, nends ? source : "no iterations found", y, nends, "step", 1.0,
				   d->paired ? &d->live : NULL);
		}
	} else {
		/* No allocation events: the used-memory samples of each device, per second. */
		int64_t device = INT64_MIN, t0 = 0, tl = 0, zero = 0;
		size_t n = 0, a = 0;
		int more;
		do {
			more = sqlite3_step(s.metrics) == SQLITE_ROW;
			if (!more || sqlite3_column_int64(s.metrics, 0) != device) {
				if (n)
					growth_row(t, device, "device memory samples", y, n, "s",
						   n > 1 ? (double)(tl - t0) / 1e9 / (double)(n - 1) : 1.0, &zero);
				n = 0;
				if (!more)
					break;
				device = sqlite3_column_int64(s.metrics, 0);
				t0 = sqlite3_column_int64(s.metrics, 1);
			}
			ALLOC_GROW(y, n + 1, a);
			y[n++] = (double)sqlite3_column_int64(s.metrics, 2);
			tl = sqlite3_column_int64(s.metrics, 1);
		} while (more);
	}
	rc = 0;
out:
	finalize_rest(&s);
	free(ends);
	free(y);
	mem_free(&m);
	return rc;
}
