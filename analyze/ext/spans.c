#include "spans.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define IVLIST_MAP_BYTES (2u << 20)	/* lists beyond 2 MiB get their own mapping */

/* Free the list's storage (the fields are left as they were). */
static void ivlist_free_v(struct ivlist *s)
{
	if (s->mapped)
		xunmap(s->v, s->alloc * sizeof(*s->v));
	else
		free(s->v);
}

/*
 * Make room for one more span. Big lists live in their own mapping (xmap: huge pages, reused once freed:
 * on 5M kernels, faulting in 80 MB one 4 KiB page at a time costs a fifth of an analysis).
 */
void ivlist_grow(struct ivlist *s)
{
	size_t bytes = s->alloc * sizeof(*s->v), want = 2 * bytes;
	struct interval *p;
	if (!s->mapped && bytes < IVLIST_MAP_BYTES) {
		ALLOC_GROW(s->v, s->n + 1, s->alloc);
		return;
	}
	p = xmap(want);
	memcpy(p, s->v, s->n * sizeof(*s->v));
	ivlist_free_v(s);
	s->v = p;
	s->mapped = 1;
	s->alloc = want / sizeof(*s->v);
}

void ivlist_reserve(struct ivlist *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->alloc = n ? n : 1;
	if (s->alloc * sizeof(*s->v) >= IVLIST_MAP_BYTES) {
		s->v = xmap(s->alloc * sizeof(*s->v));
		s->mapped = 1;
	} else {
		s->v = xmalloc(s->alloc * sizeof(*s->v));
	}
}

void ivlist_release(struct ivlist *s)
{
	ivlist_free_v(s);
	memset(s, 0, sizeof(*s));
}

static int cmp_iv(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Insertion sort by start that gives up after `budget` moves; 0 when v is sorted, -1 when it gave up
 * (v is then reordered but not sorted). Kernels arrive almost in order (a few streams interleaved), so
 * each moves a few places back at most and this is one pass.
 */
static int sort_nearly(struct interval *v, size_t n, size_t budget)
{
	size_t i, j, moves = 0;
	for (i = 1; i < n; i++) {
		struct interval x = v[i];
		if (v[i - 1].start <= x.start)
			continue;
		for (j = i; j > 0 && v[j - 1].start > x.start; j--)
			v[j] = v[j - 1];
		v[j] = x;
		moves += i - j;
		if (moves > budget)
			return -1;
	}
	return 0;
}

/*
 * Sort by start: insertion sort while the input is nearly sorted, else an LSD radix sort on start
 * minus the smallest start, 16 bits a pass, as many passes as the spread of starts needs (three for a
 * session of minutes).
 */
void interval_sort(struct interval *v, size_t n)
{
	size_t i, *count;
	struct interval *tmp, *src = v, *dst;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t range;
	int pass, passes = 0;

	if (n < 2)
		return;
	if (n < 4096) {
		qsort(v, n, sizeof(*v), cmp_iv);
		return;
	}
	if (!sort_nearly(v, n, 16 * n))
		return;
	for (i = 0; i < n; i++) {
		if (v[i].start < lo)
			lo = v[i].start;
		if (v[i].start > hi)
			hi = v[i].start;
	}
	for (range = (uint64_t)hi - (uint64_t)lo; range; range >>= 16)
		passes++;
	count = xmalloc(65536 * sizeof(*count));
	tmp = xmalloc(n * sizeof(*tmp));
	dst = tmp;
	for (pass = 0; pass < passes; pass++) {
		int shift = 16 * pass;
		size_t sum = 0, d;
		struct interval *swap;
		memset(count, 0, 65536 * sizeof(*count));
		for (i = 0; i < n; i++)
			count[(((uint64_t)src[i].start - (uint64_t)lo) >> shift) & 0xFFFF]++;
		for (d = 0; d < 65536; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(((uint64_t)src[i].start - (uint64_t)lo) >> shift) & 0xFFFF]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(count);
}


int64_t interval_union(struct interval *v, size_t n)
{
	struct ivlist l = { v, n, n, 0 };
	return spans_merge(&l);
}

int64_t spans_merge(struct ivlist *s)
{
	struct interval *v = s->v;
	size_t i, out = 0;
	uint64_t total = 0;	/* unsigned: a union longer than INT64_MAX wraps instead of being undefined */
	interval_sort(v, s->n);
	for (i = 0; i < s->n; i++) {
		struct interval x = v[i];
		if (x.end <= x.start)
			continue;
		if (out && x.start <= v[out - 1].end) {
			if (x.end > v[out - 1].end)
				v[out - 1].end = x.end;
			continue;
		}
		v[out++] = x;
	}
	s->n = out;
	for (i = 0; i < out; i++)
		total += (uint64_t)v[i].end - (uint64_t)v[i].start;
	return (int64_t)total;
}

int64_t spans_intersect(const struct ivlist *a, const struct ivlist *b)
{
	size_t i = 0, j = 0;
	int64_t total = 0;
	while (i < a->n && j < b->n) {
		int64_t s = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
		int64_t e = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
		if (e > s)
			total += e - s;
		if (a->v[i].end < b->v[j].end)
			i++;
		else
			j++;
	}
	return total;
}

int64_t spans_union(const struct ivlist *lists, size_t n, void (*each)(void *arg, int64_t start, int64_t end),
		    void *arg)
{
	size_t small[32], *pos = n <= 32 ? small : xmalloc(n * sizeof(*pos)), k;
	int64_t total = 0, cs = 0, ce = 0;
	int open = 0;
	for (k = 0; k < n; k++)
		pos[k] = 0;
	for (;;) {
		size_t best = n;
		const struct interval *x;
		for (k = 0; k < n; k++)
			if (pos[k] < lists[k].n &&
			    (best == n || lists[k].v[pos[k]].start < lists[best].v[pos[best]].start))
				best = k;
		if (best == n)
			break;
		x = &lists[best].v[pos[best]++];
		if (open && x->start <= ce) {
			if (x->end > ce)
				ce = x->end;
			continue;
		}
		if (open) {
			total += ce - cs;
			if (each)
				each(arg, cs, ce);
		}
		cs = x->start;
		ce = x->end;
		open = 1;
	}
	if (open) {
		total += ce - cs;
		if (each)
			each(arg, cs, ce);
	}
	if (pos != small)
		free(pos);
	return total;
}
