/*
 * stats: duration statistics per key, in C where SQL is too slow (a median over
 * millions of rows needs a sort; SQLite's GROUP BY needs one too).
 *
 * Conventions follow Nsight Systems: median is the mean of the two middle values for even counts,
 * stddev the sample standard deviation (n-1), 0 for a single value (lib/dstats.h computes them; interval
 * unions are lib/spans.h). Callers own the returned arrays and free them with free().
 */
#ifndef GPUPROF_STATS_H
#define GPUPROF_STATS_H

#include <sqlite3.h>
#include <stdint.h>
#include <stddef.h>

#include "dstats.h"
#include "spans.h"

/*
 * Step st to the end; it yields rows (key INTEGER, value INTEGER). With map, each key becomes
 * map(ctx, key) first (folding names into families). Returns the groups, sorted by total descending then
 * key, in *out and *n; 0 on success, -1 with a message.
 */
int stats_by_key(sqlite3_stmt *st, int64_t (*map)(void *ctx, int64_t key), void *ctx, struct dstats **out,
		 size_t *n);

/* Sort groups by total descending, then key. */
void stats_sort(struct dstats *s, size_t n);

/* A group's statistics under its name (a kernel name, an NVTX path, a copy kind), for compare. */
struct named_stats {
	char *name;		/* owned */
	struct dstats s;
	int64_t bytes;		/* copies: bytes moved; 0 otherwise */
};

/* Free the names and the array. */
void named_stats_free(struct named_stats *v, size_t n);

#endif
