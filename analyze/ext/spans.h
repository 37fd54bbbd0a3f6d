/*
 * spans: interval unions in plain C (no SQLite), shared by the analyses (analyze/) and the SQL function
 * busy_union (analyze/ext/sqlext.c). Intervals are half-open [start, end) in integer ns.
 *
 * Ownership: interval arrays and lists are the caller's; an ivlist owns its storage until ivlist_release.
 */
#ifndef GPUPROF_SPANS_H
#define GPUPROF_SPANS_H

#include <stddef.h>
#include <stdint.h>

struct interval {
	int64_t start, end;
};

/*
 * Length of the union of the intervals. Empty or inverted intervals add nothing. v is overwritten (it is
 * merged in place as spans_merge does, its first entries becoming the union); n stays the caller's.
 */
int64_t interval_union(struct interval *v, size_t n);
/* Sort by start (in place): one pass when nearly sorted (kernels arrive so), else a radix sort. */
void interval_sort(struct interval *v, size_t n);

/*
 * A growable interval list. Big lists get an anonymous mapping with transparent huge pages (faulting in
 * hundreds of MB at 4 KiB a page is a fifth of an analysis over 5M kernels). Push with
 * `if (l->n == l->alloc) ivlist_grow(l); l->v[l->n++] = x;`; free with ivlist_release.
 */
struct ivlist {
	struct interval *v;
	size_t n, alloc;
	int mapped;		/* v is an mmap'd region, else from malloc */
};
void ivlist_grow(struct ivlist *l);
/* An empty list with room for exactly n intervals (pushing more is the caller's bug). */
void ivlist_reserve(struct ivlist *l, size_t n);
void ivlist_release(struct ivlist *l);

/*
 * Spans: an ivlist sorted by start whose intervals are non-empty and disjoint (touching ones joined), as
 * spans_merge leaves it. The functions below allocate nothing the caller must free: spans_merge rewrites
 * its list in place, the others only read theirs.
 */

/* Sort l and merge it in place into spans (l->n shrinks; empty and inverted intervals are dropped).
 * Returns the summed length of the union (modulo 2^64 beyond INT64_MAX: sum the spans to check). */
int64_t spans_merge(struct ivlist *l);
/* Length of the intersection of two span lists (one merge-like pass). */
int64_t spans_intersect(const struct ivlist *a, const struct ivlist *b);
/* Length of the union of n span lists (a k-way merge; n is small). With each non-NULL, each(arg, start,
 * end) is called for every span of the union, in start order (so holes cost no list). */
int64_t spans_union(const struct ivlist *lists, size_t n, void (*each)(void *arg, int64_t start, int64_t end),
		    void *arg);

#endif
