/*
 * scan: one SELECT over a table run in rowid slices, each slice on its own read-only connection and
 * thread, so a scan of millions of rows uses every core. SQLite reads one row at a time per connection;
 * with two cores, two connections read a 5M-kernel table in a little over half the time.
 *
 * The statement must restrict itself to `rowid BETWEEN :lo AND :hi`; the options script_next binds
 * (:session, :match, :exclude, :top) are bound too, and :one_session, 1 when the database holds the
 * session only: `AND (:one_session OR session_id = :session)` then skips reading session_id, a fifth of
 * the cost of a narrow scan. Slice k holds the rowids after slice k-1's, so concatenating the slices'
 * rows keeps table order.
 *
 * Ownership: a scan_plan is plain data. scan_run's row callback runs on the slice's thread: it may touch
 * only its own slice's argument.
 */
#ifndef GPUPROF_SCAN_H
#define GPUPROF_SCAN_H

#include <sqlite3.h>
#include <stdint.h>
#include <stddef.h>

#include "analysis.h"

#define SCAN_MAX_SLICES 8

struct scan_plan {
	int n;				/* slices, 0 when the table is empty */
	int64_t lo[SCAN_MAX_SLICES];	/* rowid range of each slice, inclusive */
	int64_t hi[SCAN_MAX_SLICES];
};

/*
 * Split table's rowids into slices: one per core, one for a small table or a database without a file.
 * GPUPROF_THREADS=N asks for N slices whatever the size (1 disables; tests use it to check that every
 * slicing gives the same answer). 0, or -1 with a message.
 */
int scan_plan(sqlite3 *db, const char *table, struct scan_plan *p);

/* How many slices scan_plan gives a table of `rows` rows. */
int scan_slices(int64_t rows);

/*
 * Run sql over every slice of p at once; for each row, row(st, arg) with slice k's arg at
 * (char *)args + k * argsize. Slice 0 runs on the caller's thread and connection. row returns 0, or -1 to
 * stop with a failure (it leaves no message: it runs off the main thread; the caller knows why).
 * 0 when every slice finished; -1 otherwise, with a message unless a row callback stopped it.
 */
int scan_run(sqlite3 *db, const struct scan_plan *p, const char *sql, const struct analysis_opts *o,
	     int (*row)(sqlite3_stmt *st, void *arg), void *args, size_t argsize);

#endif
