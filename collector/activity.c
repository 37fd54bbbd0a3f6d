#include "activity.h"
#include "oom.h"
#include "symname.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cupti.h>

/* Field indices, looked up once (lib/records.c is the one description of every record). */
static struct ix {
	int k_start, k_end, k_device, k_context, k_stream, k_corr, k_name, k_mangled, k_grid, k_block,
	    k_cluster, k_regs, k_ssmem, k_dsmem, k_lmem, k_graph, k_node;
	int c_start, c_end, c_device, c_context, c_stream, c_corr, c_kind, c_src, c_dst, c_bytes, c_srcdev,
	    c_dstdev, c_async;
	int s_start, s_end, s_device, s_context, s_stream, s_corr, s_bytes, s_value, s_kind;
	int y_start, y_end, y_device, y_context, y_stream, y_corr, y_kind, y_event, y_thread;
	int m_ts, m_device, m_context, m_stream, m_corr, m_op, m_kind, m_addr, m_bytes, m_pc, m_site,
	    m_thread, m_async;
	int a_start, a_end, a_thread, a_corr, a_name, a_cbid, a_domain;
	int r_start, r_end, r_thread, r_name, r_domain, r_kind, r_depth, r_id;
	int n_ts, n_thread, n_name, n_domain;
	int d_id, d_name, d_uuid, d_ccmaj, d_ccmin, d_sms, d_mem, d_clock, d_bw, d_threads, d_regs, d_smem;
	int o_start, o_end, o_kind, o_object, o_thread, o_device, o_context, o_stream, o_corr;
	int f_ts, f_device, f_thread, f_corr, f_bytes, f_call, f_cbid, f_domain, f_result, f_kind, f_path;
} ix;

#define I(m, t, f) { offsetof(struct ix, m), t, f }
static const struct rec_index ix_table[] = {
	I(k_start, R_KERNEL, "start"), I(k_end, R_KERNEL, "end"), I(k_device, R_KERNEL, "device"),
	I(k_context, R_KERNEL, "context"), I(k_stream, R_KERNEL, "stream"), I(k_corr, R_KERNEL, "correlation"),
	I(k_name, R_KERNEL, "name"), I(k_mangled, R_KERNEL, "mangled"), I(k_grid, R_KERNEL, "grid_x"),
	I(k_block, R_KERNEL, "block_x"), I(k_cluster, R_KERNEL, "cluster_x"), I(k_regs, R_KERNEL, "registers"),
	I(k_ssmem, R_KERNEL, "static_smem"), I(k_dsmem, R_KERNEL, "dynamic_smem"),
	I(k_lmem, R_KERNEL, "local_mem"), I(k_graph, R_KERNEL, "graph_id"), I(k_node, R_KERNEL, "graph_node"),
	I(c_start, R_MEMCPY, "start"), I(c_end, R_MEMCPY, "end"), I(c_device, R_MEMCPY, "device"),
	I(c_context, R_MEMCPY, "context"), I(c_stream, R_MEMCPY, "stream"), I(c_corr, R_MEMCPY, "correlation"),
	I(c_kind, R_MEMCPY, "kind"), I(c_src, R_MEMCPY, "src_kind"), I(c_dst, R_MEMCPY, "dst_kind"),
	I(c_bytes, R_MEMCPY, "bytes"), I(c_srcdev, R_MEMCPY, "src_device"), I(c_dstdev, R_MEMCPY, "dst_device"),
	I(c_async, R_MEMCPY, "async"),
	I(s_start, R_MEMSET, "start"), I(s_end, R_MEMSET, "end"), I(s_device, R_MEMSET, "device"),
	I(s_context, R_MEMSET, "context"), I(s_stream, R_MEMSET, "stream"), I(s_corr, R_MEMSET, "correlation"),
	I(s_bytes, R_MEMSET, "bytes"), I(s_value, R_MEMSET, "value"), I(s_kind, R_MEMSET, "mem_kind"),
	I(y_start, R_SYNC, "start"), I(y_end, R_SYNC, "end"), I(y_device, R_SYNC, "device"),
	I(y_context, R_SYNC, "context"), I(y_stream, R_SYNC, "stream"), I(y_corr, R_SYNC, "correlation"),
	I(y_kind, R_SYNC, "kind"), I(y_event, R_SYNC, "event"), I(y_thread, R_SYNC, "thread"),
	I(m_ts, R_MEMORY, "ts"), I(m_device, R_MEMORY, "device"), I(m_context, R_MEMORY, "context"),
	I(m_stream, R_MEMORY, "stream"), I(m_corr, R_MEMORY, "correlation"), I(m_op, R_MEMORY, "op"),
	I(m_kind, R_MEMORY, "mem_kind"), I(m_addr, R_MEMORY, "address"), I(m_bytes, R_MEMORY, "bytes"),
	I(m_pc, R_MEMORY, "pc"), I(m_site, R_MEMORY, "site"), I(m_thread, R_MEMORY, "thread"),
	I(m_async, R_MEMORY, "async"),
	I(a_start, R_API, "start"), I(a_end, R_API, "end"), I(a_thread, R_API, "thread"),
	I(a_corr, R_API, "correlation"), I(a_name, R_API, "name"), I(a_cbid, R_API, "cbid"),
	I(a_domain, R_API, "domain"),
	I(r_start, R_RANGE, "start"), I(r_end, R_RANGE, "end"), I(r_thread, R_RANGE, "thread"),
	I(r_name, R_RANGE, "name"), I(r_domain, R_RANGE, "domain"), I(r_kind, R_RANGE, "kind"),
	I(r_depth, R_RANGE, "depth"), I(r_id, R_RANGE, "id"),
	I(n_ts, R_MARKER, "ts"), I(n_thread, R_MARKER, "thread"), I(n_name, R_MARKER, "name"),
	I(n_domain, R_MARKER, "domain"),
	I(d_id, R_DEVICE, "id"), I(d_name, R_DEVICE, "name"), I(d_uuid, R_DEVICE, "uuid"),
	I(d_ccmaj, R_DEVICE, "cc_major"), I(d_ccmin, R_DEVICE, "cc_minor"), I(d_sms, R_DEVICE, "sms"),
	I(d_mem, R_DEVICE, "memory_bytes"), I(d_clock, R_DEVICE, "core_clock_khz"),
	I(d_bw, R_DEVICE, "mem_bandwidth_kbs"), I(d_threads, R_DEVICE, "max_threads_per_sm"),
	I(d_regs, R_DEVICE, "max_regs_per_sm"), I(d_smem, R_DEVICE, "max_smem_per_sm"),
	I(o_start, R_OVERHEAD, "start"), I(o_end, R_OVERHEAD, "end"), I(o_kind, R_OVERHEAD, "kind"),
	I(o_object, R_OVERHEAD, "object_kind"), I(o_thread, R_OVERHEAD, "thread"),
	I(o_device, R_OVERHEAD, "device"), I(o_context, R_OVERHEAD, "context"), I(o_stream, R_OVERHEAD, "stream"),
	I(o_corr, R_OVERHEAD, "correlation"),
	I(f_ts, R_ALLOC_FAIL, "ts"), I(f_device, R_ALLOC_FAIL, "device"), I(f_thread, R_ALLOC_FAIL, "thread"),
	I(f_corr, R_ALLOC_FAIL, "correlation"), I(f_bytes, R_ALLOC_FAIL, "bytes"), I(f_call, R_ALLOC_FAIL, "call"),
	I(f_cbid, R_ALLOC_FAIL, "cbid"), I(f_domain, R_ALLOC_FAIL, "domain"), I(f_result, R_ALLOC_FAIL, "result"),
	I(f_kind, R_ALLOC_FAIL, "mem_kind"), I(f_path, R_ALLOC_FAIL, "path"),
};
#undef I

/* A started NVTX range waiting for its END record. */
struct open_range {
	uint32_t id;
	int64_t start, thread, name, domain;
	int depth;
};

void act_init(struct act *a, struct wire *w)
{
	static int ready;
	memset(a, 0, sizeof(*a));
	a->w = w;
	a->split = INT64_MAX;
	a->end_before = a->end_after = INT64_MIN;
	if (!ready) {
		rec_indices(ix_table, sizeof(ix_table) / sizeof(ix_table[0]), &ix);
		ready = 1;
	}
}

static struct value vals[REC_MAX_FIELDS];

/* All fields zero (nullable kinds NULL) for a record of type t. */
static struct value *blank(enum rec_type t)
{
	int i;
	for (i = 0; i < rec_specs[t].nfields; i++) {
		enum field_kind k = rec_specs[t].fields[i].kind;
		vals[i].null = k == F_TIMEN || k == F_INTN || k == F_OPTN || k == F_NUM;
		vals[i].i = 0;
		vals[i].s = "";
	}
	return vals;
}

static void put(struct value *v, int i, int64_t x)
{
	v[i].null = 0;
	v[i].i = x;
}

/* The demangled form of a C++ name when the C++ runtime can give one, else NULL (free it). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static char *demangle(const char *name)
{
	int status = -1;
	char *d;
	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(d);
		return NULL;
	}
	return d;
}

int64_t act_kernel_name(struct wire *w, const char *name, int64_t *mangled)
{
	char *dm = demangle(name);
	int64_t id = wire_string(w, dm ? dm : name ? name : "(unnamed)");
	if (mangled)
		*mangled = dm ? wire_string(w, name) : 0;
	free(dm);
	return id;
}

/* A record of GPU work from start to end, for the trace windows' ends (struct act). */
static void track(struct act *a, int64_t start, int64_t end)
{
	int64_t *e = start < a->split ? &a->end_before : &a->end_after;
	if (end > *e)
		*e = end;
}

static int kernel(struct act *a, const CUpti_ActivityKernel10 *k)
{
	struct value *v = blank(R_KERNEL);
	int64_t mangled;
	if (!k->end || k->end < k->start) {
		a->incomplete++;	/* still running at a forced flush, or a device buffer overflow */
		return 0;
	}
	put(v, ix.k_start, (int64_t)k->start);
	put(v, ix.k_end, (int64_t)k->end);
	track(a, (int64_t)k->start, (int64_t)k->end);
	put(v, ix.k_device, k->deviceId);
	put(v, ix.k_context, k->contextId);
	put(v, ix.k_stream, k->streamId);
	put(v, ix.k_corr, k->correlationId);
	put(v, ix.k_name, act_kernel_name(a->w, k->name, &mangled));
	put(v, ix.k_mangled, mangled);
	put(v, ix.k_grid, k->gridX);
	put(v, ix.k_grid + 1, k->gridY);
	put(v, ix.k_grid + 2, k->gridZ);
	put(v, ix.k_block, k->blockX);
	put(v, ix.k_block + 1, k->blockY);
	put(v, ix.k_block + 2, k->blockZ);
	put(v, ix.k_cluster, k->clusterX);
	put(v, ix.k_cluster + 1, k->clusterY);
	put(v, ix.k_cluster + 2, k->clusterZ);
	put(v, ix.k_regs, k->registersPerThread);
	put(v, ix.k_ssmem, k->staticSharedMemory);
	put(v, ix.k_dsmem, k->dynamicSharedMemory);
	put(v, ix.k_lmem, k->localMemoryPerThread);
	put(v, ix.k_graph, k->graphId);
	put(v, ix.k_node, (int64_t)k->graphNodeId);
	return wire_add(a->w, R_KERNEL, v);
}

static int copy(struct act *a, int64_t start, int64_t end, const uint32_t ids[4], int kind, int src, int dst,
		uint64_t bytes, int64_t srcdev, int64_t dstdev, int async)
{
	struct value *v = blank(R_MEMCPY);
	if (!end || end < start) {
		a->incomplete++;
		return 0;
	}
	put(v, ix.c_start, start);
	put(v, ix.c_end, end);
	track(a, start, end);
	put(v, ix.c_device, ids[0]);
	put(v, ix.c_context, ids[1]);
	put(v, ix.c_stream, ids[2]);
	put(v, ix.c_corr, ids[3]);
	put(v, ix.c_kind, kind);
	put(v, ix.c_src, src);
	put(v, ix.c_dst, dst);
	put(v, ix.c_bytes, (int64_t)bytes);
	put(v, ix.c_srcdev, srcdev);
	v[ix.c_srcdev].null = srcdev < 0;
	put(v, ix.c_dstdev, dstdev);
	v[ix.c_dstdev].null = dstdev < 0;
	put(v, ix.c_async, async);
	return wire_add(a->w, R_MEMCPY, v);
}

static int memset_(struct act *a, const CUpti_ActivityMemset4 *m)
{
	struct value *v = blank(R_MEMSET);
	if (!m->end || m->end < m->start) {
		a->incomplete++;
		return 0;
	}
	put(v, ix.s_start, (int64_t)m->start);
	put(v, ix.s_end, (int64_t)m->end);
	track(a, (int64_t)m->start, (int64_t)m->end);
	put(v, ix.s_device, m->deviceId);
	put(v, ix.s_context, m->contextId);
	put(v, ix.s_stream, m->streamId);
	put(v, ix.s_corr, m->correlationId);
	put(v, ix.s_bytes, (int64_t)m->bytes);
	put(v, ix.s_value, m->value);
	put(v, ix.s_kind, m->memoryKind);
	return wire_add(a->w, R_MEMSET, v);
}

static int sync_(struct act *a, const CUpti_ActivitySynchronization2 *y)
{
	struct value *v = blank(R_SYNC);
	put(v, ix.y_start, (int64_t)y->start);
	put(v, ix.y_end, (int64_t)y->end);
	track(a, (int64_t)y->start, (int64_t)y->end);
	v[ix.y_device].null = 1;	/* the record names the context, not the device */
	put(v, ix.y_context, y->contextId);
	put(v, ix.y_stream, y->streamId);
	v[ix.y_stream].null = y->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE ||
			      y->streamId == (uint32_t)-1;
	put(v, ix.y_corr, y->correlationId);
	put(v, ix.y_kind, y->type);
	put(v, ix.y_event, y->cudaEventId);
	return wire_add(a->w, R_SYNC, v);
}

static int memory(struct act *a, const CUpti_ActivityMemory4 *m)
{
	struct value *v = blank(R_MEMORY);
	put(v, ix.m_ts, (int64_t)m->timestamp);
	put(v, ix.m_device, m->deviceId);
	put(v, ix.m_context, m->contextId);
	put(v, ix.m_stream, m->streamId);
	v[ix.m_stream].null = !m->isAsync;
	put(v, ix.m_corr, m->correlationId);
	put(v, ix.m_op, m->memoryOperationType);
	put(v, ix.m_kind, m->memoryKind);
	put(v, ix.m_addr, (int64_t)m->address);
	put(v, ix.m_bytes, (int64_t)m->bytes);
	put(v, ix.m_pc, (int64_t)m->PC);
	put(v, ix.m_site, wire_string(a->w, m->name));
	put(v, ix.m_async, m->isAsync);
	return wire_add(a->w, R_MEMORY, v);
}

/*
 * The string id of an API call's name as api records carry it: CUPTI's name without its API version
 * ("cudaLaunchKernel_v7000" is "cudaLaunchKernel"); "(unknown call)" for NULL.
 */
static int64_t call_name(struct wire *w, const char *name)
{
	char tmp[256];
	const char *v = name ? strrchr(name, '_') : NULL;
	size_t n;
	if (!name)
		return wire_string(w, "(unknown call)");
	if (!v || v[1] != 'v' || !v[2] || strspn(v + 2, "0123456789") != strlen(v + 2))
		return wire_string(w, name);
	n = (size_t)(v - name) < sizeof(tmp) - 1 ? (size_t)(v - name) : sizeof(tmp) - 1;
	memcpy(tmp, name, n);
	tmp[n] = '\0';
	return wire_string(w, tmp);
}

static int api(struct act *a, const CUpti_ActivityAPI *c, int domain)
{
	struct value *v = blank(R_API);
	const char *name = NULL;
	put(v, ix.a_start, (int64_t)c->start);
	put(v, ix.a_end, (int64_t)c->end);
	put(v, ix.a_thread, c->threadId);
	put(v, ix.a_corr, c->correlationId);
	cuptiGetCallbackName(domain == 1 ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, c->cbid, &name);
	put(v, ix.a_name, call_name(a->w, name));
	put(v, ix.a_cbid, c->cbid);
	put(v, ix.a_domain, domain);
	return wire_add(a->w, R_API, v);
}

/* Depth of the next range on thread t: how many of its ranges are open. */
static int open_depth(const struct act *a, int64_t thread)
{
	size_t i;
	int d = 0;
	for (i = 0; i < a->nopen; i++)
		d += a->open[i].thread == thread;
	return d;
}

static int write_range(struct act *a, const struct open_range *r, int64_t end, int64_t end_thread, int ended)
{
	struct value *v = blank(R_RANGE);
	int pushpop = !ended || end_thread == r->thread;
	put(v, ix.r_start, r->start);
	if (ended)
		put(v, ix.r_end, end);
	put(v, ix.r_thread, r->thread);
	put(v, ix.r_name, r->name);
	put(v, ix.r_domain, r->domain);
	put(v, ix.r_kind, pushpop ? 1 : 2);
	if (pushpop)
		put(v, ix.r_depth, r->depth);
	put(v, ix.r_id, r->id);
	return wire_add(a->w, R_RANGE, v);
}

static int marker(struct act *a, const CUpti_ActivityMarker2 *m)
{
	int64_t thread = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
	size_t i;
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
		struct value *v = blank(R_MARKER);
		put(v, ix.n_ts, (int64_t)m->timestamp);
		put(v, ix.n_thread, thread);
		put(v, ix.n_name, wire_string(a->w, m->name ? m->name : ""));
		put(v, ix.n_domain, wire_string(a->w, m->domain));
		return wire_add(a->w, R_MARKER, v);
	}
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
		struct open_range *r;
		if (ALLOC_GROW_SOFT(a->open, a->nopen + 1, a->aopen)) {
			wire_nomem(a->w, R_RANGE, 1);	/* its END finds no START: dropped */
			return 0;
		}
		r = &a->open[a->nopen];
		r->id = m->id;
		r->start = (int64_t)m->timestamp;
		r->thread = thread;
		r->name = wire_string(a->w, m->name ? m->name : "");
		r->domain = wire_string(a->w, m->domain);
		r->depth = open_depth(a, thread);
		a->nopen++;
		return 0;
	}
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
		for (i = a->nopen; i-- > 0;) {
			if (a->open[i].id == m->id) {
				struct open_range r = a->open[i];
				memmove(&a->open[i], &a->open[i + 1], (a->nopen - i - 1) * sizeof(*a->open));
				a->nopen--;
				return write_range(a, &r, (int64_t)m->timestamp, thread, 1);
			}
		}
	}
	return 0;	/* an END without START (started before capture), or sync markers */
}

/*
 * The string id of the NVTX path open on thread t (act_alloc_fail): its open ranges in start order, ties
 * in the order their STARTs came. range_path nests ranges so: an open range contains every range that
 * starts after it, and a range that has ended contains none that is open. 0 when none is open, or when a
 * name or the memory for the path is missing.
 */
static int64_t open_path(struct act *a, int64_t t)
{
	struct buf path, name;
	size_t i, prev = SIZE_MAX;
	int64_t id = 0;
	int missing = 0;
	buf_init(&path);
	buf_init(&name);
	for (;;) {
		size_t next = SIZE_MAX;
		const char *text;
		for (i = 0; i < a->nopen; i++) {
			const struct open_range *r = &a->open[i];
			if (r->thread != t)
				continue;
			if (prev != SIZE_MAX && (r->start < a->open[prev].start ||
						 (r->start == a->open[prev].start && i <= prev)))
				continue;	/* before the last one taken */
			if (next == SIZE_MAX || r->start < a->open[next].start)
				next = i;
		}
		if (next == SIZE_MAX)
			break;
		if (!(text = wire_text(a->w, a->open[next].name)))
			missing = 1;	/* its name found no memory */
		else
			range_name_clean(text, &name);	/* fold_name, as the analyses name ranges */
		if (missing || name.failed)
			break;
		if (prev != SIZE_MAX)
			buf_addch(&path, '/');
		buf_add(&path, name.s, name.len);
		prev = next;
	}
	if (prev != SIZE_MAX && !missing && !name.failed && !path.failed)
		id = wire_string(a->w, path.s);
	buf_release(&path);
	buf_release(&name);
	return id > 0 ? id : 0;
}

int act_alloc_fail(struct act *a, const struct oom_event *e)
{
	struct value *v = blank(R_ALLOC_FAIL);	/* the allocator's totals: the collector has none */
	put(v, ix.f_ts, e->ts);
	put(v, ix.f_device, e->device);
	put(v, ix.f_thread, e->thread);
	put(v, ix.f_corr, e->correlation);
	put(v, ix.f_bytes, e->bytes);
	put(v, ix.f_call, e->call ? call_name(a->w, e->call) : 0);
	put(v, ix.f_cbid, e->cbid);
	put(v, ix.f_domain, e->domain);
	put(v, ix.f_result, e->result);
	put(v, ix.f_kind, e->mem_kind);
	put(v, ix.f_path, open_path(a, e->thread));
	return wire_add(a->w, R_ALLOC_FAIL, v);
}

static int device(struct act *a, const CUpti_ActivityDevice5 *d)
{
	struct value *v = blank(R_DEVICE);
	char uuid[48];
	const unsigned char *u = (const unsigned char *)d->uuid.bytes;
	snprintf(uuid, sizeof(uuid), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	put(v, ix.d_id, d->id);
	v[ix.d_name].s = d->name ? d->name : "";
	v[ix.d_uuid].s = uuid;
	put(v, ix.d_ccmaj, d->computeCapabilityMajor);
	put(v, ix.d_ccmin, d->computeCapabilityMinor);
	put(v, ix.d_sms, d->numMultiprocessors);
	put(v, ix.d_mem, (int64_t)d->globalMemorySize);
	put(v, ix.d_clock, d->coreClockRate);
	put(v, ix.d_bw, (int64_t)d->globalMemoryBandwidth);
	put(v, ix.d_threads, (int64_t)((uint64_t)d->maxWarpsPerMultiprocessor * d->numThreadsPerWarp & INT64_MAX));
	put(v, ix.d_regs, d->maxRegistersPerMultiprocessor);
	put(v, ix.d_smem, d->maxSharedMemoryPerMultiprocessor);
	return wire_add(a->w, R_DEVICE, v);
}

/*
 * What CUPTI and the driver cost (buffer flushes, instrumentation, lazy loading, ...). An overhead CUPTI
 * could not time (0 and 0), or one whose interval is none, keeps its kind and object with null times.
 * The object fills the fields it names; the rest stay none (F_OPT: NULL in the database).
 */
static int overhead(struct act *a, const CUpti_ActivityOverhead3 *o)
{
	struct value *v = blank(R_OVERHEAD);
	if (o->start && o->end >= o->start) {
		put(v, ix.o_start, (int64_t)o->start);
		put(v, ix.o_end, (int64_t)o->end);
	}
	put(v, ix.o_kind, o->overheadKind);
	put(v, ix.o_object, o->objectKind);
	v[ix.o_thread].null = v[ix.o_device].null = v[ix.o_context].null = v[ix.o_stream].null = 1;
	switch (o->objectKind) {
	case CUPTI_ACTIVITY_OBJECT_THREAD:
		put(v, ix.o_thread, o->objectId.pt.threadId);
		break;
	case CUPTI_ACTIVITY_OBJECT_STREAM:
		put(v, ix.o_stream, o->objectId.dcs.streamId);
		/* fall through */
	case CUPTI_ACTIVITY_OBJECT_CONTEXT:
		put(v, ix.o_context, o->objectId.dcs.contextId);
		/* fall through */
	case CUPTI_ACTIVITY_OBJECT_DEVICE:
		put(v, ix.o_device, o->objectId.dcs.deviceId);
		break;
	default:
		break;	/* the process (the file's own) or unknown */
	}
	put(v, ix.o_corr, o->correlationId);
	return wire_add(a->w, R_OVERHEAD, v);
}

/* One record; 0, or -1 on a write error. */
static int record(struct act *a, CUpti_Activity *r)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return kernel(a, (const CUpti_ActivityKernel10 *)r);
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *c = (const void *)r;
		uint32_t ids[4] = { c->deviceId, c->contextId, c->streamId, c->correlationId };
		return copy(a, (int64_t)c->start, (int64_t)c->end, ids, c->copyKind, c->srcKind, c->dstKind, c->bytes,
			    -1, -1, !!(c->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC));
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY2: {
		const CUpti_ActivityMemcpyPtoP4 *c = (const void *)r;
		uint32_t ids[4] = { c->deviceId, c->contextId, c->streamId, c->correlationId };
		return copy(a, (int64_t)c->start, (int64_t)c->end, ids, c->copyKind, c->srcKind, c->dstKind, c->bytes,
			    c->srcDeviceId, c->dstDeviceId, !!(c->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC));
	}
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return memset_(a, (const CUpti_ActivityMemset4 *)r);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return sync_(a, (const CUpti_ActivitySynchronization2 *)r);
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		return memory(a, (const CUpti_ActivityMemory4 *)r);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		return api(a, (const CUpti_ActivityAPI *)r, 1);
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return api(a, (const CUpti_ActivityAPI *)r, 2);
	case CUPTI_ACTIVITY_KIND_MARKER:
		return marker(a, (const CUpti_ActivityMarker2 *)r);
	case CUPTI_ACTIVITY_KIND_DEVICE:
		return device(a, (const CUpti_ActivityDevice5 *)r);
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return overhead(a, (const CUpti_ActivityOverhead3 *)r);
	default:
		return 0;	/* a kind this collector does not convert */
	}
}

/* Free, once, what a record holds that CUPTI leaves to its client: an overhead's overheadData. */
static void release(CUpti_Activity *r)
{
	if (r->kind == CUPTI_ACTIVITY_KIND_OVERHEAD) {
		CUpti_ActivityOverhead3 *o = (CUpti_ActivityOverhead3 *)r;
		free(o->overheadData);
		o->overheadData = NULL;
	}
}

int64_t act_buffer(struct act *a, uint8_t *buffer, size_t valid)
{
	CUpti_Activity *r = NULL;
	int64_t n = 0;
	int failed = 0;
	while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
		if (!failed) {
			if (record(a, r))
				failed = 1;	/* the rest is not converted, but what it holds is still freed */
			else
				n++;
		}
		release(r);
	}
	return failed ? -1 : n;
}

void act_release(uint8_t *buffer, size_t valid)
{
	CUpti_Activity *r = NULL;
	while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS)
		release(r);
}

int64_t act_cut_ranges(struct act *a)
{
	int64_t n = (int64_t)a->nopen;
	a->nopen = 0;
	return n;
}

int act_finish(struct act *a)
{
	size_t i;
	int rc = 0;
	for (i = 0; i < a->nopen; i++)
		rc |= write_range(a, &a->open[i], 0, 0, 0);
	free(a->open);
	a->open = NULL;
	a->nopen = a->aopen = 0;
	return rc ? -1 : 0;
}
