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
 * Each reads the database main, or the attached one its hidden column names: `WHERE schema = 'base'`.
 *
 * kernel_windows (lib/sqlext_window.c), a table-valued function of one row (kernels, gpu_ns): the
 * kernels of a time window, summed,
 *   kernel_windows(session, pid, 'thread', thread_id, start_ns, end_ns [, schema])
 *     those whose launching API call (the first with the kernel's process and correlation id, in table
 *     order) started on the thread in [start_ns, end_ns): the GPU time an NVTX range launched;
 *   kernel_windows(session, pid, 'stream', stream_id, start_ns, end_ns [, schema])
 *     those that started on the stream in [start_ns, end_ns);
 * a NULL thread_id (stream_id) for any of the process, a NULL end_ns for no end. The session is joined
 * once and kept with the connection, so a window costs two binary searches.
 */
int gpuprof_sqlite_tables(sqlite3 *db);

/*
 * The TEMP views that shadow schemas/views.sql's slow ones with the same columns computed from
 * kernel_columns and the functions (today: hotspots). The extension's entry point makes them; gpuprof's
 * programs never read the views and do not. SQLITE_OK or SQLite's error code.
 */
int gpuprof_sqlite_views(sqlite3 *db);

#endif
