/*
 * columns: the session's big tables (kernels, API calls) as columns in memory, loaded once per process
 * (read on every core through scan.c) and shared by every analysis that reads them. A report then reads
 * each table once instead of once per section.
 *
 * Small-valued columns (process, device, stream, thread) hold an index into a table of the distinct
 * values, so an analysis can keep per-device or per-thread state in a plain array.
 *
 * Ownership: kernels_get and calls_get return cache entries owned here, valid until columns_drop(db);
 * callers never free them. Arrays returned by the other functions belong to the caller (free()).
 */
#ifndef GPUPROF_COLUMNS_H
#define GPUPROF_COLUMNS_H

#include <sqlite3.h>
#include <stdint.h>
#include <stddef.h>

#include "analysis.h"
#include "colstore.h"
#include "names.h"
#include "stats.h"

/* Kernel columns an analysis reads; each costs load time, so ask for few. */
enum {
	KC_PID = 1 << 0,
	KC_DEV = 1 << 1,
	KC_STREAM = 1 << 2,
	KC_NAME = 1 << 3,
	KC_CORR = 1 << 4,
	KC_START = 1 << 5,
	KC_DUR = 1 << 6,
	KC_SPAN = KC_DEV | KC_START | KC_DUR,	/* intervals per device */
	KC_ALL = (1 << 7) - 1
};

/* What every cached table has first: its key, the columns loaded, the rows. */
#define COLUMNS_HEAD \
	sqlite3 *db;			/* the cache key: connection and session */ \
	int64_t session; \
	const struct col_source *src;	/* the table */ \
	unsigned cols;			/* columns loaded; the other arrays are NULL */ \
	size_t n;			/* rows, in table (rowid) order */ \
	size_t cap;			/* rows the column mappings were sized for */ \
	int chunked;			/* loaded from column chunks (colstore.h) */ \
	size_t nnames;			/* largest name id + 1, when names are loaded */ \
	void *next;

struct kcols {
	COLUMNS_HEAD
	int64_t *start, *dur;		/* ns */
	int64_t *corr;			/* correlation id, 0 when NULL */
	int32_t *name;			/* strings.id of the name */
	int32_t *pid, *dev, *stream;	/* indexes into pids, devices, streams */
	int64_t *pids, *devices, *streams;	/* distinct values (-1: stream unknown) */
	size_t npids, ndevices, nstreams;
};

/* API call columns. */
enum {
	CC_PID = 1 << 0,
	CC_THREAD = 1 << 1,
	CC_NAME = 1 << 2,
	CC_CORR = 1 << 3,
	CC_START = 1 << 4,
	CC_DUR = 1 << 5,
	CC_ALL = (1 << 6) - 1
};

struct ccols {
	COLUMNS_HEAD
	int64_t *start, *dur;		/* ns */
	int64_t *corr;			/* correlation id, 0 when NULL */
	int32_t *name;			/* strings.id of the function, 0 when NULL */
	int32_t *pid, *thread;		/* indexes into pids, threads (a NULL thread is 0) */
	int64_t *pids, *threads;
	size_t npids, nthreads;
};

/* The session's kernels with at least the columns `cols`, loaded on first use; NULL with a message. */
const struct kcols *kernels_get(sqlite3 *db, int64_t session, unsigned cols);
/* The session's API calls with at least the columns `cols` (CC_*); NULL with a message. */
const struct ccols *calls_get(sqlite3 *db, int64_t session, unsigned cols);
/* 1 when the session's kernels and API calls are both in column chunks (loads are cheap), else 0. */
int columns_chunked(sqlite3 *db, int64_t session);
/* Forget db's cached tables (call before closing it). */
void columns_drop(sqlite3 *db);

/*
 * For analyses that need chunk columns the cache does not keep (launch configurations): run fn over the
 * session's column chunks of table t (colstore.h) on every core, a chunk at a time, with cols[k] the n
 * values of chunk column k for each bit k in want (the others NULL); fn gets slice k's argument at
 * (char *)args + k * argsize and returns 0, or -1 to stop. Chunks come in table order within a slice.
 * 1 when done, 0 when the session has no usable chunks (read the table instead), -1 on error.
 */
int chunks_each(sqlite3 *db, int64_t session, enum colstore_table t, uint32_t want,
		int (*fn)(void *arg, int64_t *const *cols, size_t n), void *args, size_t argsize);

/*
 * Group keys by name id for name-keyed analyses: keys[id] is the group of name id, -1 when --match or
 * --exclude leave it out. A name is its own group (its id) unless f (from fold_load, --group/--short)
 * is given, then its fold key. k->nnames entries, or NULL with a message.
 */
int32_t *kernels_name_keys(sqlite3 *db, const struct analysis_opts *o, const struct kcols *k,
			   const struct fold *f);
/*
 * The session's string ids that --match/--exclude let through: pass[id] is 1 for them, for ids below
 * *n (the largest passing id + 1). The caller frees it; NULL with a message.
 */
unsigned char *names_pass(sqlite3 *db, const struct analysis_opts *o, size_t *n);
/*
 * Duration statistics per group (keys from kernels_name_keys), sorted by total descending then key, in
 * *out (the caller frees it) and *n; *all is the summed total of the groups.
 */
void kernels_stats(const struct kcols *k, const int32_t *keys, struct dstats **out, size_t *n, int64_t *all);
/* Summed duration of every kernel. */
int64_t kernels_total(const struct kcols *k);

#endif
