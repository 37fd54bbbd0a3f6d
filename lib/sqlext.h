/*
 * sqlext: gpuprof's SQL functions, for every connection a gpuprof program opens (lib/db.c registers them)
 * and for sqlite3 users as the loadable extension build/lib/gpuprof_sqlite.so (lib/sqlext_load.c).
 *
 *   median(x)            the middle value, the mean of the two middle ones for an even count (Nsight)
 *   stddev_samp(x)       sample standard deviation (n-1); 0 for one value, as Nsight and the analyses
 *   percentile(x, p)     p in 0..100, linear interpolation between the closest ranks (percentile_cont)
 *   busy_union(start, end)  length of the union of the [start, end) intervals, exact int64
 *   regexp(pattern, text)   PCRE2, so `text REGEXP pattern` works
 *   short_name(name)     a C++ signature's base name, as --short shows it
 *   fold_name(name)      a range name without PyTorch's ", seq = N" and ", op_id = N" counters
 *   fmt_fixed(x, d)      x with d digits after the point as C's printf("%.*f") rounds it (the binary
 *                        value, ties to even: 2.675 -> "2.67"), where SQLite's printf gives "2.68"
 *                        (lib/sqlext_fmt.c)
 *
 * The aggregates ignore NULLs and give NULL for no values; median and percentile of integers are the
 * doubles the analyses compute (lib/dstats.c), to the bit. Values and intervals are collected and sorted
 * once at the end, so memory grows with the group (8 bytes a value, 16 an interval).
 */
#ifndef GPUPROF_SQLEXT_H
#define GPUPROF_SQLEXT_H

#include <sqlite3.h>

/* Register every function and virtual table on db. SQLITE_OK or SQLite's error code (sqlite3_errmsg(db) says why). */
int gpuprof_sqlite_register(sqlite3 *db);

/*
 * kernel_columns (lib/sqlext_vtab.c), an eponymous read-only virtual table: the kernels of every session,
 * or of one with `WHERE session_id = S`, as
 *   session_id, pid, start_ns, end_ns, device_id, stream_id, name_id, correlation_id
 * with -1 for a NULL stream_id and 0 for a NULL correlation_id (what the column chunks keep, colstore.h),
 * and dur_ns = end_ns - start_ns. It decodes the session's column chunks when they are complete
 * (analyze/columns.c's test), else reads the kernels table's rows: either way the session's kernels, in
 * no particular order. api_columns likewise for api_calls: session_id, pid, start_ns, end_ns, thread_id,
 * name_id, correlation_id, dur_ns (0 for a NULL thread_id, name_id or correlation_id). kernel_stats: per
 * session and kernel name, calls, total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns (lib/dstats.c).
 */
int gpuprof_sqlite_tables(sqlite3 *db);

/* Register fmt_fixed (lib/sqlext_fmt.c) on db. SQLITE_OK or SQLite's error code. */
int gpuprof_sqlite_fmt(sqlite3 *db);

/*
 * memory_pairs (lib/sqlext_memory.c), an eponymous read-only virtual table: the memory_events of every
 * session, or of one with `WHERE session_id = S`, in time order (ts_ns, then rowid), as
 *   session_id, event (the memory_events rowid), seq (1, 2, ... in time order within the session),
 *   pair (the rowid of the event it pairs with: an allocation's free, NULL while live at the end; a
 *   free's allocation, NULL for a block allocated before the capture; NULL for events without address),
 *   live_bytes (its device's bytes in paired blocks after the event), sum_bytes (its device's running
 *   sum of signed bytes, allocations less frees), total_bytes (its device's running total_allocated,
 *   each process's latest summed; 0 before the first).
 * Events pair by (pid, device, address) as a stack: a free ends the newest live allocation of its process
 * and device at its address. Devices are coalesce(device_id, -1). SQLITE_OK or SQLite's error code.
 */
int gpuprof_sqlite_memory(sqlite3 *db);

/*
 * The TEMP views that shadow schemas/views.sql's slow ones with the same columns computed from
 * kernel_columns and the functions (today: hotspots). The extension's entry point makes them; gpuprof's
 * programs never read the views and do not. SQLITE_OK or SQLite's error code.
 */
int gpuprof_sqlite_views(sqlite3 *db);

#endif
