/*
 * trace: a session as a Chrome trace in the PyTorch profiler's (Kineto) layout, for Perfetto UI,
 * TensorBoard's profiler plugin, HTA and chrome://tracing (`gpuprof-report DB --format trace -o F`).
 *
 * Layout, as Kineto writes it (libkineto/src/output_json.cpp): GPU work on a process per GPU (pid = the
 * device; with several nodes node * 1000 + device) and a thread per stream (tid = the stream), with cat
 * "kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "gpu_user_annotation"; runtime and driver calls
 * ("cuda_runtime", "cuda_driver") and NVTX ranges ("user_annotation") on their process and thread; "ac2g"
 * flows from each launch to its GPU work; "[memory]" and "[OutOfMemory]" instant events; metadata naming
 * processes and threads; deviceProperties and distributedInfo. gpuprof adds what Kineto has no place for in
 * the same spirit: NVTX marks as instant "user_annotation" events, NVML and host metrics as counter ("C")
 * events of cat "device_metrics" and "host_metrics", and args Kineto lacks ("domain", "Memory Kind", a
 * failed allocation's "Call" and "Return Code").
 *
 * Times are microseconds with three decimals, relative to baseTimeNanoseconds (the first event's whole
 * second, as Kineto chooses it): epoch microseconds with nanosecond decimals do not fit a double, and
 * readers parse them as doubles. gpuprof-ingest reads the file back to the same nanoseconds.
 *
 * Everything is streamed from the views of analyze/trace.sql (analyze/rows.h) to the output (gzip when
 * PATH ends in .gz); memory holds the names of the processes, GPUs, streams and threads seen, not the events.
 */
#include "db.h"
#include "intmap.h"
#include "records.h"
#include "json.h"
#include "outfile.h"
#include "report.h"
#include "rows.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define NODE_PIDS 1000			/* GPU pids of node n: n * NODE_PIDS + device */
#define HOST_SHIFT ((int64_t)1 << 31)	/* where host pids that cannot be themselves go (load_procs) */

/* The output: a buffer flushed to a FILE or a gzip stream. */
struct out {
	FILE *f;
	gzFile gz;
	struct buf b;
	int failed;
};

/* A process of the session. */
struct proc {
	int64_t pid, node, rank, tpid;	/* tpid: its pid in the trace */
	char *host, *program;
};

/* A row the metadata names: a GPU (tpid, device) or a thread (tpid, tid). */
struct row {
	int64_t tpid, id, node;
	int gpu;
};

struct trace {
	sqlite3 *db;
	int64_t base;
	const struct trace_opts *o;
	struct out *out;
	struct proc *procs;
	size_t nprocs, procs_alloc;
	int ndevices;			/* in deviceProperties so far */
	int64_t nodes;
	struct row *rows;		/* GPUs and streams and threads seen */
	size_t nrows, rows_alloc;
	struct intmap seen;		/* row key -> index + 1 into rows */
	int64_t events, unended, flows;
	int first;			/* no event written yet */
};

static void out_flush(struct out *o)
{
	if (!o->b.len || o->failed)
		return;
	if (o->gz ? gzwrite(o->gz, o->b.s, (unsigned)o->b.len) != (int)o->b.len
		  : fwrite(o->b.s, 1, o->b.len, o->f) != o->b.len)
		o->failed = 1;
	buf_reset(&o->b);
}

/* The event separator, then room for the next: flushed every 256 KiB. */
static struct buf *event_begin(struct trace *t)
{
	struct buf *b = &t->out->b;
	if (b->len > 262144)
		out_flush(t->out);
	buf_addstr(b, t->first ? "\n" : ",\n");
	t->first = 0;
	t->events++;
	return b;
}

/* Time ns as microseconds relative to the base, three decimals. */
static void add_us(struct buf *b, int64_t ns)
{
	int64_t r;
	char frac[4];
	if (ns < 0) {
		buf_addch(b, '-');
		ns = -ns;
	}
	buf_addi64(b, ns / 1000);
	r = ns % 1000;
	frac[0] = '.';
	frac[1] = (char)('0' + r / 100);
	frac[2] = (char)('0' + r / 10 % 10);
	frac[3] = (char)('0' + r % 10);
	buf_add(b, frac, 4);
}

static void add_str(struct buf *b, const char *s)
{
	json_quote(b, s ? s : "", s ? strlen(s) : 0);
}

/* ,"key":v for an integer column that is not NULL. */
static void add_arg_int(struct buf *b, const char *key, sqlite3_stmt *st, int col, int *first)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return;
	buf_addstr(b, *first ? "" : ", ");
	*first = 0;
	add_str(b, key);
	buf_addstr(b, ": ");
	buf_addi64(b, sqlite3_column_int64(st, col));
}

/* ,"key":"text" for a text column that is not NULL. */
static void add_arg_text(struct buf *b, const char *key, sqlite3_stmt *st, int col, int *first)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return;
	buf_addstr(b, *first ? "" : ", ");
	*first = 0;
	add_str(b, key);
	buf_addstr(b, ": ");
	add_str(b, (const char *)sqlite3_column_text(st, col));
}

/* The process of stored pid (binary search: procs are sorted by pid); NULL when unknown. */
static const struct proc *proc_of(const struct trace *t, int64_t pid)
{
	size_t lo = 0, hi = t->nprocs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->procs[mid].pid == pid)
			return &t->procs[mid];
		if (t->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int64_t host_pid(const struct trace *t, int64_t pid)
{
	const struct proc *p = proc_of(t, pid);
	return p ? p->tpid : pid;
}

static int64_t gpu_pid(const struct trace *t, int64_t pid, int64_t device)
{
	const struct proc *p = proc_of(t, pid);
	return (t->nodes > 1 && p ? p->node * NODE_PIDS : 0) + device;
}

/* Remember the row (tpid, id) for the metadata at the end. */
static void see(struct trace *t, int64_t tpid, int64_t id, int gpu, int64_t node)
{
	uint64_t h = fnv1a(FNV1A_INIT, &tpid, sizeof(tpid));
	int64_t key, idx;
	h = fnv1a(h, &id, sizeof(id));
	h = fnv1a(h, &gpu, sizeof(gpu));
	for (key = (int64_t)(h >> 2) | 1; intmap_get(&t->seen, key, &idx); key = (int64_t)((uint64_t)key * 31 + 2) | 1) {
		const struct row *r = &t->rows[idx - 1];
		if (r->tpid == tpid && r->id == id && r->gpu == gpu)
			return;
	}
	grow_array((void **)&t->rows, &t->rows_alloc, t->nrows + 1, sizeof(*t->rows));
	t->rows[t->nrows] = (struct row){ tpid, id, node, gpu };
	intmap_put(&t->seen, key, (int64_t)++t->nrows);
}

/*
 * {"ph": ph, "cat": cat, "name": name, "pid": tpid, "tid": tid, "ts": start[, "dur": end - start], "args": {
 * -- the caller goes on with the args and ends with "}}".
 */
static struct buf *event_head(struct trace *t, const char *ph, const char *cat, const char *name, int64_t tpid,
			      int64_t tid, int64_t start, const int64_t *end)
{
	struct buf *b = event_begin(t);
	buf_addstr(b, "{\"ph\": \"");
	buf_addstr(b, ph);
	buf_addstr(b, "\", \"cat\": \"");
	buf_addstr(b, cat);
	buf_addstr(b, "\", \"name\": ");
	add_str(b, name);
	buf_addstr(b, ", \"pid\": ");
	buf_addi64(b, tpid);
	buf_addstr(b, ", \"tid\": ");
	buf_addi64(b, tid);
	buf_addstr(b, ", \"ts\": ");
	add_us(b, start - t->base);
	if (end) {
		buf_addstr(b, ", \"dur\": ");
		add_us(b, *end - start);
	}
	if (!strcmp(ph, "i"))
		buf_addstr(b, ", \"s\": \"t\"");
	buf_addstr(b, ", \"args\": {");
	return b;
}

/* each_row's callback and its trace. */
struct each {
	struct trace *t;
	void (*fn)(struct trace *t, sqlite3_stmt *st);
};

static int each_one(void *ctx, sqlite3_stmt *st)
{
	struct each *e = ctx;
	e->fn(e->t, st);
	return e->t->out->failed;
}

/* Hand each row of the trace module's view to fn (analyze/trace.sql); 0, or -1 with a message. */
static int each_row(struct trace *t, const char *view, void (*fn)(struct trace *t, sqlite3_stmt *st))
{
	struct each e = { t, fn };
	return rows_each(t->db, view, each_one, &e) < 0 ? -1 : 0;
}

/* Columns 0..5 of every GPU activity: pid, start, end, device, context, stream, then the correlation. */
static void gpu_args(struct buf *b, sqlite3_stmt *st)
{
	buf_addstr(b, "\"device\": ");
	buf_addi64(b, sqlite3_column_int64(st, 3));
	buf_addstr(b, ", \"context\": ");
	buf_addi64(b, sqlite3_column_int64(st, 4));
	buf_addstr(b, ", \"stream\": ");
	buf_addi64(b, sqlite3_column_int64(st, 5));
	buf_addstr(b, ", \"correlation\": ");
	buf_addi64(b, sqlite3_column_int64(st, 6));
}

static struct buf *gpu_head(struct trace *t, sqlite3_stmt *st, const char *cat, const char *name)
{
	int64_t pid = sqlite3_column_int64(st, 0), device = sqlite3_column_int64(st, 3),
		stream = sqlite3_column_int64(st, 5), end = sqlite3_column_int64(st, 2), tpid = gpu_pid(t, pid, device);
	const struct proc *p = proc_of(t, pid);
	struct buf *b;
	see(t, tpid, device, 1, p ? p->node : 0);
	see(t, tpid, stream, 0, -1);
	b = event_head(t, "X", cat, name, tpid, stream, sqlite3_column_int64(st, 1), &end);
	gpu_args(b, st);
	return b;
}

static void kernel(struct trace *t, sqlite3_stmt *st)
{
	struct buf *b = gpu_head(t, st, "kernel", (const char *)sqlite3_column_text(st, 7));
	int first = 0, i;
	add_arg_int(b, "registers per thread", st, 14, &first);
	add_arg_int(b, "shared memory", st, 15, &first);
	for (i = 0; i < 2; i++) {
		int c = 8 + 3 * i;
		if (sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		buf_addstr(b, i ? ", \"block\": [" : ", \"grid\": [");
		buf_addi64(b, sqlite3_column_int64(st, c));
		buf_addstr(b, ", ");
		buf_addi64(b, sqlite3_column_int64(st, c + 1));
		buf_addstr(b, ", ");
		buf_addi64(b, sqlite3_column_int64(st, c + 2));
		buf_addch(b, ']');
	}
	buf_addstr(b, "}}");
}

static void memcpy_ev(struct trace *t, sqlite3_stmt *st)
{
	struct buf *b = gpu_head(t, st, "gpu_memcpy", (const char *)sqlite3_column_text(st, 7));
	int first = 0;
	add_arg_int(b, "bytes", st, 8, &first);
	add_arg_int(b, "fromDevice", st, 9, &first);
	add_arg_int(b, "toDevice", st, 10, &first);
	buf_addstr(b, "}}");
}

static void memset_ev(struct trace *t, sqlite3_stmt *st)
{
	struct buf *b = gpu_head(t, st, "gpu_memset", (const char *)sqlite3_column_text(st, 7));
	int first = 0;
	add_arg_int(b, "bytes", st, 8, &first);
	buf_addstr(b, "}}");
}

/* A sync: on its GPU's stream row as Kineto puts it, on the thread's row when it names no stream. */
static void sync_ev(struct trace *t, sqlite3_stmt *st)
{
	int64_t pid = sqlite3_column_int64(st, 0), end = sqlite3_column_int64(st, 2), tpid, tid;
	const char *name = (const char *)sqlite3_column_text(st, 7);
	const struct proc *p = proc_of(t, pid);
	struct buf *b;
	int first = 1;
	if (sqlite3_column_type(st, 3) != SQLITE_NULL && sqlite3_column_type(st, 5) != SQLITE_NULL) {
		tpid = gpu_pid(t, pid, sqlite3_column_int64(st, 3));
		tid = sqlite3_column_int64(st, 5);
		see(t, tpid, sqlite3_column_int64(st, 3), 1, p ? p->node : 0);
	} else {
		tpid = host_pid(t, pid);
		tid = sqlite3_column_int64(st, 9);
	}
	see(t, tpid, tid, 0, -1);
	b = event_head(t, "X", "cuda_sync", name, tpid, tid, sqlite3_column_int64(st, 1), &end);
	buf_addstr(b, "\"cuda_sync_kind\": ");
	add_str(b, name);
	first = 0;
	add_arg_int(b, "device", st, 3, &first);
	add_arg_int(b, "context", st, 4, &first);
	add_arg_int(b, "stream", st, 5, &first);
	add_arg_int(b, "correlation", st, 6, &first);
	if (sqlite3_column_int64(st, 8))
		add_arg_int(b, "wait_on_cuda_event_record_corr_id", st, 8, &first);
	buf_addstr(b, "}}");
}

static void api_ev(struct trace *t, sqlite3_stmt *st)
{
	int64_t tpid = host_pid(t, sqlite3_column_int64(st, 0)), tid = sqlite3_column_int64(st, 3),
		end = sqlite3_column_int64(st, 2);
	struct buf *b;
	int first = 1;
	see(t, tpid, tid, 0, -1);
	b = event_head(t, "X", sqlite3_column_int64(st, 7) == 2 ? "cuda_driver" : "cuda_runtime",
		       (const char *)sqlite3_column_text(st, 5), tpid, tid, sqlite3_column_int64(st, 1), &end);
	add_arg_int(b, "cbid", st, 6, &first);
	add_arg_int(b, "correlation", st, 4, &first);
	buf_addstr(b, "}}");
}

/*
 * An NVTX range: on its thread (user_annotation), or a GPU annotation (kind 3) on its stream's row of
 * the GPU that stream ran on (gpu_user_annotation). A range that never ended is a "B" event without "E".
 */
static void range_ev(struct trace *t, sqlite3_stmt *st)
{
	int64_t pid = sqlite3_column_int64(st, 0), tid = sqlite3_column_int64(st, 3), kind = sqlite3_column_int64(st, 6),
		end = sqlite3_column_int64(st, 2), tpid;
	int open = sqlite3_column_type(st, 2) == SQLITE_NULL, first = 1;
	struct buf *b;
	if (kind == 3 && sqlite3_column_type(st, 7) != SQLITE_NULL) {
		const struct proc *p = proc_of(t, pid);
		tpid = gpu_pid(t, pid, sqlite3_column_int64(st, 7));
		see(t, tpid, sqlite3_column_int64(st, 7), 1, p ? p->node : 0);
	} else
		tpid = host_pid(t, pid);
	see(t, tpid, tid, 0, -1);
	t->unended += open;
	b = event_head(t, open ? "B" : "X", kind == 3 ? "gpu_user_annotation" : "user_annotation",
		       (const char *)sqlite3_column_text(st, 4), tpid, tid, sqlite3_column_int64(st, 1), open ? NULL : &end);
	add_arg_text(b, "domain", st, 5, &first);
	buf_addstr(b, "}}");
}

/*
 * An op with a FLOP count (flop_ops), as PyTorch's with_flops traces give it: a cpu_op on its thread with
 * "External id", "Input type" (its first tensor input's type, the one stored) and "flops".
 */
static void op_ev(struct trace *t, sqlite3_stmt *st)
{
	int64_t tpid = host_pid(t, sqlite3_column_int64(st, 0)), tid = sqlite3_column_int64(st, 3),
		end = sqlite3_column_int64(st, 2);
	struct buf *b;
	int first = 1;
	see(t, tpid, tid, 0, -1);
	b = event_head(t, "X", "cpu_op", (const char *)sqlite3_column_text(st, 4), tpid, tid,
		       sqlite3_column_int64(st, 1), &end);
	add_arg_int(b, "External id", st, 6, &first);
	if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
		buf_addstr(b, first ? "" : ", ");
		first = 0;
		buf_addstr(b, "\"Input type\": [");
		add_str(b, (const char *)sqlite3_column_text(st, 7));
		buf_addstr(b, "]");
	}
	add_arg_int(b, TRACE_FLOPS_ARG, st, 5, &first);
	buf_addstr(b, "}}");
}

static void marker_ev(struct trace *t, sqlite3_stmt *st)
{
	int64_t tpid = host_pid(t, sqlite3_column_int64(st, 0)), tid = sqlite3_column_int64(st, 2);
	struct buf *b;
	int first = 1;
	see(t, tpid, tid, 0, -1);
	b = event_head(t, "i", "user_annotation", (const char *)sqlite3_column_text(st, 3), tpid, tid,
		       sqlite3_column_int64(st, 1), NULL);
	add_arg_text(b, "domain", st, 4, &first);
	buf_addstr(b, "}}");
}

/* A device allocation (Bytes > 0) or free (Bytes < 0), as PyTorch's profile_memory writes them. */
static void memory_ev(struct trace *t, sqlite3_stmt *st)
{
	int64_t tpid = host_pid(t, sqlite3_column_int64(st, 0)), tid = sqlite3_column_int64(st, 2),
		bytes = sqlite3_column_int64(st, 5);
	struct buf *b;
	int first = 0;
	see(t, tpid, tid, 0, -1);
	b = event_head(t, "i", "cpu_instant_event", "[memory]", tpid, tid, sqlite3_column_int64(st, 1), NULL);
	buf_addstr(b, "\"Bytes\": ");
	buf_addi64(b, sqlite3_column_int64(st, 4) == 2 ? -bytes : bytes);
	add_arg_int(b, "Total Allocated", st, 7, &first);
	add_arg_int(b, "Addr", st, 6, &first);
	buf_addstr(b, ", \"Device Type\": 1");
	add_arg_int(b, "Device Id", st, 3, &first);
	add_arg_text(b, "Memory Kind", st, 8, &first);
	buf_addstr(b, "}}");
}

/*
 * A device allocation that failed for want of memory, as PyTorch's profile_memory writes it ([OutOfMemory]),
 * with what Kineto's layout has no key for as args of gpuprof's own (the call, its return code).
 */
static void oom_ev(struct trace *t, sqlite3_stmt *st)
{
	int64_t tpid = host_pid(t, sqlite3_column_int64(st, 0)), tid = sqlite3_column_int64(st, 2);
	struct buf *b;
	int first = 0;
	see(t, tpid, tid, 0, -1);
	b = event_head(t, "i", "cpu_instant_event", "[OutOfMemory]", tpid, tid, sqlite3_column_int64(st, 1), NULL);
	buf_addstr(b, "\"Device Type\": 1");
	add_arg_int(b, "Device Id", st, 3, &first);
	add_arg_int(b, "Bytes", st, 4, &first);
	add_arg_int(b, "Total Allocated", st, 5, &first);
	add_arg_int(b, "Total Reserved", st, 6, &first);
	add_arg_text(b, "Call", st, 7, &first);
	add_arg_int(b, "Return Code", st, 8, &first);
	buf_addstr(b, "}}");
}

/* A counter event: keys[i] names column first + i; NULL values are left out. */
static void counter_ev(struct trace *t, sqlite3_stmt *st, const char *cat, const char *name, int64_t tpid,
		       const char *const *keys, int first_col)
{
	struct buf *b = event_begin(t);
	int i, first = 1;
	buf_addstr(b, "{\"ph\": \"C\", \"cat\": \"");
	buf_addstr(b, cat);
	buf_addstr(b, "\", \"name\": ");
	add_str(b, name);
	buf_addstr(b, ", \"pid\": ");
	buf_addi64(b, tpid);
	buf_addstr(b, ", \"tid\": 0, \"ts\": ");
	add_us(b, sqlite3_column_int64(st, 1) - t->base);
	buf_addstr(b, ", \"args\": {");
	for (i = 0; keys[i]; i++) {
		int c = first_col + i;
		if (sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		buf_addstr(b, first ? "" : ", ");
		first = 0;
		add_str(b, keys[i]);
		buf_addstr(b, ": ");
		if (sqlite3_column_type(st, c) == SQLITE_FLOAT)
			buf_addf(b, "%.17g", sqlite3_column_double(st, c));
		else
			buf_addi64(b, sqlite3_column_int64(st, c));
	}
	buf_addstr(b, "}}");
}

static void device_metric_ev(struct trace *t, sqlite3_stmt *st)
{
	int64_t pid = sqlite3_column_int64(st, 0), device = sqlite3_column_int64(st, 2), tpid = gpu_pid(t, pid, device);
	const struct proc *p = proc_of(t, pid);
	char name[32];
	see(t, tpid, device, 1, p ? p->node : 0);
	snprintf(name, sizeof(name), "GPU %" PRId64, device);
	counter_ev(t, st, "device_metrics", name, tpid, trace_device_metric_keys, 3);
}

static void host_metric_ev(struct trace *t, sqlite3_stmt *st)
{
	counter_ev(t, st, "host_metrics", "Host", host_pid(t, sqlite3_column_int64(st, 0)), trace_host_metric_keys, 2);
}

/* An "ac2g" flow from a launch call (columns 1..3: its pid, thread, start) to its GPU work (4..7). */
static void flow_ev(struct trace *t, sqlite3_stmt *st)
{
	int64_t pid = sqlite3_column_int64(st, 0), id = ++t->flows;
	struct buf *b = event_begin(t);
	buf_addstr(b, "{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": ");
	buf_addi64(b, id);
	buf_addstr(b, ", \"pid\": ");
	buf_addi64(b, host_pid(t, pid));
	buf_addstr(b, ", \"tid\": ");
	buf_addi64(b, sqlite3_column_int64(st, 1));
	buf_addstr(b, ", \"ts\": ");
	add_us(b, sqlite3_column_int64(st, 2) - t->base);
	buf_addstr(b, "}");
	b = event_begin(t);
	buf_addstr(b, "{\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": ");
	buf_addi64(b, id);
	buf_addstr(b, ", \"pid\": ");
	buf_addi64(b, gpu_pid(t, pid, sqlite3_column_int64(st, 4)));
	buf_addstr(b, ", \"tid\": ");
	buf_addi64(b, sqlite3_column_int64(st, 5));
	buf_addstr(b, ", \"ts\": ");
	add_us(b, sqlite3_column_int64(st, 3) - t->base);
	buf_addstr(b, ", \"bp\": \"e\"}");
	t->events--;	/* a flow counts once */
}

/*
 * The events, kind by kind, each from its view of analyze/trace.sql (kernels: the one of the database's
 * schema version); smem_col: the kernels table has shared_mem (schema version 4 on).
 */
static const struct event_view {
	const char *view;
	void (*fn)(struct trace *t, sqlite3_stmt *st);
} event_views[] = {
	{ "trace_memcpys", memcpy_ev },
	{ "trace_memsets", memset_ev },
	{ "trace_syncs", sync_ev },
	{ "trace_api_calls", api_ev },
	{ "trace_ranges", range_ev },
	{ "trace_markers", marker_ev },
	{ "trace_memory_events", memory_ev },
	{ "trace_alloc_failures", oom_ev },
	{ "trace_device_metrics", device_metric_ev },
	{ "trace_host_metrics", host_metric_ev },
	{ "trace_flop_ops", op_ev },
	/* The flows: a launch call and the GPU work of its correlation id, when both are written. */
	{ "trace_kernel_flows", flow_ev },
	{ "trace_memcpy_flows", flow_ev },
	{ "trace_memset_flows", flow_ev },
};

static int write_events(struct trace *t, int smem_col)
{
	size_t i;
	if (each_row(t, smem_col ? "trace_kernels" : "trace_kernels_v3", kernel))
		return -1;
	for (i = 0; i < sizeof(event_views) / sizeof(event_views[0]); i++)
		if (each_row(t, event_views[i].view, event_views[i].fn))
			return -1;
	return 0;
}

/* {"name": what, "ph": "M", "pid": pid, "tid": tid, "args": {"key": value}} */
static void meta_ev(struct trace *t, const char *what, int64_t pid, int64_t tid, const char *key, const char *text,
		    int64_t num)
{
	struct buf *b = event_begin(t);
	buf_addstr(b, "{\"name\": \"");
	buf_addstr(b, what);
	buf_addstr(b, "\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
	buf_addi64(b, pid);
	buf_addstr(b, ", \"tid\": ");
	buf_addi64(b, tid);
	buf_addstr(b, ", \"args\": {\"");
	buf_addstr(b, key);
	buf_addstr(b, "\": ");
	if (text)
		add_str(b, text);
	else
		buf_addi64(b, num);
	buf_addstr(b, "}}");
	t->events--;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

/* Process and thread names, and their order: hosts first, then GPUs, as Kineto sorts them. */
static void write_names(struct trace *t)
{
	size_t i, j;
	char label[160];
	for (i = 0; i < t->nprocs; i++) {
		const struct proc *p = &t->procs[i];
		const char *prog = base_name(p->program);
		if (t->nodes > 1 && p->rank >= 0)
			snprintf(label, sizeof(label), "%s (rank %" PRId64 ")", prog ? prog : "process", p->rank);
		else if (t->nodes > 1 && p->host)
			snprintf(label, sizeof(label), "%s (%s)", prog ? prog : "process", p->host);
		else
			snprintf(label, sizeof(label), "%s", prog ? prog : "process");
		meta_ev(t, "process_name", p->tpid, 0, "name", label, 0);
		meta_ev(t, "process_labels", p->tpid, 0, "labels", "CPU", 0);
		meta_ev(t, "process_sort_index", p->tpid, 0, "sort_index", NULL, (int64_t)i);
	}
	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		if (!r->gpu)
			continue;
		if (t->nodes > 1) {
			const struct proc *p = NULL;
			for (j = 0; j < t->nprocs && !p; j++)
				if (t->procs[j].node == r->node)
					p = &t->procs[j];
			if (p && p->rank >= 0)
				snprintf(label, sizeof(label), "GPU %" PRId64 " (rank %" PRId64 ")", r->id, p->rank);
			else
				snprintf(label, sizeof(label), "GPU %" PRId64 " (%s)", r->id, p && p->host ? p->host : "?");
		} else
			snprintf(label, sizeof(label), "GPU %" PRId64, r->id);
		meta_ev(t, "process_name", r->tpid, 0, "name", label, 0);
		meta_ev(t, "process_labels", r->tpid, 0, "labels", label, 0);
		meta_ev(t, "process_sort_index", r->tpid, 0, "sort_index", NULL, 16777216 + r->tpid);
	}
	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		int on_gpu = 0;
		if (r->gpu)
			continue;
		for (j = 0; j < t->nprocs && !on_gpu; j++)
			on_gpu = t->procs[j].tpid == r->tpid;
		on_gpu = !on_gpu;
		snprintf(label, sizeof(label), on_gpu ? "stream %" PRId64 : "thread %" PRId64, r->id);
		meta_ev(t, "thread_name", r->tpid, r->id, "name", label, 0);
		meta_ev(t, "thread_sort_index", r->tpid, r->id, "sort_index", NULL, r->id);
	}
}

/* A process of trace_procs into t->procs. */
static int proc_row(void *ctx, sqlite3_stmt *st)
{
	struct trace *t = ctx;
	struct proc *p;
	grow_array((void **)&t->procs, &t->procs_alloc, t->nprocs + 1, sizeof(*t->procs));
	p = &t->procs[t->nprocs++];
	p->pid = sqlite3_column_int64(st, 0);
	p->node = sqlite3_column_int64(st, 1);
	p->host = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL : xstrdup((const char *)sqlite3_column_text(st, 2));
	p->rank = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
	p->program = sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL : xstrdup((const char *)sqlite3_column_text(st, 4));
	if (p->node + 1 > t->nodes)
		t->nodes = p->node + 1;
	return 0;
}

/*
 * The processes, sorted by pid, with their node and trace pid (of rank R only with --rank R: their node,
 * the only one, numbered 0, so GPU pids are then the devices, as in the rank's own Kineto trace).
 */
static int load_procs(struct trace *t)
{
	size_t i;
	if (rows_each(t->db, "trace_procs", proc_row, t))
		return -1;
	if (t->o->has_rank) {
		if (!t->nprocs)
			return error("the session has no rank %" PRId64, t->o->rank);
		for (i = 0; i < t->nprocs; i++)
			t->procs[i].node = 0;
		t->nodes = 1;
	}
	/*
	 * GPU pids are below nodes * NODE_PIDS, and viewers read pids as 32-bit numbers (Perfetto): a process
	 * whose pid is a GPU's, or past 2^31 (a second host's pid + k * 2^32), takes 2^31 + its index.
	 */
	for (i = 0; i < t->nprocs; i++) {
		int64_t pid = t->procs[i].pid;
		t->procs[i].tpid = pid < t->nodes * NODE_PIDS || pid >= HOST_SHIFT ? HOST_SHIFT + (int64_t)i : pid;
	}
	return 0;
}

/* trace_window's row: the window and the first event's time in it (-1 when the window holds none). */
static int window_row(void *ctx, sqlite3_stmt *st)
{
	int64_t *w = ctx;
	w[0] = sqlite3_column_int64(st, 0);
	w[1] = sqlite3_column_int64(st, 1);
	if (sqlite3_column_type(st, 2) != SQLITE_NULL)
		w[2] = sqlite3_column_int64(st, 2);
	return 0;
}

/* The window (the base is the first event's whole second): 0, or -1 with a message. */
static int window(struct trace *t, int64_t *first)
{
	int64_t w[3] = { INT64_MIN, INT64_MAX, -1 };
	if (rows_each(t->db, "trace_window", window_row, w))
		return -1;
	if (w[0] > w[1])
		return error("the window is empty: --from is after --to");
	*first = w[2];
	return 0;
}

/* A device of trace_devices into "deviceProperties", as Kineto names its fields. */
static int device_row(void *ctx, sqlite3_stmt *st)
{
	static const char *const keys[] = { "id", "name", "computeMajor", "computeMinor", "numSms", "totalGlobalMem",
					    "maxThreadsPerMultiprocessor", "regsPerMultiprocessor",
					    "sharedMemPerMultiprocessor" };
	struct trace *t = ctx;
	struct buf *b = &t->out->b;
	int i;
	buf_addstr(b, t->ndevices++ ? ",\n    {" : "\n    {");
	for (i = 0; i < 9; i++) {
		if (sqlite3_column_type(st, i) == SQLITE_NULL)
			continue;
		buf_addstr(b, i ? ", " : "");
		add_str(b, keys[i]);
		buf_addstr(b, ": ");
		if (i == 1)
			add_str(b, (const char *)sqlite3_column_text(st, i));
		else
			buf_addi64(b, sqlite3_column_int64(st, i));
	}
	buf_addch(b, '}');
	return 0;
}

/* "deviceProperties": the session's devices (one row per device id). */
static int write_devices(struct trace *t)
{
	struct buf *b = &t->out->b;
	buf_addstr(b, "  \"deviceProperties\": [");
	if (rows_each(t->db, "trace_devices", device_row, t))
		return -1;
	buf_addstr(b, t->ndevices ? "\n  ],\n" : "],\n");
	return 0;
}

static int world_row(void *ctx, sqlite3_stmt *st)
{
	int64_t *n = ctx;
	if (sqlite3_column_int64(st, 0) > 1)
		*n = sqlite3_column_int64(st, 0);
	return 0;
}

/* The session's header fields, as Kineto names them. */
static int session_row(void *ctx, sqlite3_stmt *st)
{
	static const char *const keys[] = { "trace_id", "traceName", "host_name", "gpuprof_source" };
	struct buf *b = ctx;
	int i;
	for (i = 0; i < 4; i++) {
		if (sqlite3_column_type(st, i) == SQLITE_NULL)
			continue;
		buf_addf(b, "  \"%s\": ", keys[i]);
		add_str(b, (const char *)sqlite3_column_text(st, i));
		buf_addstr(b, ",\n");
	}
	return 1;	/* one session */
}

/* The document's members before traceEvents: what Kineto writes there, and gpuprof's own. */
static int write_header(struct trace *t)
{
	struct buf *b = &t->out->b;
	int64_t ranks = 0, rank = -1, world = 1;
	size_t i;
	buf_addstr(b, "{\n  \"schemaVersion\": 1,\n");
	if (rows_each(t->db, "trace_session", session_row, b) < 0)
		return -1;
	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].rank >= 0) {
			ranks++;
			rank = t->procs[i].rank;
		}
	/* A trace is one rank's in Kineto: distributedInfo says which, when the session has just one. */
	if (ranks == 1) {
		/* The session's ranks (at least 1). */
		if (rows_each(t->db, "trace_world", world_row, &world))
			return -1;
		buf_addf(b, "  \"distributedInfo\": {\"rank\": %" PRId64 ", \"world_size\": %" PRId64 "},\n", rank,
			 world);
	}
	if (write_devices(t))
		return -1;
	buf_addstr(b, "  \"displayTimeUnit\": \"ms\",\n");
	buf_addf(b, "  \"baseTimeNanoseconds\": %" PRId64 ",\n  \"traceEvents\": [", t->base);
	return 0;
}

int report_trace(sqlite3 *db, int64_t session, const struct trace_opts *o, const char *path)
{
	struct trace t;
	struct out out;
	struct outfile of = { NULL, NULL, NULL, NULL };
	int64_t first = -1;
	int rc = -1, gz = path && strcmp(path, "-") && ends_with(path, ".gz");
	size_t i;

	memset(&t, 0, sizeof(t));
	memset(&out, 0, sizeof(out));
	buf_init(&out.b);
	t.db = db;
	t.o = o;
	t.out = &out;
	t.first = 1;
	t.seen = (struct intmap)INTMAP_INIT;
	{
		/* What analyze/trace.sql's views keep: the session, the window, the names, the rank. */
		const struct rows_param params[] = {
			ROWS_INT(":session", session),
			o->has_from ? (struct rows_param)ROWS_INT(":from", o->from) : (struct rows_param)ROWS_NULL(":from"),
			ROWS_INT(":from_end", o->from_end),
			o->has_to ? (struct rows_param)ROWS_INT(":to", o->to) : (struct rows_param)ROWS_NULL(":to"),
			ROWS_INT(":to_end", o->to_end),
			ROWS_TEXT(":match", o->match),
			ROWS_TEXT(":exclude", o->exclude),
			o->has_rank ? (struct rows_param)ROWS_INT(":rank", o->rank) : (struct rows_param)ROWS_NULL(":rank"),
		};
		if (rows_module(db, "trace", params, (int)(sizeof(params) / sizeof(params[0]))) || load_procs(&t) ||
		    window(&t, &first))
			goto done;
	}
	/* The first event's whole second, as Kineto chooses its base: relative times stay short. */
	t.base = first < 0 ? 0 : first - first % 1000000000;
	/* A file is written aside and renamed once whole: a failure or an interrupt leaves PATH as it was. */
	if (!path || !strcmp(path, "-"))
		out.f = stdout;
	else if (outfile_reserve(&of, path))
		goto done;
	else if (gz ? !(out.gz = gzopen(outfile_name(&of), "wb3")) : !(out.f = fopen(outfile_name(&of), "w"))) {
		error("%s: cannot write: %s", path, strerror(errno ? errno : ENOMEM));
		goto done;
	}
	if (write_header(&t) || write_events(&t, db_schema_version(db) >= DB_V_SHARED_MEM))
		goto done;
	write_names(&t);
	buf_addstr(&out.b, "\n  ]\n}\n");
	out_flush(&out);
	if (out.failed || (out.gz ? gzclose(out.gz) != Z_OK : out.f != stdout ? fclose(out.f) : fflush(out.f))) {
		out.gz = NULL;
		out.f = NULL;
		error("%s: write error", path && strcmp(path, "-") ? path : "standard output");
		goto done;
	}
	out.gz = NULL;
	out.f = NULL;
	if (of.path && outfile_commit(&of))
		goto done;
	if (!t.events)
		warning("the trace holds no events%s", o->has_from || o->has_to || o->match || o->exclude
			? " (nothing in the window or matching the names)" : "");
	if (t.unended)
		info("%" PRId64 " NVTX ranges never ended: written as \"B\" events without an end", t.unended);
	rc = 0;
done:
	if (out.gz)
		gzclose(out.gz);
	if (out.f && out.f != stdout)
		fclose(out.f);
	outfile_abort(&of);
	buf_release(&out.b);
	for (i = 0; i < t.nprocs; i++) {
		free(t.procs[i].host);
		free(t.procs[i].program);
	}
	free(t.procs);
	free(t.rows);
	intmap_release(&t.seen);
	return rc;
}

int report_trace_doc(FILE *out, const char *path, const struct report_doc *d)
{
	(void)out;
	return report_trace(d->db, d->session, d->trace, path);
}
