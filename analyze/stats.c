#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rearrange v so that v[k] is the k-th smallest, smaller ones before it (Wirth's selection). */
static void select_kth(int64_t *v, size_t n, size_t k)
{
	ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
	while (l < m) {
		int64_t x = v[kk], tmp;
		ptrdiff_t i = l, j = m;
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				tmp = v[i];
				v[i] = v[j];
				v[j] = tmp;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
}

void stats_of(int64_t *v, size_t n, struct dstats *s)
{
	size_t i;
	double ss = 0;
	s->n = (int64_t)n;
	s->total = 0;
	s->min = s->max = n ? v[0] : 0;
	s->mean = s->median = s->stddev = 0;
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		s->total += v[i];
		if (v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
	}
	s->mean = (double)s->total / (double)n;
	for (i = 0; i < n; i++) {
		double d = (double)v[i] - s->mean;
		ss += d * d;
	}
	s->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
	select_kth(v, n, n / 2);
	if (n % 2) {
		s->median = (double)v[n / 2];
	} else {
		/* The lower middle value is the largest of the lower half. */
		int64_t lower = v[0];
		for (i = 1; i < n / 2; i++)
			if (v[i] > lower)
				lower = v[i];
		s->median = ((double)lower + (double)v[n / 2]) / 2.0;
	}
}

struct group {
	int64_t key;
	int64_t *v;
	size_t n, alloc;
};

static int cmp_total_desc(const void *a, const void *b)
{
	const struct dstats *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

int stats_by_key(sqlite3_stmt *st, int64_t (*map)(void *ctx, int64_t key), void *ctx, struct dstats **out,
		 size_t *nout)
{
	int64_t raw_last = 0, mapped_last = 0;
	int have_last = 0;
	struct group *g = NULL;
	size_t ng = 0, galloc = 0, cap = 256, i, last = SIZE_MAX;
	size_t *slots = xmalloc(cap * sizeof(*slots));	/* hash of key -> group index + 1 */
	int rc;

	memset(slots, 0, cap * sizeof(*slots));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t key = sqlite3_column_int64(st, 0), val = sqlite3_column_int64(st, 1);
		struct group *gr;
		if (map) {
			if (!have_last || key != raw_last) {
				raw_last = key;
				mapped_last = map(ctx, key);
				have_last = 1;
			}
			key = mapped_last;
		}
		if (last == SIZE_MAX || g[last].key != key) {
			size_t j = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
			while (slots[j] && g[slots[j] - 1].key != key)
				j = (j + 1) & (cap - 1);
			if (!slots[j]) {
				ALLOC_GROW(g, ng + 1, galloc);
				memset(&g[ng], 0, sizeof(g[ng]));
				g[ng].key = key;
				slots[j] = ++ng;
				if (ng * 2 > cap) {
					size_t k;
					free(slots);
					cap *= 2;
					slots = xcalloc(cap, sizeof(*slots));
					for (k = 0; k < ng; k++) {
						size_t h = (size_t)(((uint64_t)g[k].key * 0x9E3779B97F4A7C15ULL) >> 17) &
							   (cap - 1);
						while (slots[h])
							h = (h + 1) & (cap - 1);
						slots[h] = k + 1;
					}
					last = ng - 1;
				} else {
					last = slots[j] - 1;
				}
			} else {
				last = slots[j] - 1;
			}
		}
		gr = &g[last];
		if (gr->n == gr->alloc)
			ALLOC_GROW(gr->v, gr->n + 1, gr->alloc);
		gr->v[gr->n++] = val;
	}
	free(slots);
	if (rc != SQLITE_DONE) {
		error("sqlite: %s", sqlite3_errmsg(sqlite3_db_handle(st)));
		for (i = 0; i < ng; i++)
			free(g[i].v);
		free(g);
		return -1;
	}
	*out = xcalloc(ng ? ng : 1, sizeof(**out));
	for (i = 0; i < ng; i++) {
		stats_of(g[i].v, g[i].n, &(*out)[i]);
		(*out)[i].key = g[i].key;
		free(g[i].v);
	}
	free(g);
	qsort(*out, ng, sizeof(**out), cmp_total_desc);
	*nout = ng;
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Sort by start with an LSD radix sort, 16 bits a pass; passes in which every key has the same digit
 * (the high bits of epoch nanoseconds) are skipped. Millions of kernels sort in a few memory passes.
 */
static void radix_sort(struct interval *v, size_t n)
{
	size_t (*count)[65536] = xcalloc(4, sizeof(*count));
	struct interval *tmp = xmalloc(n * sizeof(*tmp)), *src = v, *dst = tmp;
	size_t i;
	int p;
	for (i = 0; i < n; i++) {
		uint64_t key = (uint64_t)v[i].start ^ (1ULL << 63);	/* signed order as unsigned */
		for (p = 0; p < 4; p++)
			count[p][(key >> (16 * p)) & 0xFFFF]++;
	}
	for (p = 0; p < 4; p++) {
		size_t sum = 0, d;
		uint64_t first = (uint64_t)src[0].start ^ (1ULL << 63);
		struct interval *swap;
		if (count[p][(first >> (16 * p)) & 0xFFFF] == n)
			continue;
		for (d = 0; d < 65536; d++) {
			size_t c = count[p][d];
			count[p][d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			uint64_t key = (uint64_t)src[i].start ^ (1ULL << 63);
			dst[count[p][(key >> (16 * p)) & 0xFFFF]++] = src[i];
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(count);
}

void interval_sort(struct interval *v, size_t n)
{
	size_t i;
	for (i = 1; i < n; i++)
		if (v[i].start < v[i - 1].start)
			break;
	if (i >= n)
		return;
	if (n < 4096)
		qsort(v, n, sizeof(*v), cmp_start);
	else
		radix_sort(v, n);
}

struct interval *interval_merge(const struct interval *a, size_t na, const struct interval *b, size_t nb, size_t *n)
{
	struct interval *m = xmalloc((na + nb ? na + nb : 1) * sizeof(*m));
	size_t i = 0, j = 0, k = 0;
	while (i < na || j < nb)
		m[k++] = j >= nb || (i < na && a[i].start <= b[j].start) ? a[i++] : b[j++];
	*n = k;
	return m;
}

int64_t interval_union(struct interval *v, size_t n)
{
	int64_t total = 0, cs = 0, ce = 0;
	size_t i;
	int open = 0;
	interval_sort(v, n);
	for (i = 0; i < n; i++) {
		if (v[i].end <= v[i].start)
			continue;
		if (open && v[i].start <= ce) {
			if (v[i].end > ce)
				ce = v[i].end;
			continue;
		}
		if (open)
			total += ce - cs;
		cs = v[i].start;
		ce = v[i].end;
		open = 1;
	}
	if (open)
		total += ce - cs;
	return total;
}
