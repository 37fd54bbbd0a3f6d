/*
 * sqlext: gpuprof's SQL functions, for every connection a gpuprof program opens (lib/db.c registers them)
 * and for sqlite3 users as the loadable extension build/lib/gpuprof_sqlite.so (analyze/ext/sqlext_load.c).
 *
 *   median(x)            the middle value, the mean of the two middle ones for an even count (Nsight)
 *   stddev_samp(x)       sample standard deviation (n-1); 0 for one value, as Nsight and the analyses
 *   percentile(x, p)     p in 0..100, linear interpolation between the closest ranks (percentile_cont)
 *   busy_union(start, end)  length of the union of the [start, end) intervals, exact int64
 *   regexp(pattern, text)   PCRE2, so `text REGEXP pattern` works; a connection keeps its 16 last
 *                        compiled patterns (rules in a table: patterns that change row by row)
 *   short_name(name)     a C++ signature's base name, as --short shows it
 *   fold_name(name)      a range name without PyTorch's ", seq = N" and ", op_id = N" counters
 *   fmt_ns(ns)           a time as gpuprof's tables show it: "850 ns", "1.234 us", "12.345 ms", "2.500 s"
 *   fmt_fixed(x, d)      x with d digits after the point as C's printf("%.*f") rounds it (the binary
 *                        value, ties to even: 2.675 -> "2.67"), where SQLite's printf gives "2.68"
 *                        (analyze/ext/sqlext_fmt.c)
 *   fmt_bytes(x)         a size as gpuprof's tables show it: "512 B", "12.30 MB" (analyze/ext/sqlext_fmt.c)
 *   gpuprof_kernel_cache([on])  1: the connection keeps the kernel columns a table read (one session's,
 *                        while the database is unchanged), so the next table that reads them decodes
 *                        nothing; 0: it keeps none (the default). Returns the kernels kept. gpuprof-report
 *                        turns it on (8 bytes per kernel and column kept: about 200 MB for 5M kernels)
 *
 * The aggregates ignore NULLs and give NULL for no values; median and percentile of integers are the
 * doubles the analyses compute (analyze/ext/dstats.c), to the bit. Values and intervals are collected and sorted
 * once at the end, so memory grows with the group (8 bytes a value, 16 an interval).
 */
#ifndef GPUPROF_SQLEXT_H
#define GPUPROF_SQLEXT_H

#include <sqlite3.h>
#include <stddef.h>

/* Register every function and virtual table on db. SQLITE_OK or SQLite's error code (sqlite3_errmsg(db) says why). */
int gpuprof_sqlite_register(sqlite3 *db);

/*
 * kernel_columns (analyze/ext/sqlext_vtab.c), an eponymous read-only virtual table: the kernels of every session,
 * or of one with `WHERE session_id = S`, as
 *   session_id, pid, start_ns, end_ns, device_id, stream_id, name_id, correlation_id
 * with -1 for a NULL stream_id and 0 for a NULL correlation_id (what the column chunks keep, colstore.h),
 * and dur_ns = end_ns - start_ns, then the launch configuration grid_x, grid_y, grid_z, block_x,
 * block_y, block_z, registers, static_smem, dynamic_smem and shared_mem (coalesce(shared_mem,
 * static_smem + dynamic_smem); before schema version 4, coalesce(static_smem + dynamic_smem,
 * static_smem)), NULL where unknown. It decodes the session's column chunks when they are complete
 * (kv_complete's test in analyze/ext/sqlext_vtab.c), else reads the kernels table's rows: either way the session's kernels, in
 * no particular order. api_columns likewise for api_calls: session_id, pid, start_ns, end_ns, thread_id,
 * name_id, correlation_id, dur_ns (0 for a NULL thread_id, name_id or correlation_id). Both take
 * `start_ns < x` (or <=) and `end_ns > y` (or >=) themselves: rows outside are skipped, and so are whole
 * chunks once a scan has seen their bounds (a join filtering again per window reads few chunks). Their
 * rowid is the row's position among its session's rows in table order (plus the session's index in the
 * scan << 40), the same from chunks or rows. kernel_stats: per session and kernel name, calls, total_ns,
 * avg_ns, med_ns, min_ns, max_ns, stddev_ns (analyze/ext/dstats.c); with `keys = 'T'`, per key of the
 * table T (id, key) that maps name ids to keys (name_id holds the key); api_stats the same of the calls.
 * Each reads the database main, or the attached one its hidden column names: `WHERE schema = 'base'`.
 *
 * GPU busy time (analyze/ext/sqlext_busy.c), eponymous and read-only likewise, per session (all, or one with
 * `WHERE session_id = S`). A device's GPU activity is its kernels (as kernel_columns reads them), copies
 * (memcpys) and memsets (memsets), intervals [start_ns, end_ns):
 *   gpu_busy: per device, by id: every device the session declared (table devices) and every one that
 *     ran something. session_id, device_id, first_ns, last_ns (first start, last end of its activity;
 *     NULL for a declared device that ran nothing, whose other figures are 0), span_ns = last - first,
 *     busy_ns = the length of the union of its intervals, idle_ns = span - busy, kernels and kernel_ns
 *     (count and summed duration of its kernels), kernel_busy_ns (the union of its kernels alone),
 *     copy_busy_ns (of its copies and memsets alone), overlap_ns = kernel_busy + copy_busy - busy.
 *     The plain SQL: busy_union(start_ns, end_ns) ... GROUP BY device_id over the three (tests/vtab.py).
 *   gpu_stream_busy: per device and stream (-1 unknown) that ran something, by device and stream:
 *     session_id, device_id, stream_id, ops (intervals), kernels, kernel_ns, first_ns, last_ns, busy_ns.
 *   gpu_gaps: per device, every hole between the spans of its busy time, by device and start:
 *     session_id, device_id, start_ns, end_ns, gap_ns = end - start. With `WHERE session_id = S ORDER BY
 *     gap_ns DESC, start_ns, device_id` (or a prefix) the table gives them longest first, and with a LIMIT
 *     (no OFFSET) keeps only that many as it goes.
 * They read a session's activity whole when first asked (16 bytes an interval), and a connection keeps
 * the last session's figures and merged spans (so a report reads its kernels once) until the database
 * changes (PRAGMA data_version, schema_version or sqlite3_total_changes64 differ) or it closes.
 *
 * kernel_launches (analyze/ext/sqlext_launch.c): per session, pid, device_id, name_id and launch configuration
 * (kernel_columns' ten launch columns), the kernels that ran so (calls) and their summed dur_ns
 * (total_ns): kernel_columns grouped by those fourteen columns, in no particular order.
 *
 * Kernel classes (analyze/ext/sqlext_classes.c), two table-valued functions:
 *   class_rules(text [, file])  the rules of a text in analyze/kernel-classes.rules' format as rows
 *       (ord, line, class, class_ord, pattern), in order; class_ord numbers the classes compute 0, then
 *       in order of first appearance. The text is checked as gpuprof checks it (every rule has samples,
 *       each matched by its own rule and taken first by no rule of another class): a failure is an error
 *       naming file (default "rules"), line and rule. NULL text: no rows.
 *   kernel_busy(classes [, default_class]) WHERE session_id = S  (every session without it)
 *       classes is a JSON object of name ids to class names ({"12": "compute", "40": null}); names it
 *       lacks take default_class, names in no class (null, or no default) count in device_busy_ns only.
 *       Per session and device_id, one row per class (class; other_class NULL) with its kernels,
 *       total_ns and busy_ns (the union of its kernel intervals), one per pair of classes (class and
 *       other_class in the map's order; kernels and total_ns NULL) whose busy_ns is the time both run,
 *       and one (class and other_class NULL) for all classes together; device_busy_ns on each is the
 *       union of every kernel of the device. Every class of the map has its rows, kernels or not; at
 *       most 64 classes.
 *
 * kernel_exec (analyze/ext/sqlext_exec.c): per session, every kernel with its launch call, name_id by name_id
 * (table order within a name): session_id, pid, name_id, start_ns, dur_ns, api_ns (the call's duration),
 * queue_ns (the kernel's start minus the call's end, negative when it started before the call returned);
 * api_ns and queue_ns NULL without a call. The launch call is the first API call with the kernel's process
 * and correlation id, in table order (a correlation id of 0 or NULL has none).
 *
 * kernel_windows (analyze/ext/sqlext_window.c), a table-valued function of one row (kernels, gpu_ns): the
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
 * range_path(start_ns, end_ns, kind, name) OVER (PARTITION BY side, pid, thread, kind = 3 ORDER BY n
 * ROWS UNBOUNDED PRECEDING) (analyze/ext/sqlext_nest.c): each NVTX range's nesting path (step/forward/attention)
 * when a partition's rows come in nesting order (start, then the longest first). A range sits under the
 * innermost open one that contains it (ends at or after its end, and after its start; a NULL end_ns never
 * ended), and its path is that one's, '/', its name; start/end ranges (kind 2) neither nest nor hold
 * others: their path is their name. A frame that drops rows is an error.
 */
int gpuprof_sqlite_nest(sqlite3 *db);

/*
 * The operator layer (analyze/ext/sqlext_ops.c):
 *   op_nest(kind, id, start_ns, end_ns) OVER (PARTITION BY pid, thread ORDER BY start_ns, kind, end_ns DESC,
 *   ord ROWS UNBOUNDED PRECEDING): over one thread's ops (kind 0) and runtime calls (kind 1) in that order,
 *   an op's parent id (the innermost earlier op that contains it: starts at or before it and ends at or
 *   after it) and a call's op id (the innermost op whose [start_ns, end_ns] holds the call's start); NULL
 *   when none. A frame that drops rows is an error.
 *   op_flops(name, input_dims, concrete_inputs): the op's FLOPs as torch.utils.flop_counter counts them
 *   (mm, addmm, bmm, baddbmm, convolutions, scaled-dot-product attention and its backward; causal
 *   attention half), from the JSON texts of Kineto's "Input Dims" and "Concrete Inputs"; NULL for any
 *   other op, or when the shapes are missing or do not fit the formula.
 *   op_bytes(name, input_dims, input_types, concrete_inputs): bytes the op reads and writes, its tensor
 *   inputs and its output at their element sizes (the output in the first input's type); NULL where
 *   op_flops is, without types, and for ops whose output is not known from the inputs (backward
 *   attention, transposed convolutions).
 *   op_tree(session), an eponymous table-valued function: kind 0 rows the session's ops (id, owner: the
 *   parent as op_nest gives it, pid, gpu_self_ns, gpu_total_ns: the GPU events of the op's calls and of
 *   its subtree's, kids_ns: its children's summed durations), kind 1 rows its calls with a correlation id
 *   (id, owner: the call's op, pid, corr); analyze/ops.sql's walk and sums in one pass.
 * SQLITE_OK or SQLite's error code.
 */
int gpuprof_sqlite_ops(sqlite3 *db);

/* Register fmt_fixed and fmt_bytes (analyze/ext/sqlext_fmt.c) on db. SQLITE_OK or SQLite's error code. */
int gpuprof_sqlite_fmt(sqlite3 *db);

/*
 * memory_pairs (analyze/ext/sqlext_memory.c), an eponymous read-only virtual table: the memory_events of every
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
 * The TEMP views of schemas/views-ext.sql, which shadow schemas/views.sql's slow ones with the same
 * columns computed from the extension's tables (today: hotspots). The extension's entry point makes them,
 * and db_open for every reading gpuprof program. SQLITE_OK or SQLite's error code.
 */
int gpuprof_sqlite_views(sqlite3 *db);

/*
 * gpuprof_module(NAME) (analyze/ext/sqlext_module.c), an eponymous table-valued function that returns no
 * rows: what analysis file analyze/NAME.sql needs before its own statements, so that it runs as it is in
 * the sqlite3 shell. It makes temp.sqlite_parameters (the shell's .parameter table) and fills in the
 * parameters not set there with gpuprof-analyze's defaults (:session the newest session, :top -1, :short,
 * :folded, :match, :exclude, the module's options, the data files it reads), makes temp.name_groups,
 * attaches a baseline for a module that compares, and runs the modules NAME includes that have not run on
 * the connection with the same parameters (temp.gpuprof_modules). Registered by gpuprof_sqlite_register.
 */
int gpuprof_sqlite_module(sqlite3 *db);
/*
 * Make temp.sqlite_parameters(key TEXT PRIMARY KEY, value) WITHOUT ROWID when missing, as the sqlite3
 * shell's .parameter makes it. SQLITE_OK or SQLite's error code.
 */
int gpuprof_sqlite_params_table(sqlite3 *db);
/*
 * gpuprof_schema_version() for sqlite3 users (the loadable extension registers it): the database's
 * schema version, from PRAGMA user_version or an older database's table meta. SQLITE_OK or an error code.
 */
int gpuprof_sqlite_schema_version(sqlite3 *db);

struct buf;
/*
 * The data files analyses read as text, bound as :PARAM (the text) and :PARAM_file (its name, for
 * messages): the file the environment variable env names, else the built-in one. Ended by a NULL param.
 */
struct sqlext_data_file {
	const char *param;	/* ":class_rules" */
	const char *file_param;	/* ":class_rules_file", or NULL */
	const char *env;	/* GPUPROF_CLASS_RULES, or NULL: always the built-in one */
	const char *embedded;	/* analyze/kernel-classes.rules */
	const char *what;	/* for messages: "class rules" */
};
extern const struct sqlext_data_file sqlext_data_files[];
/* f's text appended to b and its file name into *file; 0, or -1 with the message in msg (n bytes). */
int sqlext_data_file_read(const struct sqlext_data_file *f, struct buf *b, const char **file, char *msg, size_t n);

#endif
