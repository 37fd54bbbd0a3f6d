/*
 * stats: duration statistics per key and interval unions, in C where SQL is too slow (a median over
 * millions of rows needs a sort; SQLite's GROUP BY needs one too).
 *
 * Conventions follow Nsight Systems: median is the mean of the two middle values for even counts,
 * stddev the sample standard deviation (n-1), 0 for a single value. Callers own the returned arrays
 * and free them with free(); interval lists are the caller's too (see ivlist and spans below).
 */
#ifndef GPUPROF_STATS_H
#define GPUPROF_STATS_H

#include <sqlite3.h>
#include <stdint.h>
#include <stddef.h>

struct dstats {
	int64_t key;		/* the group key (first column of the query) */
	int64_t n;		/* values */
	int64_t total;		/* exact sum */
	int64_t min, max;
	double mean, median, stddev;
};

/*
 * Step st to the end; it yields rows (key INTEGER, value INTEGER). With map, each key becomes
 * map(ctx, key) first (folding names into families). Returns the groups, sorted by total descending then
 * key, in *out and *n; 0 on success, -1 with a message.
 */
int stats_by_key(sqlite3_stmt *st, int64_t (*map)(void *ctx, int64_t key), void *ctx, struct dstats **out,
		 size_t *n);

/* Sort groups by total descending, then key. */
void stats_sort(struct dstats *s, size_t n);
/* Statistics of one array of values (reordered in place). */
void stats_of(int64_t *v, size_t n, struct dstats *s);

/* A group's statistics under its name (a kernel name, an NVTX path, a copy kind), for compare. */
struct named_stats {
	char *name;		/* owned */
	struct dstats s;
	int64_t bytes;		/* copies: bytes moved; 0 otherwise */
	const char *style;	/* ranges: PushPop, StartEnd or GPU (static, a second key); NULL otherwise */
};

/* Order by name (strcmp), then style (NULL as ""). */
int named_stats_cmp(const struct named_stats *a, const struct named_stats *b);
/* Sort v by named_stats_cmp. */
void named_stats_sort(struct named_stats *v, size_t n);
/* Free the names and the array. */
void named_stats_free(struct named_stats *v, size_t n);

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
 * Returns the summed length of the union. */
int64_t spans_merge(struct ivlist *l);
/* Length of the intersection of two span lists (one merge-like pass). */
int64_t spans_intersect(const struct ivlist *a, const struct ivlist *b);
/* Length of the union of n span lists (a k-way merge; n is small). With each non-NULL, each(arg, start,
 * end) is called for every span of the union, in start order (so holes cost no list). */
int64_t spans_union(const struct ivlist *lists, size_t n, void (*each)(void *arg, int64_t start, int64_t end),
		    void *arg);


#endif
