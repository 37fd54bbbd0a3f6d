/*
 * kineto: PyTorch profiler (Kineto) traces, Chrome trace JSON (.json or .json.gz), AMD ROCm ones too.
 *
 * The document is streamed: a small scanner walks the top-level object and hands each element of
 * "traceEvents" (and each other top-level value) to lib/json one at a time, so memory stays bounded by
 * the largest single event whatever the trace size. Times are microseconds in the trace, converted to
 * nanoseconds from their decimal text (json_decimal_scaled), rounding to the nearest ns, never
 * truncating; end = start + duration, so per-name totals are sums of the rounded durations.
 *
 * Which categories become which records is one table (cat_rules), with every spelling PyTorch has
 * written. Every other event is counted by (category, phase, pid); at the end the counts go to
 * ingest_skipped, those that look like GPU work draw a warning, and exit 3 when no GPU record was read.
 * An event or member that is no valid JSON (nested too deeply, say) is rejected into ingest_errors, exit 3.
 *
 * A trace is one process, its rank (distributedInfo; 0 when none), known by the file's hash (sink_process's
 * content): the same file again is skipped, another of the session's rank kept beside it. A rank named
 * after the events makes the trace be read twice, the second time stored under it.
 */
#include "reader.h"
#include "json.h"
#include "jstream.h"
#include "util.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXCERPT_LEN 121		/* ingest_errors.excerpt: the first 120 bytes, as for the wire format */

/* Column indices of the fields every GPU activity (kernel, memcpy, memset) has. */
struct gpu_idx {
	int start, end, device, context, stream, corr;
};

/* Column indices of the fields this reader fills, looked up once. */
struct idx {
	struct gpu_idx k, c, s;	/* kernels, memcpys, memsets */
	int k_name, k_grid, k_block, k_regs, k_ssmem, k_dsmem, k_smem;
	int c_kind, c_src, c_dst, c_bytes, c_srcdev, c_dstdev;
	int s_bytes, s_kind;
	int y_start, y_end, y_device, y_context, y_stream, y_corr, y_kind, y_event;
	int a_start, a_end, a_thread, a_corr, a_name, a_cbid, a_domain, a_ext;
	int r_start, r_end, r_thread, r_name, r_kind, r_depth, r_domain;
	int m_ts, m_device, m_stream, m_op, m_kind, m_addr, m_bytes, m_total, m_thread;
	int f_ts, f_device, f_thread, f_bytes, f_call, f_result, f_kind, f_total, f_reserved;	/* failed allocations */
	int n_ts, n_thread, n_name, n_domain;	/* markers */
	int g_ts, g_device, g_first;		/* device metrics: g_first the first value after device */
	int h_ts, h_cpu, h_first;		/* host metrics: h_first the first integer one (rss_bytes) */
	int d_id, d_name, d_major, d_minor, d_sms, d_memory, d_threads, d_regs, d_smem;
	int o_start, o_end, o_thread, o_name, o_flops, o_dtype, o_ext;	/* ops with a FLOP count */
	int t_start, t_end, t_thread, t_name, t_ext, t_seq, t_fwd, t_rf, t_dims, t_types, t_strides, t_concrete,
	    t_source;		/* ops */
	int l_flow, l_fwd_thread, l_fwd, l_bwd_thread, l_bwd;	/* op links */
};

/* One end of a forward-backward flow ("fwdbwd"), kept until both ends are known. */
struct flow_end {
	size_t pid;		/* index into state.flow_pids */
	int64_t id, tid, ts;	/* ts absolute ns, the base applied */
	char ph;		/* 's' (on the forward op) or 'f' (on the backward op) */
	char cat;		/* index into flow_cats */
};

struct state {
	struct sink *sink;
	const struct reader_opts *opts;
	const char *path;
	struct json_doc doc;
	struct idx ix;
	struct value vals[REC_MAX_FIELDS];
	int begun;		/* sink_process_begin was called */
	int skipped;		/* the process is already in the database */
	int64_t begun_rank;	/* the rank known when it began, -1 none (distributedInfo came after events) */
	int ours;		/* a trace gpuprof wrote (member "gpuprof_source"): its trace_id is the session */
	int64_t base;		/* baseTimeNanoseconds, added to every time */
	int64_t late_base;	/* one that came after the events: applied by sink_shift_times at the end */
	int base_seen, events_seen;
	int64_t rank;
	char *trace_id, *hostname, *trace_name, *schema;
	struct buf devices;	/* deviceProperties, kept until the process begins */
	int64_t n_read[R_COUNT];	/* records added, per type */
	int64_t n_other;	/* events no rule read */
	int64_t n_rejected;	/* members and events that are no valid JSON (rows in ingest_errors) */
	char *first_reject;	/* the first one's reason */
	struct pending *pending;	/* those met before the process began, written when it does */
	size_t npending, pending_alloc;
	int64_t at;		/* where the value being read begins (decompressed bytes), for messages */
	struct skip *skips;	/* ... counted by (category, phase, pid) */
	size_t nskips, skips_alloc, last_skip;
	char **gpu_pids;	/* pids that are GPUs (process labels "GPU n", or a GPU record's pid) */
	size_t ngpu_pids, gpu_pids_alloc;
	/*
	 * Kernels' "Process Group Name" (collectives), which gpuprof does not keep: said when a trace names
	 * more than one group, since collectives then matches kernels of several groups by name and order.
	 */
	char *pg_first;		/* the first group named */
	int64_t pg_kernels;	/* kernels naming a group */
	int pg_many;		/* another group than the first was named */
	struct buf dims, types, strides, concrete;	/* an op's JSON args, as text (valid until sink_add) */
	struct flow_end *flows;	/* forward-backward flow ends, paired after the last event */
	size_t nflows, flows_alloc;
	char **flow_pids;	/* the pids (their text) flows were on */
	size_t nflow_pids, flow_pids_alloc;
};

/* A rejected member or event, before there is a process to record it in. */
struct pending {
	char *reason, *excerpt;
};

/* Events of one category and phase on one pid that no rule read. */
struct skip {
	char *cat, *ph, *pid;	/* "" when absent */
	int64_t n;
};

/* Which field of which record type each index names. */
static const struct rec_index idx_fields[] = {
	{ offsetof(struct idx, k.start), R_KERNEL, "start" },
	{ offsetof(struct idx, k.end), R_KERNEL, "end" },
	{ offsetof(struct idx, k.device), R_KERNEL, "device" },
	{ offsetof(struct idx, k.context), R_KERNEL, "context" },
	{ offsetof(struct idx, k.stream), R_KERNEL, "stream" },
	{ offsetof(struct idx, k.corr), R_KERNEL, "correlation" },
	{ offsetof(struct idx, k_name), R_KERNEL, "name" },
	{ offsetof(struct idx, k_grid), R_KERNEL, "grid_x" },
	{ offsetof(struct idx, k_block), R_KERNEL, "block_x" },
	{ offsetof(struct idx, k_regs), R_KERNEL, "registers" },
	{ offsetof(struct idx, k_ssmem), R_KERNEL, "static_smem" },
	{ offsetof(struct idx, k_dsmem), R_KERNEL, "dynamic_smem" },
	{ offsetof(struct idx, k_smem), R_KERNEL, "shared_mem" },
	{ offsetof(struct idx, c.start), R_MEMCPY, "start" },
	{ offsetof(struct idx, c.end), R_MEMCPY, "end" },
	{ offsetof(struct idx, c.device), R_MEMCPY, "device" },
	{ offsetof(struct idx, c.context), R_MEMCPY, "context" },
	{ offsetof(struct idx, c.stream), R_MEMCPY, "stream" },
	{ offsetof(struct idx, c.corr), R_MEMCPY, "correlation" },
	{ offsetof(struct idx, c_kind), R_MEMCPY, "kind" },
	{ offsetof(struct idx, c_src), R_MEMCPY, "src_kind" },
	{ offsetof(struct idx, c_dst), R_MEMCPY, "dst_kind" },
	{ offsetof(struct idx, c_bytes), R_MEMCPY, "bytes" },
	{ offsetof(struct idx, c_srcdev), R_MEMCPY, "src_device" },
	{ offsetof(struct idx, c_dstdev), R_MEMCPY, "dst_device" },
	{ offsetof(struct idx, s.start), R_MEMSET, "start" },
	{ offsetof(struct idx, s.end), R_MEMSET, "end" },
	{ offsetof(struct idx, s.device), R_MEMSET, "device" },
	{ offsetof(struct idx, s.context), R_MEMSET, "context" },
	{ offsetof(struct idx, s.stream), R_MEMSET, "stream" },
	{ offsetof(struct idx, s.corr), R_MEMSET, "correlation" },
	{ offsetof(struct idx, s_bytes), R_MEMSET, "bytes" },
	{ offsetof(struct idx, s_kind), R_MEMSET, "mem_kind" },
	{ offsetof(struct idx, y_start), R_SYNC, "start" },
	{ offsetof(struct idx, y_end), R_SYNC, "end" },
	{ offsetof(struct idx, y_device), R_SYNC, "device" },
	{ offsetof(struct idx, y_context), R_SYNC, "context" },
	{ offsetof(struct idx, y_stream), R_SYNC, "stream" },
	{ offsetof(struct idx, y_corr), R_SYNC, "correlation" },
	{ offsetof(struct idx, y_kind), R_SYNC, "kind" },
	{ offsetof(struct idx, y_event), R_SYNC, "event" },
	{ offsetof(struct idx, a_start), R_API, "start" },
	{ offsetof(struct idx, a_end), R_API, "end" },
	{ offsetof(struct idx, a_thread), R_API, "thread" },
	{ offsetof(struct idx, a_corr), R_API, "correlation" },
	{ offsetof(struct idx, a_name), R_API, "name" },
	{ offsetof(struct idx, a_cbid), R_API, "cbid" },
	{ offsetof(struct idx, a_domain), R_API, "domain" },
	{ offsetof(struct idx, a_ext), R_API, "external" },
	{ offsetof(struct idx, r_start), R_RANGE, "start" },
	{ offsetof(struct idx, r_end), R_RANGE, "end" },
	{ offsetof(struct idx, r_thread), R_RANGE, "thread" },
	{ offsetof(struct idx, r_name), R_RANGE, "name" },
	{ offsetof(struct idx, r_kind), R_RANGE, "kind" },
	{ offsetof(struct idx, r_depth), R_RANGE, "depth" },
	{ offsetof(struct idx, r_domain), R_RANGE, "domain" },
	{ offsetof(struct idx, n_ts), R_MARKER, "ts" },
	{ offsetof(struct idx, n_thread), R_MARKER, "thread" },
	{ offsetof(struct idx, n_name), R_MARKER, "name" },
	{ offsetof(struct idx, n_domain), R_MARKER, "domain" },
	{ offsetof(struct idx, g_ts), R_DEVICE_METRIC, "ts" },
	{ offsetof(struct idx, g_device), R_DEVICE_METRIC, "device" },
	{ offsetof(struct idx, g_first), R_DEVICE_METRIC, "gpu_util" },
	{ offsetof(struct idx, h_ts), R_HOST_METRIC, "ts" },
	{ offsetof(struct idx, h_cpu), R_HOST_METRIC, "cpu_pct" },
	{ offsetof(struct idx, h_first), R_HOST_METRIC, "rss_bytes" },
	{ offsetof(struct idx, m_ts), R_MEMORY, "ts" },
	{ offsetof(struct idx, m_device), R_MEMORY, "device" },
	{ offsetof(struct idx, m_stream), R_MEMORY, "stream" },
	{ offsetof(struct idx, m_op), R_MEMORY, "op" },
	{ offsetof(struct idx, m_kind), R_MEMORY, "mem_kind" },
	{ offsetof(struct idx, m_addr), R_MEMORY, "address" },
	{ offsetof(struct idx, m_bytes), R_MEMORY, "bytes" },
	{ offsetof(struct idx, m_total), R_MEMORY, "total_allocated" },
	{ offsetof(struct idx, m_thread), R_MEMORY, "thread" },
	{ offsetof(struct idx, f_ts), R_ALLOC_FAIL, "ts" },
	{ offsetof(struct idx, f_device), R_ALLOC_FAIL, "device" },
	{ offsetof(struct idx, f_thread), R_ALLOC_FAIL, "thread" },
	{ offsetof(struct idx, f_bytes), R_ALLOC_FAIL, "bytes" },
	{ offsetof(struct idx, f_call), R_ALLOC_FAIL, "call" },
	{ offsetof(struct idx, f_result), R_ALLOC_FAIL, "result" },
	{ offsetof(struct idx, f_kind), R_ALLOC_FAIL, "mem_kind" },
	{ offsetof(struct idx, f_total), R_ALLOC_FAIL, "total_allocated" },
	{ offsetof(struct idx, f_reserved), R_ALLOC_FAIL, "total_reserved" },
	{ offsetof(struct idx, d_id), R_DEVICE, "id" },
	{ offsetof(struct idx, d_name), R_DEVICE, "name" },
	{ offsetof(struct idx, d_major), R_DEVICE, "cc_major" },
	{ offsetof(struct idx, d_minor), R_DEVICE, "cc_minor" },
	{ offsetof(struct idx, d_sms), R_DEVICE, "sms" },
	{ offsetof(struct idx, d_memory), R_DEVICE, "memory_bytes" },
	{ offsetof(struct idx, d_threads), R_DEVICE, "max_threads_per_sm" },
	{ offsetof(struct idx, d_regs), R_DEVICE, "max_regs_per_sm" },
	{ offsetof(struct idx, d_smem), R_DEVICE, "max_smem_per_sm" },
	{ offsetof(struct idx, o_start), R_OP, "start" },
	{ offsetof(struct idx, o_end), R_OP, "end" },
	{ offsetof(struct idx, o_thread), R_OP, "thread" },
	{ offsetof(struct idx, o_name), R_OP, "name" },
	{ offsetof(struct idx, o_flops), R_OP, "flops" },
	{ offsetof(struct idx, o_dtype), R_OP, "dtype" },
	{ offsetof(struct idx, o_ext), R_OP, "external" },
	{ offsetof(struct idx, t_start), R_TORCH_OP, "start" },
	{ offsetof(struct idx, t_end), R_TORCH_OP, "end" },
	{ offsetof(struct idx, t_thread), R_TORCH_OP, "thread" },
	{ offsetof(struct idx, t_name), R_TORCH_OP, "name" },
	{ offsetof(struct idx, t_ext), R_TORCH_OP, "external" },
	{ offsetof(struct idx, t_seq), R_TORCH_OP, "seq" },
	{ offsetof(struct idx, t_fwd), R_TORCH_OP, "fwd_tid" },
	{ offsetof(struct idx, t_rf), R_TORCH_OP, "record_function" },
	{ offsetof(struct idx, t_dims), R_TORCH_OP, "input_dims" },
	{ offsetof(struct idx, t_types), R_TORCH_OP, "input_types" },
	{ offsetof(struct idx, t_strides), R_TORCH_OP, "input_strides" },
	{ offsetof(struct idx, t_concrete), R_TORCH_OP, "concrete_inputs" },
	{ offsetof(struct idx, t_source), R_TORCH_OP, "source" },
	{ offsetof(struct idx, l_flow), R_OP_LINK, "flow" },
	{ offsetof(struct idx, l_fwd_thread), R_OP_LINK, "fwd_thread" },
	{ offsetof(struct idx, l_fwd), R_OP_LINK, "fwd" },
	{ offsetof(struct idx, l_bwd_thread), R_OP_LINK, "bwd_thread" },
	{ offsetof(struct idx, l_bwd), R_OP_LINK, "bwd" },
};

/* Resolve every index; 0, or -1 with a message when records.c lacks a field. */
static int init_idx(struct idx *x)
{
	if (rec_indices(idx_fields, sizeof(idx_fields) / sizeof(idx_fields[0]), x))
		return error("internal: a Kineto field is missing from records.c");
	return 0;
}

/* Start a record of type t: every field 0 (NULL for nullable kinds). */
static struct value *blank(struct state *st, enum rec_type t)
{
	int i;
	for (i = 0; i < rec_specs[t].nfields; i++) {
		enum field_kind k = rec_specs[t].fields[i].kind;
		st->vals[i].null = k == F_TIMEN || k == F_INTN || k == F_OPTN || k == F_NUM || k == F_STR || k == F_STRTEXT;
		st->vals[i].i = 0;
		st->vals[i].d = 0;
		st->vals[i].s = "";
	}
	return st->vals;
}

static void put(struct value *v, int i, int64_t x)
{
	v[i].null = 0;
	v[i].i = x;
}

/* An integer member of obj (numbers, and numeric strings as ROCm writes them) into *out; -1 when absent. */
static int arg_num(const struct json_doc *d, const struct jnode *obj, const char *key, int64_t *out)
{
	const struct jnode *n = obj ? json_get(d, obj, key) : NULL;
	if (!n)
		return -1;
	if (n->type == J_INT)
		*out = n->u.i;
	else if (n->type == J_REAL && n->num > -9.2e18 && n->num < 9.2e18)	/* (else no int64: UB to convert) */
		*out = (int64_t)n->num;
	else if (n->type != J_STRING || parse_i64(n->u.s, n->len, out))
		return -1;
	return 0;
}

/* arg_num's integer, def when absent. */
static int64_t arg_i64(const struct json_doc *d, const struct jnode *obj, const char *key, int64_t def)
{
	int64_t v;
	return arg_num(d, obj, key, &v) ? def : v;
}

/* Member i (0..2) of a [x, y, z] array into v[f] (NULL when absent). */
static void dim(const struct json_doc *d, const struct jnode *obj, const char *key, int i, struct value *v, int f)
{
	const struct jnode *a = obj ? json_get(d, obj, key) : NULL, *c;
	v[f].null = 1;
	if (!a || a->type != J_ARRAY)
		return;
	for (c = json_first(d, a); c && i > 0; c = json_next(d, c))
		i--;
	if (c && c->type == J_INT) {
		v[f].null = 0;
		v[f].i = c->u.i;
	}
}

/* An integer member of obj into v[f], NULL when absent or not a number. */
static void put_arg(const struct json_doc *d, const struct jnode *obj, const char *key, struct value *v, int f)
{
	v[f].null = arg_num(d, obj, key, &v[f].i) != 0;
}

static int64_t str_id(struct state *st, const char *s)
{
	return sink_string(st->sink, s, strlen(s));
}

/* Copy kind from "Memcpy HtoD (Pageable -> Device)" (CUPTI numbering as in copy_kinds). */
static int copy_kind(const char *name)
{
	static const struct { const char *tag; int kind; } kinds[] = {
		{ "HtoD", 1 }, { "DtoH", 2 }, { "HtoA", 3 }, { "AtoH", 4 }, { "AtoA", 5 }, { "AtoD", 6 },
		{ "DtoA", 7 }, { "DtoD", 8 }, { "HtoH", 9 }, { "PtoP", 10 },
	};
	size_t i;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strstr(name, kinds[i].tag))
			return kinds[i].kind;
	return 0;
}

/* Memory kind from a word such as "Pageable" or "Device" (CUPTI numbering as in memory_kinds). */
static int mem_kind(const char *word, size_t n)
{
	static const struct { const char *name; int kind; } kinds[] = {
		{ "Pageable", 1 }, { "Pinned", 2 }, { "Device", 3 }, { "Array", 4 }, { "Managed", 5 },
		{ "Device Static", 6 }, { "Managed Static", 7 },	/* gpuprof's traces (report/trace.c) */
	};
	size_t i;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == n && !strncmp(kinds[i].name, word, n))
			return kinds[i].kind;
	return 0;
}

/* Source and destination memory kinds from "(Pageable -> Device)". */
static void copy_sides(const char *name, int *src, int *dst)
{
	const char *open = strchr(name, '('), *arrow = strstr(name, " -> "), *close = strrchr(name, ')');
	*src = *dst = 0;
	if (!open || !arrow || !close || arrow < open || close < arrow)
		return;
	*src = mem_kind(open + 1, (size_t)(arrow - open - 1));
	*dst = mem_kind(arrow + 4, (size_t)(close - arrow - 4));
}

static int sync_kind(const char *s)
{
	if (!s)
		return 0;
	if (strstr(s, "Event Sync"))
		return 1;
	if (strstr(s, "Wait Event"))
		return 2;
	if (strstr(s, "Stream Sync"))
		return 3;
	if (strstr(s, "Context Sync") || strstr(s, "Device Sync"))
		return 4;
	return 0;
}

/* Add deviceProperties (kept as text) as device records. */
static int add_devices(struct state *st)
{
	const struct jnode *c;
	struct json_doc d;
	int rc = 0;
	if (!st->devices.len)
		return 0;
	json_doc_init(&d);
	if (json_parse(&d, st->devices.s, st->devices.len) || json_root(&d)->type != J_ARRAY) {
		json_doc_release(&d);
		return 0;
	}
	for (c = json_first(&d, json_root(&d)); c && !rc; c = json_next(&d, c)) {
		const struct idx *x = &st->ix;
		struct value *v = blank(st, R_DEVICE);
		const char *name = json_get_str(&d, c, "name");
		put(v, x->d_id, arg_i64(&d, c, "id", 0));
		v[x->d_name].s = name ? name : "";
		put(v, x->d_major, arg_i64(&d, c, "computeMajor", 0));
		put(v, x->d_minor, arg_i64(&d, c, "computeMinor", 0));
		put(v, x->d_sms, arg_i64(&d, c, "numSms", 0));
		put(v, x->d_memory, arg_i64(&d, c, "totalGlobalMem", 0));
		put(v, x->d_threads, arg_i64(&d, c, "maxThreadsPerMultiprocessor", 0));
		put(v, x->d_regs, arg_i64(&d, c, "regsPerMultiprocessor", 0));
		put(v, x->d_smem,
		    arg_i64(&d, c, "sharedMemPerMultiprocessor", arg_i64(&d, c, "maxSharedMemoryPerMultiProcessor", 0)));
		rc = sink_add(st->sink, R_DEVICE, v);
	}
	if (!rc && d.nuls)	/* \u0000 in a device's strings, replaced with U+FFFD by the parser */
		rc = sink_repaired(st->sink, SINK_REPAIR_NUL, d.nuls);
	json_doc_release(&d);
	buf_reset(&st->devices);
	return rc;
}

/* FNV-1a over the file's bytes: a session id for traces that carry none. */
static int hash_file(const char *path, uint64_t *out)
{
	FILE *f = fopen(path, "rb");
	unsigned char buf[65536];
	uint64_t h = FNV1A_INIT;
	size_t n;
	if (!f)
		return error("%s: cannot open: %s", path, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		h = fnv1a(h, buf, n);
	fclose(f);
	*out = h;
	return 0;
}

/* Write the rejects met before the process began. 0, or -1. */
static int flush_pending(struct state *st)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < st->npending; i++) {
		if (!rc && st->begun && !st->skipped)
			rc = sink_ingest_error(st->sink, st->path, 0, st->pending[i].reason, st->pending[i].excerpt);
		free(st->pending[i].reason);
		free(st->pending[i].excerpt);
	}
	st->npending = 0;
	return rc;
}

/*
 * A top-level member or a trace event (what, at st->at) that is no valid JSON, such as one nested deeper
 * than lib/json allows (after json_parse failed on it; excerpt its text's start, copied before): counted,
 * and recorded in ingest_errors (line 0, the byte in the reason), now or when the process begins. 0, or -1.
 */
static int reject(struct state *st, const char *what, const char *excerpt)
{
	char reason[300];
	const char *err = st->doc.err ? st->doc.err : "not valid JSON";
	if (!strcmp(err, "nested too deeply"))
		snprintf(reason, sizeof(reason), "byte %lld: %s nested deeper than %d arrays and objects",
			 (long long)st->at, what, JSON_MAX_DEPTH);
	else
		snprintf(reason, sizeof(reason), "byte %lld: %s is no valid JSON: %s", (long long)st->at, what, err);
	st->n_rejected++;
	if (!st->first_reject)
		st->first_reject = xstrdup(reason);
	if (st->begun)
		return st->skipped ? 0 : sink_ingest_error(st->sink, st->path, 0, reason, excerpt);
	grow_array((void **)&st->pending, &st->pending_alloc, st->npending + 1, sizeof(*st->pending));
	st->pending[st->npending].reason = xstrdup(reason);
	st->pending[st->npending].excerpt = xstrdup(excerpt);
	st->npending++;
	return 0;
}

/* The start of text (a value about to be parsed in place) into out, for reject. */
static void excerpt_of(const struct buf *text, char *out, size_t n)
{
	size_t len = text->len < n - 1 ? text->len : n - 1;
	memcpy(out, text->s, len);
	out[len] = '\0';
}

/* Begin the process at the first event (the metadata before traceEvents is known by then). */
static int begin(struct state *st)
{
	struct sink_process p;
	struct buf uuid;
	char content[32];
	uint64_t h;
	int rc;
	if (st->begun)
		return st->skipped ? 1 : 0;
	st->begun = 1;
	st->begun_rank = st->rank;
	/*
	 * The file's hash tells its process apart from another trace of the session's under the same rank
	 * (sink_process's content). The session: --session, else the trace's id (as it is in gpuprof's own
	 * traces, which write the session's id there), else the hash.
	 */
	if (hash_file(st->path, &h))
		return -1;
	snprintf(content, sizeof(content), "fnv1a64:%016llx", (unsigned long long)h);
	buf_init(&uuid);
	if (st->trace_id)
		buf_addf(&uuid, "%s%s", st->ours ? "" : "kineto:", st->trace_id);
	else
		buf_addf(&uuid, "kineto:%016llx", (unsigned long long)h);
	memset(&p, 0, sizeof(p));
	p.uuid = st->opts->session ? st->opts->session : uuid.s;
	p.content = content;
	p.session_copy = st->ours && st->trace_id && !st->opts->session;
	p.source = "kineto";
	p.path = st->path;
	p.file = st->path;
	p.program = st->trace_name;
	p.hostname = st->hostname;
	p.engine = "pytorch-profiler";
	p.collector = st->schema;
	p.pid = st->rank >= 0 ? st->rank : 0;
	p.rank = st->rank;
	rc = sink_process_begin(st->sink, &p);
	if (rc == 1) {
		if (p.session_copy)
			info("%s: session %s is in the database already, and this trace is gpuprof's export of it; "
			     "skipped", st->path, p.uuid);
		else
			info("%s: session %s: this trace (the same content) is already in the database; skipped",
			     st->path, p.uuid);
		st->skipped = 1;
	}
	buf_release(&uuid);
	if (rc)
		return rc;
	if (add_devices(st) || flush_pending(st))
		return -1;
	return 0;
}

/* Start and end of an "X" event in absolute ns; -1 when ts or dur is missing, bad or out of range. */
static int span(struct state *st, const struct jnode *ev, int64_t *start, int64_t *end)
{
	const struct jnode *ts = json_get(&st->doc, ev, "ts"), *dur = json_get(&st->doc, ev, "dur");
	int64_t s, d = 0;
	if (!ts || json_decimal_scaled(ts, 3, &s))
		return -1;
	if (dur && json_decimal_scaled(dur, 3, &d))
		return -1;
	if (__builtin_add_overflow(s, st->base, start) || __builtin_add_overflow(*start, d, end))
		return -1;
	return 0;
}

/* One complete ("X") event a rule reads. */
struct evt {
	const struct jnode *ev, *args;
	const char *cat, *name;
	int64_t start, end;
};

/*
 * A thread or stream number from "tid": an integer, a numeric string, or the "stream 7" / "stream 7
 * annotations" / "stream 7 user" strings of PyTorch 1.8-1.10's GPU rows; def otherwise.
 */
static int64_t tid_num(const struct json_doc *d, const struct jnode *ev, int64_t def)
{
	const struct jnode *n = json_get(d, ev, "tid");
	const char *s;
	int64_t v;
	size_t len;
	if (!n || n->type != J_STRING)
		return arg_i64(d, ev, "tid", def);
	s = n->u.s;
	if (!strncmp(s, "stream ", 7))
		s += 7;
	len = strspn(s, "0123456789");
	return len && !parse_i64(s, len, &v) ? v : def;
}

/*
 * The fields every GPU activity has: its span; the device from args "device", else "inDevice" (peer
 * copies), else the pid; the context from "context", else "inContext"; the stream from "stream", else the
 * tid; the correlation id.
 */
static void put_gpu(const struct json_doc *d, const struct evt *e, struct value *v, const struct gpu_idx *g)
{
	int64_t device, context, stream;
	if (arg_num(d, e->args, "device", &device) && arg_num(d, e->args, "inDevice", &device))
		device = arg_i64(d, e->ev, "pid", 0);
	if (arg_num(d, e->args, "context", &context))
		context = arg_i64(d, e->args, "inContext", 0);
	if (arg_num(d, e->args, "stream", &stream))
		stream = tid_num(d, e->ev, 0);
	put(v, g->start, e->start);
	put(v, g->end, e->end);
	put(v, g->device, device);
	put(v, g->context, context);
	put(v, g->stream, stream);
	put(v, g->corr, arg_i64(d, e->args, "correlation", 0));
}

static int read_kernel(struct state *st, const struct evt *e, int param)
{
	const struct json_doc *d = &st->doc;
	const struct idx *x = &st->ix;
	struct value *v = blank(st, R_KERNEL);
	int i;
	(void)param;
	put_gpu(d, e, v, &x->k);
	put(v, x->k_name, str_id(st, e->name));
	for (i = 0; i < 3; i++) {
		dim(d, e->args, "grid", i, v, x->k_grid + i);
		dim(d, e->args, "block", i, v, x->k_block + i);
	}
	put_arg(d, e->args, "registers per thread", v, x->k_regs);
	/* Kineto writes staticSharedMemory + dynamicSharedMemory as one number: the parts stay unknown. */
	v[x->k_ssmem].null = v[x->k_dsmem].null = 1;
	put_arg(d, e->args, "shared memory", v, x->k_smem);
	{
		const char *pg = e->args ? json_get_str(d, e->args, "Process Group Name") : NULL;
		if (pg) {
			st->pg_kernels++;
			if (!st->pg_first)
				st->pg_first = xstrdup(pg);
			else if (strcmp(st->pg_first, pg))
				st->pg_many = 1;
		}
	}
	return sink_add(st->sink, R_KERNEL, v);
}

static int read_memcpy(struct state *st, const struct evt *e, int param)
{
	const struct json_doc *d = &st->doc;
	const struct idx *x = &st->ix;
	struct value *v = blank(st, R_MEMCPY);
	const char *kind = e->args ? json_get_str(d, e->args, "kind") : NULL;	/* ROCm: "HtoD" */
	int src, dst, k = copy_kind(e->name);
	(void)param;
	copy_sides(e->name, &src, &dst);
	put_gpu(d, e, v, &x->c);
	put(v, x->c_kind, k ? k : kind ? copy_kind(kind) : 0);
	put(v, x->c_src, src);
	put(v, x->c_dst, dst);
	put(v, x->c_bytes, arg_i64(d, e->args, "bytes", 0));
	put(v, x->c_srcdev, arg_i64(d, e->args, "fromDevice", -1));
	put(v, x->c_dstdev, arg_i64(d, e->args, "toDevice", -1));
	v[x->c_srcdev].null = v[x->c_srcdev].i < 0;
	v[x->c_dstdev].null = v[x->c_dstdev].i < 0;
	return sink_add(st->sink, R_MEMCPY, v);
}

static int read_memset(struct state *st, const struct evt *e, int param)
{
	const struct json_doc *d = &st->doc;
	const struct idx *x = &st->ix;
	struct value *v = blank(st, R_MEMSET);
	const char *open = strchr(e->name, '(');
	(void)param;
	put_gpu(d, e, v, &x->s);
	put(v, x->s_bytes, arg_i64(d, e->args, "bytes", 0));
	put(v, x->s_kind, open ? mem_kind(open + 1, strcspn(open + 1, ")")) : 0);
	return sink_add(st->sink, R_MEMSET, v);
}

/* A runtime (param 1) or driver (param 2) call; ROCm's HIP calls come as "cuda_runtime" with "cid". */
static int read_api(struct state *st, const struct evt *e, int param)
{
	const struct json_doc *d = &st->doc;
	const struct idx *x = &st->ix;
	struct value *v = blank(st, R_API);
	put(v, x->a_start, e->start);
	put(v, x->a_end, e->end);
	put(v, x->a_thread, tid_num(d, e->ev, 0));
	put(v, x->a_corr, arg_i64(d, e->args, "correlation", 0));
	put(v, x->a_name, str_id(st, e->name));
	put(v, x->a_cbid, arg_i64(d, e->args, "cbid", arg_i64(d, e->args, "cid", 0)));
	put(v, x->a_domain, param);
	put_arg(d, e->args, "External id", v, x->a_ext);
	return sink_add(st->sink, R_API, v);
}

static int read_sync(struct state *st, const struct evt *e, int param)
{
	const struct json_doc *d = &st->doc;
	const struct idx *x = &st->ix;
	struct value *v = blank(st, R_SYNC);
	const char *kind = e->args ? json_get_str(d, e->args, "cuda_sync_kind") : NULL;
	int64_t stream = arg_i64(d, e->args, "stream", -1);
	(void)param;
	put(v, x->y_start, e->start);
	put(v, x->y_end, e->end);
	put(v, x->y_device, arg_i64(d, e->args, "device", -1));
	v[x->y_device].null = v[x->y_device].i < 0;
	put(v, x->y_context, arg_i64(d, e->args, "context", 0));
	put(v, x->y_stream, stream);
	v[x->y_stream].null = stream < 0 || stream == 0xFFFFFFFF;	/* -1 as a 32-bit id */
	put(v, x->y_corr, arg_i64(d, e->args, "correlation", 0));
	put(v, x->y_kind, sync_kind(kind ? kind : e->name));
	put(v, x->y_event, arg_i64(d, e->args, "wait_on_cuda_event_record_corr_id", 0));
	return sink_add(st->sink, R_SYNC, v);
}

/* The NVTX domain of a range or mark, args "domain" (gpuprof's traces), into v[f]; NULL when none. */
static void put_domain(struct state *st, const struct jnode *args, struct value *v, int f)
{
	const char *domain = args ? json_get_str(&st->doc, args, "domain") : NULL;
	if (domain)
		put(v, f, str_id(st, domain));
}

/* A CPU range (param 1: the thread) or a GPU annotation (param 3: the stream it ran on). */
static int read_range(struct state *st, const struct evt *e, int param)
{
	const struct idx *x = &st->ix;
	struct value *v = blank(st, R_RANGE);
	put(v, x->r_start, e->start);
	put(v, x->r_end, e->end);
	put(v, x->r_thread, tid_num(&st->doc, e->ev, 0));
	put(v, x->r_name, str_id(st, e->name));
	put(v, x->r_kind, param);
	put_domain(st, e->args, v, x->r_domain);
	return sink_add(st->sink, R_RANGE, v);
}

/*
 * The type of an op's first tensor input, from its "Input type" args (["c10::BFloat16", "", "Scalar"]):
 * the first entry that names a tensor type as PyTorch's dtype names do (lowercase, or "c10::..."), not an
 * IValue kind such as "Scalar" or "GenericList"; NULL when none.
 */
static const char *input_type(const struct json_doc *d, const struct jnode *args)
{
	const struct jnode *a = args ? json_get(d, args, "Input type") : NULL, *c;
	if (!a || a->type != J_ARRAY)
		return NULL;
	for (c = json_first(d, a); c; c = json_next(d, c))
		if (c->type == J_STRING && c->len && ((c->u.s[0] >= 'a' && c->u.s[0] <= 'z') ||
						     (c->len > 5 && !strncmp(c->u.s, "c10::", 5))))
			return c->u.s;
	return NULL;
}

/*
 * A CPU op (PyTorch's "cpu_op", 1.8's "Operator") that carries a FLOP count: PyTorch's profiler with
 * with_flops=True gives the ops whose formula it knows (matrix products, convolutions, ...) an arg
 * "flops". 1 when e is not one (no count, or not a number of 0 or more), else what the sink says.
 */
static int read_op(struct state *st, const struct evt *e)
{
	const struct json_doc *d = &st->doc;
	const struct idx *x = &st->ix;
	struct value *v;
	const char *dtype;
	int64_t flops;
	if (arg_num(d, e->args, TRACE_FLOPS_ARG, &flops) || flops < 0)
		return 1;
	v = blank(st, R_OP);
	put(v, x->o_start, e->start);
	put(v, x->o_end, e->end);
	put(v, x->o_thread, tid_num(d, e->ev, 0));
	put(v, x->o_name, str_id(st, e->name));
	put(v, x->o_flops, flops);
	if ((dtype = input_type(d, e->args)))
		put(v, x->o_dtype, str_id(st, dtype));
	put(v, x->o_ext, arg_i64(d, e->args, "External id", 0));
	st->n_read[R_OP]++;
	return sink_add(st->sink, R_OP, v);
}

/*
 * Node n as JSON text the way Kineto writes its args (", " between elements, ": " after keys), so that
 * "Input Dims" reads as it did in the trace: [[8192, 8192], [8192, 8192]].
 */
static void kineto_json(struct buf *b, const struct json_doc *d, const struct jnode *n)
{
	const struct jnode *c;
	if (n->type != J_ARRAY && n->type != J_OBJECT) {
		json_write(b, d, n);
		return;
	}
	buf_addch(b, n->type == J_ARRAY ? '[' : '{');
	for (c = json_first(d, n); c; c = json_next(d, c)) {
		if (c != json_first(d, n))
			buf_addstr(b, ", ");
		if (n->type == J_OBJECT) {
			json_quote(b, c->key, strlen(c->key));
			buf_addstr(b, ": ");
		}
		kineto_json(b, d, c);
	}
	buf_addch(b, n->type == J_ARRAY ? ']' : '}');
}

/* Arg key of an op as JSON text into v[f] (b holds it), NULL when absent. */
static void put_json(const struct json_doc *d, const struct jnode *args, const char *key, struct buf *b,
		     struct value *v, int f)
{
	const struct jnode *n = args ? json_get(d, args, key) : NULL;
	v[f].null = !n;
	if (!n)
		return;
	buf_reset(b);
	kineto_json(b, d, n);
	v[f].s = b->s;
}

/*
 * A CPU op (PyTorch's "cpu_op", 1.8-1.9's "Operator"): a row of ops with its ids and, when the profiler
 * recorded shapes, its inputs' dims, types, strides and concrete values as the JSON text they are; one
 * that also carries a FLOP count (with_flops=True) is a row of flop_ops as well. 0, or -1 on failure.
 */
static int read_torch_op(struct state *st, const struct evt *e, int param)
{
	const struct json_doc *d = &st->doc;
	const struct idx *x = &st->ix;
	struct value *v;
	int rc;
	if (e->args && json_get(d, e->args, TRACE_FLOPS_ARG) && (rc = read_op(st, e)) < 0)
		return rc;
	v = blank(st, R_TORCH_OP);
	put(v, x->t_start, e->start);
	put(v, x->t_end, e->end);
	put(v, x->t_thread, tid_num(d, e->ev, 0));
	put(v, x->t_name, str_id(st, e->name));
	put_arg(d, e->args, "External id", v, x->t_ext);
	put_arg(d, e->args, "Sequence number", v, x->t_seq);
	put_arg(d, e->args, "Fwd thread id", v, x->t_fwd);
	put_arg(d, e->args, "Record function id", v, x->t_rf);
	put_json(d, e->args, "Input Dims", &st->dims, v, x->t_dims);
	put_json(d, e->args, "Input type", &st->types, v, x->t_types);
	put_json(d, e->args, "Input Strides", &st->strides, v, x->t_strides);
	put_json(d, e->args, "Concrete Inputs", &st->concrete, v, x->t_concrete);
	put(v, x->t_source, param);
	return sink_add(st->sink, R_TORCH_OP, v);
}

/*
 * Every category of complete event read, in every spelling PyTorch's Kineto has written, and the record
 * each becomes. Matched exactly, case included: a spelling not listed here is counted as skipped (and
 * reported when it looks like GPU work), never guessed. Sources: libkineto/src/output_json.cpp and
 * ActivityType.cpp of pytorch/kineto (PyTorch 1.8-1.9 wrote "Kernel", "Memcpy", "Memset", "Runtime",
 * "User"; 1.10 on the ActivityType names), and RoctracerActivity / RocprofActivity for ROCm, which use
 * the same names as CUDA.
 */
static const struct cat_rule {
	const char *cat;
	enum rec_type type;
	int (*read)(struct state *st, const struct evt *e, int param);
	int param;
} cat_rules[] = {
	{ "kernel", R_KERNEL, read_kernel, 0 },			/* 1.10 and later; CUDA and ROCm */
	{ "Kernel", R_KERNEL, read_kernel, 0 },			/* 1.8, 1.9 */
	{ "gpu_memcpy", R_MEMCPY, read_memcpy, 0 },
	{ "Memcpy", R_MEMCPY, read_memcpy, 0 },
	{ "gpu_memset", R_MEMSET, read_memset, 0 },
	{ "Memset", R_MEMSET, read_memset, 0 },
	{ "cuda_runtime", R_API, read_api, 1 },			/* HIP calls too on ROCm */
	{ "Runtime", R_API, read_api, 1 },
	{ "cuda_driver", R_API, read_api, 2 },			/* 2.1 and later */
	{ "cuda_sync", R_SYNC, read_sync, 0 },			/* 2.3 and later */
	{ "user_annotation", R_RANGE, read_range, 1 },
	{ "gpu_user_annotation", R_RANGE, read_range, 3 },
	{ "User", R_RANGE, read_range, 3 },			/* 1.8, 1.9: GPU annotations */
	{ "cpu_op", R_TORCH_OP, read_torch_op, 1 },		/* ops (source 1: Kineto) */
	{ "Operator", R_TORCH_OP, read_torch_op, 1 },		/* 1.8, 1.9 */
};

/*
 * PyTorch's profiler before Kineto (1.7 and older, torch.autograd.profiler's export_chrome_trace) wrote a
 * bare array of events without categories: CPU ops on pid "CPU functions" and, on pid "CUDA functions"
 * with the device as tid, the GPU time of each op's kernels. Those become kernels on no known stream.
 */
static int read_legacy_kernel(struct state *st, const struct evt *e, int param)
{
	const struct idx *x = &st->ix;
	struct value *v = blank(st, R_KERNEL);
	(void)param;
	put(v, x->k.start, e->start);
	put(v, x->k.end, e->end);
	put(v, x->k.device, tid_num(&st->doc, e->ev, 0));
	v[x->k.stream].null = 1;
	put(v, x->k_name, str_id(st, e->name));
	v[x->k_ssmem].null = v[x->k_dsmem].null = 1;
	return sink_add(st->sink, R_KERNEL, v);
}

static const struct cat_rule legacy_kernel = { "", R_KERNEL, read_legacy_kernel, 0 };

/* The rule for an event of category cat (NULL when it has none) on process pid (its text). */
static const struct cat_rule *cat_rule(const char *cat, const char *pid)
{
	size_t i;
	if (!cat)
		return !strcmp(pid, "CUDA functions") ? &legacy_kernel : NULL;
	for (i = 0; i < sizeof(cat_rules) / sizeof(cat_rules[0]); i++)
		if (!strcmp(cat_rules[i].cat, cat))
			return &cat_rules[i];
	return NULL;
}

/*
 * Host-side categories Kineto writes, never GPU work even where they sit on a GPU's pid (Python functions
 * of other threads come with pid 0 in PyTorch 2.0 traces).
 */
static int cpu_category(const char *cat)
{
	static const char *const cats[] = { "cpu_op", "Operator", "python_function", "cpu_instant_event",
					    "user_annotation", "Trace" };
	size_t i;
	for (i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
		if (!strcmp(cats[i], cat))
			return 1;
	return 0;
}

/*
 * 1 when a category's name says GPU work, any case: it holds kernel, memcpy, memset, gpu, cuda, nccl, rccl,
 * xpu or mtia, or starts with hip or roc (anywhere, those would match "chip" and "process").
 */
static int gpu_category(const char *cat)
{
	static const char *const words[] = { "kernel", "memcpy", "memset", "gpu", "cuda", "nccl", "rccl", "xpu",
					     "mtia" };
	static const char *const prefixes[] = { "hip", "roc" };
	char low[64];
	size_t i, n = strlen(cat);
	if (n >= sizeof(low))
		n = sizeof(low) - 1;
	for (i = 0; i < n; i++)
		low[i] = cat[i] >= 'A' && cat[i] <= 'Z' ? (char)(cat[i] - 'A' + 'a') : cat[i];
	low[n] = '\0';
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(low, words[i]))
			return 1;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(low, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* The text of member key of obj (a string, or an integer written out) into out; "" when absent. */
static void member_text(const struct json_doc *d, const struct jnode *obj, const char *key, char *out, size_t n)
{
	const struct jnode *v = obj ? json_get(d, obj, key) : NULL;
	if (v && v->type == J_STRING) {
		size_t len = v->len < n ? v->len : n - 1;
		memcpy(out, v->u.s, len);
		out[len] = '\0';
	} else if (v && v->type == J_INT)
		snprintf(out, n, "%lld", (long long)v->u.i);
	else
		out[0] = '\0';
}

/* Remember pid (its text) as a GPU. */
static void add_gpu_pid(struct state *st, const char *pid)
{
	size_t i;
	for (i = 0; i < st->ngpu_pids; i++)
		if (!strcmp(st->gpu_pids[i], pid))
			return;
	grow_array((void **)&st->gpu_pids, &st->gpu_pids_alloc, st->ngpu_pids + 1, sizeof(*st->gpu_pids));
	st->gpu_pids[st->ngpu_pids++] = xstrdup(pid);
}

static int is_gpu_pid(const struct state *st, const char *pid)
{
	size_t i;
	for (i = 0; i < st->ngpu_pids; i++)
		if (!strcmp(st->gpu_pids[i], pid))
			return 1;
	return 0;
}

static int skip_is(const struct skip *k, const char *cat, const char *ph, const char *pid)
{
	return !strcmp(k->cat, cat) && !strcmp(k->ph, ph) && !strcmp(k->pid, pid);
}

/* Count one event no rule reads by its category, phase and pid (their text). */
static void skip_as(struct state *st, const char *cat, const char *ph, const char *pid)
{
	size_t i = st->last_skip;
	st->n_other++;
	/* Runs of one kind are common: the last entry first, then all. */
	if (i >= st->nskips || !skip_is(&st->skips[i], cat, ph, pid))
		for (i = 0; i < st->nskips && !skip_is(&st->skips[i], cat, ph, pid); i++)
			;
	if (i == st->nskips) {
		grow_array((void **)&st->skips, &st->skips_alloc, st->nskips + 1, sizeof(*st->skips));
		st->skips[i].cat = xstrdup(cat);
		st->skips[i].ph = xstrdup(ph);
		st->skips[i].pid = xstrdup(pid);
		st->skips[i].n = 0;
		st->nskips++;
	}
	st->skips[i].n++;
	st->last_skip = i;
}

/*
 * Count one event no rule reads (ev NULL: one that is not a JSON object), by its category, phase and pid
 * (its text, from the caller).
 */
static void skip(struct state *st, const struct jnode *ev, const char *pid)
{
	char cat[128], ph[8];
	member_text(&st->doc, ev, "cat", cat, sizeof(cat));
	member_text(&st->doc, ev, "ph", ph, sizeof(ph));
	skip_as(st, cat, ph, pid);
}

/* The categories of forward-backward flows: "fwdbwd", before late 2022 "forward_backward". */
static const char *const flow_cats[] = { "fwdbwd", "forward_backward" };

/* The index of cat in flow_cats, or -1. */
static int flow_cat(const char *cat)
{
	size_t i;
	for (i = 0; i < sizeof(flow_cats) / sizeof(flow_cats[0]); i++)
		if (!strcmp(flow_cats[i], cat))
			return (int)i;
	return -1;
}

/*
 * Keep one end ("s" or "f") of a forward-backward flow until the last event: 0, or 1 when it has no id or
 * no time that fits (the caller counts it as skipped).
 */
static int flow_end(struct state *st, const struct evt *e, const char *ph, const char *pid)
{
	const struct json_doc *d = &st->doc;
	const struct jnode *t = json_get(d, e->ev, "ts");
	struct flow_end *f;
	int64_t id, ts;
	size_t p;
	if (arg_num(d, e->ev, "id", &id) || !t || json_decimal_scaled(t, 3, &ts) || __builtin_add_overflow(ts, st->base, &ts))
		return 1;
	for (p = 0; p < st->nflow_pids && strcmp(st->flow_pids[p], pid); p++)
		;
	if (p == st->nflow_pids) {
		grow_array((void **)&st->flow_pids, &st->flow_pids_alloc, p + 1, sizeof(*st->flow_pids));
		st->flow_pids[st->nflow_pids++] = xstrdup(pid);
	}
	grow_array((void **)&st->flows, &st->flows_alloc, st->nflows + 1, sizeof(*st->flows));
	f = &st->flows[st->nflows++];
	f->pid = p;
	f->id = id;
	f->tid = tid_num(d, e->ev, 0);
	f->ts = ts;
	f->ph = ph[0];
	f->cat = (char)flow_cat(e->cat);
	return 0;
}

/* 0 when two flow ends are of the same flow (pid, category, id). */
static int by_flow_key(const struct flow_end *x, const struct flow_end *y)
{
	return x->pid != y->pid || x->cat != y->cat || x->id != y->id;
}

static int by_flow(const void *a, const void *b)
{
	const struct flow_end *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->ph != y->ph)
		return x->ph == 's' ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * The forward-backward flows, after the last event: each (pid, category, id) with exactly one "s" end and
 * one "f" end is a row of op_links; the ends of any other are counted as skipped. 0, or -1 on failure.
 */
static int pair_flows(struct state *st)
{
	const struct idx *x = &st->ix;
	size_t i = 0, j;
	xqsort(st->flows, st->nflows, sizeof(*st->flows), by_flow);
	while (i < st->nflows) {
		const struct flow_end *a = &st->flows[i];
		for (j = i + 1; j < st->nflows && !by_flow_key(a, &st->flows[j]); j++)
			;
		if (j - i == 2 && a[0].ph == 's' && a[1].ph == 'f') {
			struct value *v = blank(st, R_OP_LINK);
			put(v, x->l_flow, a[0].id);
			put(v, x->l_fwd_thread, a[0].tid);
			put(v, x->l_fwd, a[0].ts);
			put(v, x->l_bwd_thread, a[1].tid);
			put(v, x->l_bwd, a[1].ts);
			st->n_read[R_OP_LINK]++;
			if (sink_add(st->sink, R_OP_LINK, v))
				return -1;
		} else {
			for (; i < j; i++)
				skip_as(st, flow_cats[(int)st->flows[i].cat], st->flows[i].ph == 's' ? "s" : "f",
					st->flow_pids[st->flows[i].pid]);
		}
		i = j;
	}
	return 0;
}

/* A metadata event of process pid (its text): a process labelled "GPU n" (or named so) is a GPU. */
static void metadata(struct state *st, const struct jnode *args, const char *name, const char *pid)
{
	const char *label = NULL;
	if (!args)
		return;
	if (!strcmp(name, "process_labels"))
		label = json_get_str(&st->doc, args, "labels");
	else if (!strcmp(name, "process_name"))
		label = json_get_str(&st->doc, args, "name");
	if (label && !strncmp(label, "GPU", 3))
		add_gpu_pid(st, pid);
}

/*
 * What gpuprof's own traces (gpuprof-report --format trace) add to Kineto's layout: NVTX marks (instant
 * "user_annotation" events) and NVML and host metrics (counter events of cat "device_metrics", name "GPU
 * n", and "host_metrics"). 0 when read, 1 when ev is none of them, -1 on failure.
 */
static int gpuprof_event(struct state *st, const struct evt *e, const char *ph)
{
	const struct json_doc *d = &st->doc;
	const struct idx *x = &st->ix;
	const struct jnode *t = json_get(d, e->ev, "ts");
	enum rec_type type = !strcmp(ph, "i") ? R_MARKER : !strcmp(e->cat, "device_metrics") ? R_DEVICE_METRIC
			     : R_HOST_METRIC;
	struct value *v;
	int64_t ts, device = 0;
	int i;
	if ((type == R_MARKER && strcmp(e->cat, "user_annotation")) ||
	    (ph[0] == 'C' && strcmp(e->cat, "device_metrics") && strcmp(e->cat, "host_metrics")) ||
	    (type == R_DEVICE_METRIC && (strncmp(e->name, "GPU ", 4) || parse_i64(e->name + 4, strlen(e->name + 4), &device))))
		return 1;
	if (!t || json_decimal_scaled(t, 3, &ts) || __builtin_add_overflow(ts, st->base, &ts))
		return 1;
	v = blank(st, type);
	if (type == R_MARKER) {
		put(v, x->n_ts, ts);
		put(v, x->n_thread, tid_num(d, e->ev, 0));
		put(v, x->n_name, str_id(st, e->name));
		put_domain(st, e->args, v, x->n_domain);
	} else if (type == R_DEVICE_METRIC) {
		put(v, x->g_ts, ts);
		put(v, x->g_device, device);
		for (i = 0; trace_device_metric_keys[i]; i++)
			put_arg(d, e->args, trace_device_metric_keys[i], v, x->g_first + i);
	} else {
		const struct jnode *cpu = e->args ? json_get(d, e->args, trace_host_metric_keys[0]) : NULL;
		put(v, x->h_ts, ts);
		if (cpu && (cpu->type == J_INT || cpu->type == J_REAL)) {
			v[x->h_cpu].null = 0;
			v[x->h_cpu].d = cpu->type == J_INT ? (double)cpu->u.i : cpu->num;
		}
		for (i = 1; trace_host_metric_keys[i]; i++)
			put_arg(d, e->args, trace_host_metric_keys[i], v, x->h_first + i - 1);
	}
	st->n_read[type]++;
	return sink_add(st->sink, type, v);
}

/*
 * Whether a [memory] or [OutOfMemory] event's "Device Type" (c10::DeviceType, c10/core/DeviceType.h, as
 * torch/csrc/autograd/profiler_kineto.cpp writes it) is an accelerator's memory, which gpuprof reads as a
 * GPU's: every type with memory of its own. ROCm builds write CUDA (1: PyTorch's HIP devices pass as
 * CUDA) or HIP (6, as a TraceLens MI300X trace has); Intel GPUs XPU; Apple's MPS; Meta's MTIA;
 * out-of-tree backends (Ascend NPUs, ...) PrivateUse1. Unknown numbers are skipped (counted). Not read: CPU
 * memory (CPU, and its MKLDNN and IDEEP layouts), and Meta and Lazy, which hold no data.
 */
static int device_memory(int64_t type)
{
	static const int64_t types[] = {
		1,	/* CUDA */
		3,	/* OPENGL */
		4,	/* OPENCL */
		6,	/* HIP */
		7,	/* FPGA */
		8,	/* MAIA */
		9,	/* XLA */
		10,	/* Vulkan */
		11,	/* Metal */
		12,	/* XPU */
		13,	/* MPS */
		15,	/* HPU */
		16,	/* VE */
		18,	/* IPU */
		19,	/* MTIA */
		20,	/* PrivateUse1 */
	};
	size_t i;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i] == type)
			return 1;
	return 0;
}

/*
 * PyTorch's [OutOfMemory] instant event: an allocation its caching allocator could not make, even after
 * freeing its cache (torch/csrc/autograd/profiler_kineto.cpp: args "Device Type", "Device Id", "Bytes",
 * "Total Allocated", "Total Reserved"; the totals are left out where negative). A CPU one (device_memory)
 * or one without a time is skipped. 0, or -1 on failure.
 */
static int read_oom(struct state *st, const struct jnode *ev, const struct jnode *args, const char *pid)
{
	const struct json_doc *d = &st->doc;
	const struct idx *x = &st->ix;
	const struct jnode *t = json_get(d, ev, "ts");
	const char *call;
	struct value *v;
	int64_t ts, n;
	if (!device_memory(arg_i64(d, args, "Device Type", 0)) || !t || json_decimal_scaled(t, 3, &ts) ||
	    __builtin_add_overflow(ts, st->base, &ts)) {
		skip(st, ev, pid);
		return 0;
	}
	v = blank(st, R_ALLOC_FAIL);
	put(v, x->f_ts, ts);
	if (!arg_num(d, args, "Device Id", &n) && n >= 0)
		put(v, x->f_device, n);
	else
		v[x->f_device].null = 1;
	put(v, x->f_thread, tid_num(d, ev, 0));
	put(v, x->f_bytes, arg_i64(d, args, "Bytes", 0));
	/* No call or return code (the allocator raised an error), but in gpuprof's own traces (report/trace.c). */
	if (args && (call = json_get_str(d, args, "Call")))
		put(v, x->f_call, str_id(st, call));
	if (!arg_num(d, args, "Return Code", &n) && n >= 0)
		put(v, x->f_result, n);
	else
		v[x->f_result].null = 1;
	put(v, x->f_kind, 3);	/* no NVTX path recorded with it: path stays none (blank) */
	if (!arg_num(d, args, "Total Allocated", &n) && n >= 0)
		put(v, x->f_total, n);
	if (!arg_num(d, args, "Total Reserved", &n) && n >= 0)
		put(v, x->f_reserved, n);
	st->n_read[R_ALLOC_FAIL]++;
	return sink_add(st->sink, R_ALLOC_FAIL, v);
}

/* One trace event. Returns 0 (also for events it skips), 1 when the process is skipped, -1 on failure. */
static int event(struct state *st, struct buf *text)
{
	struct json_doc *d = &st->doc;
	const struct jnode *ev, *args;
	const char *ph, *name;
	const struct cat_rule *rule;
	struct value *v;
	struct idx *x = &st->ix;
	struct evt e;
	char pid[64], excerpt[EXCERPT_LEN];
	int rc;

	excerpt_of(text, excerpt, sizeof(excerpt));
	if (json_parse(d, text->s, text->len)) {
		st->events_seen = 1;
		if ((rc = begin(st)))
			return rc;
		return reject(st, "trace event", excerpt);
	}
	if (json_root(d)->type != J_OBJECT) {
		skip(st, NULL, "");	/* counted and stored like any other unread event */
		return 0;
	}
	ev = json_root(d);
	member_text(d, ev, "pid", pid, sizeof(pid));
	ph = json_get_str(d, ev, "ph");
	name = json_get_str(d, ev, "name");
	args = json_get(d, ev, "args");
	if (args && args->type != J_OBJECT)
		args = NULL;
	if (!ph || !name) {
		skip(st, ev, pid);
		return 0;
	}
	st->events_seen = 1;
	if ((rc = begin(st)))
		return rc;
	if (!strcmp(ph, "M"))
		metadata(st, args, name, pid);
	if (!strcmp(ph, "i") && !strcmp(name, "[memory]")) {
		int64_t bytes = arg_i64(d, args, "Bytes", 0), ts;
		const struct jnode *t = json_get(d, ev, "ts");
		if (!device_memory(arg_i64(d, args, "Device Type", 0)) || !t || json_decimal_scaled(t, 3, &ts) ||
		    __builtin_add_overflow(ts, st->base, &ts)) {
			skip(st, ev, pid);	/* CPU memory, or no time (or none that fits) */
			return 0;
		}
		v = blank(st, R_MEMORY);
		put(v, x->m_ts, ts);
		put(v, x->m_device, arg_i64(d, args, "Device Id", 0));
		v[x->m_stream].null = 1;
		put(v, x->m_op, bytes < 0 ? 2 : 1);
		{
			const char *kind = args ? json_get_str(d, args, "Memory Kind") : NULL;	/* gpuprof's traces */
			put(v, x->m_kind, kind ? mem_kind(kind, strlen(kind)) : 3);
		}
		put(v, x->m_thread, tid_num(d, ev, 0));
		if (args && json_get(d, args, "Addr"))
			put(v, x->m_addr, arg_i64(d, args, "Addr", 0));
		else
			v[x->m_addr].null = 1;	/* some PyTorch versions write none: unknown, never 0 */
		put(v, x->m_bytes, bytes < 0 ? -bytes : bytes);
		if (args && json_get(d, args, "Total Allocated"))
			put(v, x->m_total, arg_i64(d, args, "Total Allocated", 0));
		st->n_read[R_MEMORY]++;
		return sink_add(st->sink, R_MEMORY, v);
	}
	if (!strcmp(ph, "i") && !strcmp(name, "[OutOfMemory]"))
		return read_oom(st, ev, args, pid);
	e.ev = ev;
	e.args = args;
	e.name = name;
	e.cat = json_get_str(d, ev, "cat");
	if (e.cat && (!strcmp(ph, "i") || !strcmp(ph, "C")) && (rc = gpuprof_event(st, &e, ph)) <= 0)
		return rc;
	if ((!strcmp(ph, "s") || !strcmp(ph, "f")) && e.cat && flow_cat(e.cat) >= 0 && !flow_end(st, &e, ph, pid))
		return 0;
	if (strcmp(ph, "X") || !(rule = cat_rule(e.cat, pid)) || span(st, ev, &e.start, &e.end)) {
		skip(st, ev, pid);
		return 0;
	}
	if (rule->type == R_KERNEL || rule->type == R_MEMCPY || rule->type == R_MEMSET)
		add_gpu_pid(st, pid);
	st->n_read[rule->type]++;
	return rule->read(st, &e, rule->param);
}

/* Skipped events summed by (category, phase): all of them, and those that look like GPU work. */
struct skip_sum {
	const char *cat, *ph;
	int64_t n, gpu;
};

static int by_count(const void *a, const void *b)
{
	const struct skip_sum *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (strcmp(x->cat, y->cat))
		return strcmp(x->cat, y->cat);
	return strcmp(x->ph, y->ph);
}

static int by_gpu_count(const void *a, const void *b)
{
	const struct skip_sum *x = a, *y = b;
	if (x->gpu != y->gpu)
		return x->gpu > y->gpu ? -1 : 1;
	return by_count(a, b);
}

/*
 * Sum the skipped events by (category, phase) into a new array (*n entries, sorted by count) and count
 * those that look like GPU work: complete events, not of a host category, on a GPU's pid or of a
 * category whose name says GPU.
 */
static struct skip_sum *sum_skips(const struct state *st, size_t *n, int64_t *gpu)
{
	struct skip_sum *s = xcalloc(st->nskips + 1, sizeof(*s));
	size_t i, j;
	*n = 0;
	*gpu = 0;
	for (i = 0; i < st->nskips; i++) {
		const struct skip *k = &st->skips[i];
		int g = !strcmp(k->ph, "X") && !cpu_category(k->cat) && (is_gpu_pid(st, k->pid) || gpu_category(k->cat));
		for (j = 0; j < *n && (strcmp(s[j].cat, k->cat) || strcmp(s[j].ph, k->ph)); j++)
			;
		if (j == *n) {
			s[j].cat = k->cat;
			s[j].ph = k->ph;
			(*n)++;
		}
		s[j].n += k->n;
		if (g) {
			s[j].gpu += k->n;
			*gpu += k->n;
		}
	}
	xqsort(s, *n, sizeof(*s), by_count);
	return s;
}

/* "cpu_op X 30001, python_function X 9000, ..." for the first `top` entries (by gpu count when gpu). */
static void skip_list(struct buf *b, struct skip_sum *s, size_t n, size_t top, int gpu)
{
	size_t i, shown = 0;
	if (gpu)
		xqsort(s, n, sizeof(*s), by_gpu_count);
	for (i = 0; i < n && shown < top; i++) {
		if (gpu && !s[i].gpu)
			break;
		buf_addf(b, "%s%s%s%s %lld", shown ? ", " : "", s[i].cat[0] ? s[i].cat : "(no category)",
			 s[i].ph[0] ? " " : "", s[i].ph, (long long)(gpu ? s[i].gpu : s[i].n));
		shown++;
	}
	if (i < n && (!gpu || s[i].gpu))
		buf_addstr(b, ", ...");
	if (gpu)
		xqsort(s, n, sizeof(*s), by_count);
}

/*
 * The skipped events: with record set, stored in ingest_skipped (and, when events that look like GPU work
 * were skipped and no kernel, memcpy or memset was read, an ingest_errors row: *no_gpu is set and the
 * caller exits 3); without, said on stderr. Returns 0, or -1 on a database error.
 */
static int report_skips(struct state *st, int record, int *no_gpu)
{
	struct buf b;
	char ooms[48];
	int64_t gpu;
	size_t n, i;
	struct skip_sum *s = sum_skips(st, &n, &gpu);
	char ops[64] = "", rejected[48] = "";
	int rc = 0;
	*no_gpu = gpu && !st->n_read[R_KERNEL] && !st->n_read[R_MEMCPY] && !st->n_read[R_MEMSET];
	buf_init(&b);
	if (gpu)
		skip_list(&b, s, n, 5, 1);
	if (record) {
		for (i = 0; i < n && !rc; i++)
			rc = sink_skipped(st->sink, st->path, s[i].cat, s[i].ph, s[i].n, s[i].gpu);
		if (!rc && *no_gpu) {
			char reason[600];
			snprintf(reason, sizeof(reason), "no GPU activity read, yet %lld events look like GPU work: %s",
				 (long long)gpu, b.s);
			rc = sink_ingest_error(st->sink, st->path, 0, reason, NULL);
		}
	} else {
		if (gpu)
			warning("%s: %lld events that look like GPU work were not read (category phase count: %s); "
				"see table ingest_skipped", st->path, (long long)gpu, b.s);
		if (st->n_read[R_OP])	/* said only when a trace has them (with_flops=True) */
			snprintf(ops, sizeof(ops), ", %lld ops with FLOP counts", (long long)st->n_read[R_OP]);
		buf_reset(&b);
		skip_list(&b, s, n, 4, 0);
		snprintf(ooms, sizeof(ooms), ", %lld failed allocations", (long long)st->n_read[R_ALLOC_FAIL]);
		if (st->n_rejected)
			snprintf(rejected, sizeof(rejected), "; %lld rejected", (long long)st->n_rejected);
		info("%s: %lld kernels, %lld memcpys, %lld memsets, %lld syncs, %lld runtime calls, %lld ranges, "
		     "%lld ops, %lld forward-backward links, %lld memory events%s%s; %lld other events skipped%s%s%s%s",
		     st->path, (long long)st->n_read[R_KERNEL], (long long)st->n_read[R_MEMCPY],
		     (long long)st->n_read[R_MEMSET], (long long)st->n_read[R_SYNC], (long long)st->n_read[R_API],
		     (long long)st->n_read[R_RANGE], (long long)st->n_read[R_TORCH_OP], (long long)st->n_read[R_OP_LINK],
		     (long long)st->n_read[R_MEMORY],
		     ops, st->n_read[R_ALLOC_FAIL] ? ooms : "", (long long)st->n_other, n ? " (" : "", n ? b.s : "",
		     n ? ")" : "", rejected);
		if (st->pg_many)
			warning("%s: %lld kernels name their process group, and not all the same one; gpuprof does not "
				"keep the group, so `collectives` matches these ranks' kernels of one name by order, "
				"across groups", st->path, (long long)st->pg_kernels);
		if (*no_gpu)
			error("%s: no GPU activity was read, yet the trace holds events that look like GPU work "
			      "(a layout this version does not know?); the rest was kept", st->path);
		else if (!st->n_read[R_KERNEL] && !st->n_read[R_MEMCPY] && !st->n_read[R_MEMSET])
			info("%s: the trace holds no GPU activity", st->path);
	}
	buf_release(&b);
	free(s);
	return rc;
}

/* The top-level members read (the others are skipped unparsed). */
static const char *const meta_keys[] = {
	"deviceProperties", "distributedInfo", "baseTimeNanoseconds", "trace_id", "host_name", "traceName",
	"schemaVersion", "gpuprof_source",
};

/*
 * A top-level member other than traceEvents. distributedInfo is read wherever it is (one after the events
 * makes the caller read the trace again, knowing the rank); the names only before the events. 0, or -1.
 */
static int meta(struct state *st, const char *key, struct buf *text)
{
	struct json_doc *d = &st->doc;
	const struct jnode *n;
	char excerpt[EXCERPT_LEN];
	size_t i;
	for (i = 0; i < sizeof(meta_keys) / sizeof(meta_keys[0]) && strcmp(key, meta_keys[i]); i++)
		;
	if (i == sizeof(meta_keys) / sizeof(meta_keys[0]))
		return 0;
	excerpt_of(text, excerpt, sizeof(excerpt));
	if (!strcmp(key, "deviceProperties")) {
		buf_reset(&st->devices);
		buf_add(&st->devices, text->s, text->len);
	}
	if (json_parse(d, text->s, text->len)) {
		char what[96];
		buf_reset(&st->devices);
		snprintf(what, sizeof(what), "top-level member \"%s\"", key);
		return reject(st, what, excerpt);
	}
	n = json_root(d);
	if (!strcmp(key, "distributedInfo"))
		st->rank = arg_i64(d, n, "rank", -1);
	else if (!strcmp(key, "baseTimeNanoseconds") && !st->base_seen) {
		int64_t b;
		if (n->type == J_INT || (n->type == J_STRING && !parse_i64(n->u.s, n->len, &b))) {
			*(st->events_seen ? &st->late_base : &st->base) = n->type == J_INT ? n->u.i : b;
			st->base_seen = 1;
		}
	} else if (!strcmp(key, "gpuprof_source")) {
		if (!st->events_seen)
			st->ours = 1;
	} else if (n->type == J_STRING) {
		char **slot = !strcmp(key, "trace_id") ? &st->trace_id : !strcmp(key, "host_name") ? &st->hostname
			      : !strcmp(key, "traceName") ? &st->trace_name : NULL;
		if (slot && !*slot && !st->events_seen)
			*slot = xstrdup(n->u.s);
	} else if (!strcmp(key, "schemaVersion") && n->type == J_INT && !st->schema) {
		char s[48];
		snprintf(s, sizeof(s), "kineto schema %lld", (long long)n->u.i);
		st->schema = xstrdup(s);
	}
	return 0;
}

/*
 * The elements of an array of trace events, after its '[', through its ']'. In a bare array (the whole
 * document), every element must be an object: a JSON array of anything else is not a trace. Returns 0; 1
 * when the process is already in the database (the rest is not read); -1 on a system failure; 2 when the
 * text is malformed, with *what set.
 */
static int events(struct state *st, struct jstream *in, int bare, struct buf *val, const char **what)
{
	int c, rc;
	if (jstream_peek(in) == ']') {
		jstream_next(in);
		return 0;
	}
	for (;;) {
		if (bare && jstream_peek(in) != '{') {
			*what = "an element of the array is not an event object";
			return 2;
		}
		jstream_peek(in);	/* (past white space: where the value begins) */
		st->at = jstream_offset(in);
		if (jstream_value(in, val)) {
			*what = "the trace ends inside its array of events";
			return 2;
		}
		if ((rc = event(st, val)))
			return rc;
		c = jstream_next(in);
		if (c == ']')
			return 0;
		if (c != ',') {
			*what = "expected ',' or ']' between trace events";
			return 2;
		}
	}
}

/*
 * Top-level members that make a JSON document a trace: those Kineto writes (whatever precedes them: tools
 * that collect traces put their own metadata first), those of the Chrome trace format, and "ph", the one
 * member every event has, for documents in its array form.
 */
static const struct json_claim kineto_claims[] = {
	{ "traceEvents", NULL }, { "schemaVersion", NULL }, { "deviceProperties", NULL },
	{ "distributedInfo", NULL }, { "baseTimeNanoseconds", NULL }, { "displayTimeUnit", NULL },
	{ "traceName", NULL }, { "trace_id", NULL }, { "cupti_version", NULL }, { "cuda_runtime_version", NULL },
	{ "cuda_driver_version", NULL }, { "systemTraceEvents", NULL }, { "otherData", NULL },
	{ "stackFrames", NULL }, { "ph", NULL }, { NULL, NULL }
};

/* 1 when a top-level member named key (quoted, as read) is one that only traces have. */
static int trace_member(const struct buf *key)
{
	const struct json_claim *c;
	for (c = kineto_claims; c->key; c++)
		if (key->len == strlen(c->key) + 2 && !memcmp(key->s + 1, c->key, key->len - 2))
			return 1;
	return 0;
}

/*
 * Walk the document. Returns EXIT_OK, EXIT_DATA (malformed, or an object no trace member names, which
 * --format kineto may force on any JSON: caller rolls back) or EXIT_SYSTEM.
 */
static int walk(struct state *st, struct jstream *in)
{
	struct buf key, val;
	int c, status = EXIT_OK, rc, traced = 0;
	const char *what = NULL;

	buf_init(&key);
	buf_init(&val);
	c = jstream_next(in);
	if (c == '[') {	/* the Chrome trace format's array form: the events alone */
		if ((rc = events(st, in, 1, &val, &what)) == 2)
			goto bad;
		status = rc < 0 ? EXIT_SYSTEM : EXIT_OK;
		if (!rc && jstream_next(in) >= 0) {
			what = "more after the array of events";
			goto bad;
		}
		goto out;
	}
	if (c != '{') {
		what = "not a JSON object or array (a Chrome trace starts with '{' or '[')";
		goto bad;
	}
	if (jstream_peek(in) == '}')
		goto out;
	for (;;) {
		if (jstream_peek(in) != '"' || jstream_value(in, &key) || jstream_next(in) != ':') {
			what = "expected a member name";
			goto bad;
		}
		traced |= trace_member(&key);
		if (!strcmp(key.s, "\"traceEvents\"")) {
			if (jstream_next(in) != '[') {
				what = "\"traceEvents\" is not an array";
				goto bad;
			}
			if ((rc = events(st, in, 0, &val, &what)) == 2)
				goto bad;
			if (rc) {
				status = rc < 0 ? EXIT_SYSTEM : EXIT_OK;
				goto out;
			}
		} else {
			char name[64];
			jstream_peek(in);
			st->at = jstream_offset(in);
			if (jstream_value(in, &val)) {
				what = "the trace ends inside a top-level value";
				goto bad;
			}
			snprintf(name, sizeof(name), "%.*s", key.len > 2 ? (int)key.len - 2 : 0, key.s + 1);
			if (meta(st, name, &val)) {
				status = EXIT_SYSTEM;
				goto out;
			}
		}
		c = jstream_next(in);
		if (c == '}')
			break;
		if (c != ',') {
			what = c < 0 ? "the trace ends early" : "expected ',' or '}' after a top-level member";
			goto bad;
		}
	}
	if (jstream_next(in) >= 0) {
		what = "more after the trace's object (one JSON object a line is gpuprof's wire format: --format ndjson)";
		goto bad;
	}
	if (!traced) {
		what = "not a trace: no \"traceEvents\" or other member a trace has";
		goto bad;
	}
	goto out;
bad:
	if (in->err == 2) {
		error("%s: read error", st->path);
		status = EXIT_SYSTEM;
	} else {
		error("%s: byte %lld: %s%s", st->path, (long long)jstream_offset(in), what,
		      in->err == 1 ? " (the compressed file is cut off)" : "");
		status = EXIT_DATA;
	}
out:
	buf_release(&key);
	buf_release(&val);
	return status;
}

/* Free what st holds. */
static void state_release(struct state *st)
{
	size_t i;
	json_doc_release(&st->doc);
	buf_release(&st->devices);
	buf_release(&st->dims);
	buf_release(&st->types);
	buf_release(&st->strides);
	buf_release(&st->concrete);
	free(st->flows);
	for (i = 0; i < st->nflow_pids; i++)
		free(st->flow_pids[i]);
	free(st->flow_pids);
	free(st->trace_id);
	free(st->hostname);
	free(st->pg_first);
	free(st->trace_name);
	free(st->schema);
	free(st->first_reject);
	for (i = 0; i < st->nskips; i++) {
		free(st->skips[i].cat);
		free(st->skips[i].ph);
		free(st->skips[i].pid);
	}
	free(st->skips);
	for (i = 0; i < st->ngpu_pids; i++)
		free(st->gpu_pids[i]);
	free(st->gpu_pids);
	st->begun = 0;	/* (the pending rejects are dropped) */
	flush_pending(st);
	free(st->pending);
}

/*
 * Read the trace in one transaction, the process begun with rank *rank (-1: none known yet). When the
 * trace names another rank only after its events and late is not NULL, the transaction is rolled back,
 * *late set and *rank the rank: the caller reads it again. Returns an exit status.
 */
static int ingest_once(struct sink *s, const char *path, const struct reader_opts *o, int64_t *rank, int *late)
{
	struct state st;
	struct jstream in;
	int status, no_gpu = 0;

	memset(&st, 0, sizeof(st));
	st.sink = s;
	st.opts = o;
	st.path = path;
	st.rank = *rank;
	json_doc_init(&st.doc);
	buf_init(&st.devices);
	buf_init(&st.dims);
	buf_init(&st.types);
	buf_init(&st.strides);
	buf_init(&st.concrete);
	if (init_idx(&st.ix))
		return EXIT_SYSTEM;
	if (jstream_open(&in, path)) {
		json_doc_release(&st.doc);
		return EXIT_SYSTEM;
	}

	if (sink_tx_begin(s)) {
		status = EXIT_SYSTEM;
		goto out;
	}
	status = walk(&st, &in);
	if (status == EXIT_OK && late && st.begun && !st.skipped && st.begun_rank < 0 && st.rank > 0) {
		/* The process is stored under the rank (processes.pid): begun as 0, it must begin again. */
		sink_tx_rollback(s);
		*late = 1;
		*rank = st.rank;
		goto out;
	}
	if (status == EXIT_OK && !st.skipped) {
		if (!st.begun && begin(&st) < 0)
			status = EXIT_SYSTEM;
		else if (!st.skipped && (pair_flows(&st) || sink_shift_times(s, st.late_base)))
			status = EXIT_SYSTEM;
	}
	if (status == EXIT_OK && !st.skipped) {
		if (st.rank >= 0 && sink_set_rank(s, st.rank))
			status = EXIT_SYSTEM;
		else if (add_devices(&st) || report_skips(&st, 1, &no_gpu) ||
			 sink_repaired(s, SINK_REPAIR_NUL, st.doc.nuls) || sink_process_end(s, 1, 0))
			status = EXIT_SYSTEM;
	}
	if (status == EXIT_OK) {
		if (sink_tx_commit(s))
			status = EXIT_SYSTEM;
	} else {
		sink_tx_rollback(s);
		if (status == EXIT_DATA)
			error("%s: nothing was ingested", path);
	}
	if (status == EXIT_OK && !st.skipped) {
		report_skips(&st, 0, &no_gpu);
		if (st.n_rejected)
			error("%s: %s, not read (%lld such rejected, each in table ingest_errors)", path,
			      st.first_reject, (long long)st.n_rejected);
		if (no_gpu || st.n_rejected)
			status = EXIT_DATA;	/* the valid rest is committed */
	}
out:
	jstream_close(&in);
	state_release(&st);
	return status;
}

static int kineto_ingest(struct sink *s, const char *path, const struct reader_opts *o)
{
	int64_t rank = -1;
	int late = 0, status = ingest_once(s, path, o, &rank, &late);
	if (late) {
		info("%s: distributedInfo (rank %lld) comes after the events: reading the trace again to store it "
		     "as that rank", path, (long long)rank);
		status = ingest_once(s, path, o, &rank, NULL);
	}
	return status;
}

const struct reader kineto_reader = {
	"kineto", "PyTorch profiler (Kineto) / Chrome trace JSON, .json or .json.gz",
	kineto_claims, NULL, kineto_ingest
};
