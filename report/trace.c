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
 * Everything is streamed from SQLite statements to the output (gzip when PATH ends in .gz); memory holds
 * the names of the processes, GPUs, streams and threads seen, not the events.
 */
#include "db.h"
#include "embed.h"
#include "intmap.h"
#include "records.h"
#include "json.h"
#include "outfile.h"
#include "report.h"
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
	int64_t session, base, from, to;
	const struct trace_opts *o;
	struct out *out;
	struct proc *procs;
	size_t nprocs;
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

/*
 * Prepare sql (the session is ?1, the window ?2..?3, --match ?4, --exclude ?5), run it and hand each row
 * to fn. 0, or -1 with a message.
 */
static int each_row(struct trace *t, const char *sql, void (*fn)(struct trace *t, sqlite3_stmt *st))
{
	sqlite3_stmt *st = db_prepare(t->db, sql);
	int rc;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, t->session);
	sqlite3_bind_int64(st, 2, t->from);
	sqlite3_bind_int64(st, 3, t->to);
	if (t->o->match)
		sqlite3_bind_text(st, 4, t->o->match, -1, SQLITE_STATIC);
	if (t->o->exclude)
		sqlite3_bind_text(st, 5, t->o->exclude, -1, SQLITE_STATIC);
	if (t->o->has_rank)
		sqlite3_bind_int(st, 6, 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !t->out->failed)
		fn(t, st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		db_error(t->db);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

/* The name filters on a column aliased `name`, and the window on [start, end] columns. */
#define NAMED " AND (?4 IS NULL OR name REGEXP ?4) AND (?5 IS NULL OR NOT name REGEXP ?5)"
#define SPAN_IN " AND end_ns >= ?2 AND start_ns <= ?3"
/* --rank: only the processes in temp.trace_pids (?6 is 1 then). */
#define MINE(pid) " AND (?6 IS NULL OR " pid " IN temp.trace_pids)"
#define STRING(col) "(SELECT value FROM strings WHERE session_id = ?1 AND id = " col ")"

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

/* Kineto's words for memory kinds, as in its copy names "Memcpy HtoD (Pageable -> Device)". */
#define MEMORY_KINDS "(SELECT column2 FROM (VALUES (1, 'Pageable'), (2, 'Pinned'), (3, 'Device'), (4, 'Array'), " \
	"(5, 'Managed'), (6, 'Device Static'), (7, 'Managed Static')) WHERE column1 = "
#define MEMORY_KIND(col) "coalesce(" MEMORY_KINDS col "), 'Unknown')"

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

/* The GPU work of table tbl as a select list fragment: name expression and extra columns, per table. */
#define GPU_COLS "pid, start_ns, end_ns, device_id, coalesce(context_id, 0), coalesce(stream_id, 0), " \
	"coalesce(correlation_id, 0), "

static int write_events(struct trace *t, int smem_col)
{
	static const char memcpy_name[] =
		"'Memcpy ' || coalesce((SELECT name FROM copy_kinds WHERE id = kind), 'unknown') || ' (' || "
		MEMORY_KIND("src_kind") " || ' -> ' || " MEMORY_KIND("dst_kind") " || ')'";
	char *sql;
	int rc;
	sql = sqlite3_mprintf("SELECT " GPU_COLS STRING("name_id") " AS name, grid_x, grid_y, grid_z, block_x, "
			      "block_y, block_z, registers, %s FROM kernels WHERE session_id = ?1" MINE("pid") SPAN_IN NAMED,
			      smem_col ? "shared_mem" : "static_smem + dynamic_smem");
	rc = each_row(t, sql, kernel);
	sqlite3_free(sql);
	if (rc)
		return -1;
	sql = sqlite3_mprintf("SELECT " GPU_COLS "%s AS name, bytes, src_device, dst_device FROM memcpys "
			      "WHERE session_id = ?1" MINE("pid") SPAN_IN NAMED, memcpy_name);
	rc = each_row(t, sql, memcpy_ev);
	sqlite3_free(sql);
	if (rc ||
	    each_row(t, "SELECT " GPU_COLS "'Memset (' || " MEMORY_KIND("mem_kind") " || ')' AS name, bytes FROM memsets "
		     "WHERE session_id = ?1" MINE("pid") SPAN_IN NAMED, memset_ev) ||
	    each_row(t, "SELECT pid, start_ns, end_ns, device_id, coalesce(context_id, 0), "
		     "CASE WHEN stream_id IS NOT NULL AND stream_id NOT IN (-1, 4294967295) THEN stream_id END, "
		     "coalesce(correlation_id, 0), CASE kind WHEN 1 THEN 'Event Sync' WHEN 2 THEN 'Stream Wait Event' "
		     "WHEN 3 THEN 'Stream Sync' WHEN 4 THEN 'Context Sync' ELSE 'Unknown Sync' END AS name, "
		     "coalesce(event_id, 0), coalesce(thread_id, 0) FROM syncs WHERE session_id = ?1" MINE("pid") SPAN_IN NAMED,
		     sync_ev) ||
	    each_row(t, "SELECT pid, start_ns, end_ns, coalesce(thread_id, 0), coalesce(correlation_id, 0), "
		     "coalesce(" STRING("name_id") ", '') AS name, cbid, domain FROM api_calls WHERE session_id = ?1"
		     MINE("pid") SPAN_IN NAMED, api_ev) ||
	    each_row(t, "WITH sd AS MATERIALIZED (SELECT pid, stream_id, min(device_id) AS device FROM kernels "
		     "WHERE session_id = ?1 AND EXISTS (SELECT 1 FROM ranges WHERE session_id = ?1 AND kind = 3) "
		     "GROUP BY pid, stream_id) "
		     "SELECT r.pid, start_ns, end_ns, coalesce(thread_id, 0), " STRING("name_id") " AS name, "
		     STRING("domain_id") ", kind, CASE WHEN kind = 3 THEN sd.device END "
		     "FROM ranges r LEFT JOIN sd ON sd.pid = r.pid AND sd.stream_id = r.thread_id AND r.kind = 3 "
		     "WHERE session_id = ?1" MINE("r.pid") " AND coalesce(end_ns, start_ns) >= ?2 AND start_ns <= ?3" NAMED,
		     range_ev) ||
	    each_row(t, "SELECT pid, ts_ns, coalesce(thread_id, 0), " STRING("name_id") " AS name, " STRING("domain_id")
		     " FROM markers WHERE session_id = ?1" MINE("pid") " AND ts_ns BETWEEN ?2 AND ?3" NAMED, marker_ev) ||
	    each_row(t, "SELECT pid, ts_ns, coalesce(thread_id, 0), coalesce(device_id, 0), op, bytes, address, "
		     "total_allocated, " MEMORY_KIND("mem_kind") " FROM memory_events WHERE session_id = ?1" MINE("pid")
		     " AND ts_ns BETWEEN ?2 AND ?3", memory_ev) ||
	    each_row(t, "SELECT pid, ts_ns, coalesce(thread_id, 0), device_id, bytes, total_allocated, total_reserved, "
		     STRING("call_id") ", result FROM alloc_failures WHERE session_id = ?1" MINE("pid")
		     " AND ts_ns BETWEEN ?2 AND ?3", oom_ev) ||
	    each_row(t, "SELECT pid, ts_ns, device_id, gpu_util, mem_util, mem_used, mem_total, temp_c, power_mw, "
		     "sm_clock_mhz, energy_mj FROM device_metrics WHERE session_id = ?1" MINE("pid")
		     " AND ts_ns BETWEEN ?2 AND ?3",
		     device_metric_ev) ||
	    each_row(t, "SELECT pid, ts_ns, cpu_pct, rss_bytes, sys_mem_used, sys_mem_total, disk_read_bytes, "
		     "disk_write_bytes, net_rx_bytes, net_tx_bytes FROM host_metrics "
		     "WHERE session_id = ?1" MINE("pid") " AND ts_ns BETWEEN ?2 AND ?3", host_metric_ev) ||
	    each_row(t, "SELECT pid, start_ns, end_ns, coalesce(thread_id, 0), " STRING("name_id") " AS name, flops, "
		     "external_id, " STRING("dtype_id") " FROM flop_ops WHERE session_id = ?1" MINE("pid") SPAN_IN NAMED,
		     op_ev))
		return -1;
	return 0;
}

/*
 * The flows: a launch call and the GPU work of its correlation id in the same process, when both are
 * written (the window and the name filters hold for both ends).
 */
static int write_flows(struct trace *t)
{
	static const char *const gpu[][2] = {
		{ "kernels", STRING("g.name_id") },
		{ "memcpys", "'Memcpy ' || coalesce((SELECT name FROM copy_kinds WHERE id = g.kind), 'unknown') || ' (' || "
			     MEMORY_KIND("g.src_kind") " || ' -> ' || " MEMORY_KIND("g.dst_kind") " || ')'" },
		{ "memsets", "'Memset (' || " MEMORY_KIND("g.mem_kind") " || ')'" },
	};
	size_t i;
	for (i = 0; i < sizeof(gpu) / sizeof(gpu[0]); i++) {
		char *sql = sqlite3_mprintf(
			"SELECT a.pid, coalesce(a.thread_id, 0), a.start_ns, g.start_ns, g.device_id, coalesce(g.stream_id, 0) "
			"FROM api_calls a JOIN %s g ON g.session_id = a.session_id AND g.pid = a.pid "
			"AND g.correlation_id = a.correlation_id "
			"WHERE a.session_id = ?1" MINE("a.pid") " AND a.correlation_id <> 0 "
			"AND a.end_ns >= ?2 AND a.start_ns <= ?3 AND g.end_ns >= ?2 AND g.start_ns <= ?3 "
			"AND (?4 IS NULL OR (" STRING("a.name_id") " REGEXP ?4 AND %s REGEXP ?4)) "
			"AND (?5 IS NULL OR NOT (coalesce(" STRING("a.name_id") ", '') REGEXP ?5 OR %s REGEXP ?5))",
			gpu[i][0], gpu[i][1], gpu[i][1]);
		int rc = each_row(t, sql, flow_ev);
		sqlite3_free(sql);
		if (rc)
			return -1;
	}
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

/*
 * --rank R: its processes into temp.trace_pids, and their node, the only one, numbered 0 (GPU pids are
 * then the devices, as in the rank's own Kineto trace). 0, or -1 with a message.
 */
static int trace_pids(struct trace *t)
{
	sqlite3_stmt *st;
	size_t i;
	if (!t->nprocs)
		return error("the session has no rank %" PRId64, t->o->rank);
	if (!(st = db_prepare(t->db, "INSERT OR IGNORE INTO temp.trace_pids VALUES (?)")))
		return -1;
	for (i = 0; i < t->nprocs; i++) {
		sqlite3_bind_int64(st, 1, t->procs[i].pid);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_error(t->db);
		}
		sqlite3_reset(st);
		t->procs[i].node = 0;
	}
	sqlite3_finalize(st);
	t->nodes = 1;
	return 0;
}

/* The processes, sorted by pid, with their node and trace pid (of rank R only with --rank R). */
static int load_procs(struct trace *t)
{
	sqlite3_stmt *st = db_prepare(t->db,
		"SELECT n.pid, n.node, nullif(p.hostname, ''), p.rank, p.program FROM temp.gpu_nodes n "
		"JOIN main.processes p ON p.session_id = n.session_id AND p.pid = n.pid WHERE n.session_id = ? "
		"ORDER BY n.pid");
	size_t alloc = 0, i;
	int rc;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, t->session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct proc *p;
		if (t->o->has_rank && (sqlite3_column_type(st, 3) == SQLITE_NULL || sqlite3_column_int64(st, 3) != t->o->rank))
			continue;
		grow_array((void **)&t->procs, &alloc, t->nprocs + 1, sizeof(*t->procs));
		p = &t->procs[t->nprocs++];
		p->pid = sqlite3_column_int64(st, 0);
		p->node = sqlite3_column_int64(st, 1);
		p->host = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL : xstrdup((const char *)sqlite3_column_text(st, 2));
		p->rank = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
		p->program = sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL
			     : xstrdup((const char *)sqlite3_column_text(st, 4));
		if (p->node + 1 > t->nodes)
			t->nodes = p->node + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(t->db);
	if (t->o->has_rank && trace_pids(t))
		return -1;
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

/*
 * The session's start and end, and the first event's time in the window (-1 when the window holds none):
 * the base is that event's whole second.
 */
static int window(struct trace *t, int64_t *first)
{
	sqlite3_stmt *st = db_prepare(t->db, "SELECT start_ns, end_ns FROM sessions WHERE id = ?");
	int64_t start = 0, end = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, t->session);
	if (sqlite3_step(st) == SQLITE_ROW) {
		start = sqlite3_column_int64(st, 0);
		end = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	t->from = INT64_MIN;
	t->to = INT64_MAX;
	if (t->o->has_from)
		t->from = t->o->from_end ? end - t->o->from : start + t->o->from;
	if (t->o->has_to)
		t->to = t->o->to_end ? end - t->o->to : start + t->o->to;
	if (t->from > t->to)
		return error("the window is empty: --from is after --to");
	st = db_prepare(t->db,
		"SELECT min(m) FROM (SELECT min(start_ns) AS m FROM kernels WHERE session_id = ?1" MINE("pid") SPAN_IN
		" UNION ALL SELECT min(start_ns) FROM memcpys WHERE session_id = ?1" MINE("pid") SPAN_IN
		" UNION ALL SELECT min(start_ns) FROM memsets WHERE session_id = ?1" MINE("pid") SPAN_IN
		" UNION ALL SELECT min(start_ns) FROM syncs WHERE session_id = ?1" MINE("pid") SPAN_IN
		" UNION ALL SELECT min(start_ns) FROM api_calls WHERE session_id = ?1" MINE("pid") SPAN_IN
		" UNION ALL SELECT min(start_ns) FROM ranges WHERE session_id = ?1" MINE("pid") " AND coalesce(end_ns, start_ns) >= ?2"
		" AND start_ns <= ?3"
		" UNION ALL SELECT min(ts_ns) FROM markers WHERE session_id = ?1" MINE("pid") " AND ts_ns BETWEEN ?2 AND ?3"
		" UNION ALL SELECT min(ts_ns) FROM memory_events WHERE session_id = ?1" MINE("pid") " AND ts_ns BETWEEN ?2 AND ?3"
		" UNION ALL SELECT min(ts_ns) FROM device_metrics WHERE session_id = ?1" MINE("pid") " AND ts_ns BETWEEN ?2 AND ?3"
		" UNION ALL SELECT min(ts_ns) FROM host_metrics WHERE session_id = ?1" MINE("pid") " AND ts_ns BETWEEN ?2 AND ?3)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, t->session);
	sqlite3_bind_int64(st, 2, t->from);
	sqlite3_bind_int64(st, 3, t->to);
	if (t->o->has_rank)
		sqlite3_bind_int(st, 6, 1);
	*first = -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*first = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* "deviceProperties": the session's devices as Kineto names their fields (one row per device id). */
static int write_devices(struct trace *t)
{
	struct buf *b = &t->out->b;
	sqlite3_stmt *st = db_prepare(t->db,
		"SELECT id, name, cc_major, cc_minor, sms, memory_bytes, max_threads_per_sm, max_regs_per_sm, "
		"max_smem_per_sm FROM devices WHERE session_id = ?1 AND (?2 IS NULL OR pid IN temp.trace_pids) "
		"GROUP BY id HAVING pid = min(pid) ORDER BY id");
	static const char *const keys[] = { "id", "name", "computeMajor", "computeMinor", "numSms", "totalGlobalMem",
					    "maxThreadsPerMultiprocessor", "regsPerMultiprocessor",
					    "sharedMemPerMultiprocessor" };
	int n = 0, i;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, t->session);
	if (t->o->has_rank)
		sqlite3_bind_int(st, 2, 1);
	buf_addstr(b, "  \"deviceProperties\": [");
	while (sqlite3_step(st) == SQLITE_ROW) {
		buf_addstr(b, n++ ? ",\n    {" : "\n    {");
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
	}
	sqlite3_finalize(st);
	buf_addstr(b, n ? "\n  ],\n" : "],\n");
	return 0;
}

/* The session's ranks (at least 1). */
static int64_t world_size(struct trace *t)
{
	sqlite3_stmt *st = db_prepare(t->db, "SELECT count(DISTINCT rank) FROM processes WHERE session_id = ?");
	int64_t n = 1;
	if (!st)
		return n;
	sqlite3_bind_int64(st, 1, t->session);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 1)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* The document's members before traceEvents: what Kineto writes there, and gpuprof's own. */
static int write_header(struct trace *t)
{
	struct buf *b = &t->out->b;
	sqlite3_stmt *st = db_prepare(t->db, "SELECT uuid, program, hostname, source FROM sessions WHERE id = ?");
	int64_t ranks = 0, rank = -1;
	size_t i;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, t->session);
	buf_addstr(b, "{\n  \"schemaVersion\": 1,\n");
	if (sqlite3_step(st) == SQLITE_ROW) {
		static const char *const keys[] = { "trace_id", "traceName", "host_name", "gpuprof_source" };
		for (i = 0; i < 4; i++) {
			if (sqlite3_column_type(st, (int)i) == SQLITE_NULL)
				continue;
			buf_addf(b, "  \"%s\": ", keys[i]);
			add_str(b, (const char *)sqlite3_column_text(st, (int)i));
			buf_addstr(b, ",\n");
		}
	}
	sqlite3_finalize(st);
	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].rank >= 0) {
			ranks++;
			rank = t->procs[i].rank;
		}
	/* A trace is one rank's in Kineto: distributedInfo says which, when the session has just one. */
	if (ranks == 1)
		buf_addf(b, "  \"distributedInfo\": {\"rank\": %" PRId64 ", \"world_size\": %" PRId64 "},\n", rank,
			 world_size(t));
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
	t.session = session;
	t.o = o;
	t.out = &out;
	t.first = 1;
	t.seen = (struct intmap)INTMAP_INIT;
	/* The statements name temp.trace_pids whether --rank fills it or not. */
	if (db_exec(db, embed_get("analyze/views.sql")) ||
	    db_exec(db, "CREATE TEMP TABLE IF NOT EXISTS trace_pids (pid INTEGER PRIMARY KEY)") || load_procs(&t) ||
	    window(&t, &first))
		goto done;
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
	if (write_header(&t) || write_events(&t, db_schema_version(db) >= DB_V_SHARED_MEM) || write_flows(&t))
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
