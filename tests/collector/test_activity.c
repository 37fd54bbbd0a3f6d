/*
 * Hand-built CUPTI activity buffers of the real CUDA 13 record types, fed through the collector's own
 * buffer path (act_buffer, which walks them with CUPTI's cuptiActivityGetNextRecord), written as wire
 * format. Prints, as JSON on stdout, every value it planted; tests/collector.py ingests the file and
 * compares field by field. Failed allocations the same way: hand-built CUpti_CallbackData with the
 * calls' real parameter structures through oom.c, beside the API record CUPTI writes of the same call.
 *   test_activity OUT.ndjson > expected.json
 */
#include "activity.h"
#include "oom.h"
#include "util.h"
#include "wire.h"

#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORIGIN 1763822038000000000ULL

static uint8_t *buf;
static size_t used;

/* Append one record, 8-byte aligned as CUPTI lays them out. */
static void *add(size_t size)
{
	void *p = buf + used;
	memset(p, 0, size);
	used += (size + 7) & ~(size_t)7;
	return p;
}

/* Append an OVERHEAD record of kind on an object of kind object, at ORIGIN + start ... end (0, 0: untimed). */
static CUpti_ActivityOverhead3 *add_overhead(CUpti_ActivityOverheadKind kind, CUpti_ActivityObjectKind object,
					     uint64_t start, uint64_t end, uint32_t correlation)
{
	CUpti_ActivityOverhead3 *o = add(sizeof(*o));
	o->kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	o->overheadKind = kind;
	o->objectKind = object;
	o->start = start || end ? ORIGIN + start : 0;
	o->end = start || end ? ORIGIN + end : 0;
	o->correlationId = correlation;
	return o;
}

/* Append the START marker of NVTX range id on thread at ORIGIN + t. */
static void add_start(uint32_t id, uint64_t t, uint32_t thread, const char *name)
{
	CUpti_ActivityMarker2 *mk = add(sizeof(*mk));
	mk->kind = CUPTI_ACTIVITY_KIND_MARKER;
	mk->flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
	mk->timestamp = ORIGIN + t;
	mk->id = id;
	mk->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	mk->objectId.pt.processId = 1234;
	mk->objectId.pt.threadId = thread;
	mk->name = name;
}

/* Append a runtime API record of thread 5555 in process 1234, at ORIGIN + start ... end. */
static CUpti_ActivityAPI *add_api(CUpti_CallbackId cbid, uint64_t start, uint64_t end, uint32_t correlation)
{
	CUpti_ActivityAPI *api = add(sizeof(*api));
	api->kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	api->cbid = cbid;
	api->start = ORIGIN + start;
	api->end = ORIGIN + end;
	api->processId = 1234;
	api->threadId = 5555;
	api->correlationId = correlation;
	return api;
}

static int oom_calls, oom_events;
static uint64_t oom_before, oom_after;

/*
 * One allocation call through oom.c's callback path: ENTER, what runs inside it, EXIT returning result.
 * An event is written at ORIGIN + at (its own time, CUPTI's clock, is checked to lie within the call).
 */
static void alloc_call(struct act *a, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, uint32_t corr,
		       void *params, int result, int64_t at, void (*inside)(struct act *))
{
	CUpti_CallbackData d;
	struct oom_event e;
	uint64_t before = 0, after = 0;
	memset(&d, 0, sizeof(d));
	d.correlationId = corr;
	d.functionParams = params;
	d.functionReturnValue = &result;
	d.callbackSite = CUPTI_API_ENTER;
	oom_calls++;
	oom_events += oom_from_callback(domain, cbid, &d, &e);	/* an entry: never an event */
	if (inside)
		inside(a);
	d.callbackSite = CUPTI_API_EXIT;
	cuptiGetTimestamp(&before);
	if (oom_from_callback(domain, cbid, &d, &e)) {
		cuptiGetTimestamp(&after);
		oom_events++;
		if (e.ts < (int64_t)before || e.ts > (int64_t)after)
			oom_before = before, oom_after = after;	/* reported: the time is not CUPTI's */
		e.ts = (int64_t)ORIGIN + at;
		act_alloc_fail(a, &e);
	}
}

/* The driver call a failing cudaMallocPitch makes: it fails too, and must not count twice. */
static void pitch_inside(struct act *a)
{
	cuMemAllocPitch_v2_params p = { NULL, NULL, 1 << 20, 3000, 4 };
	alloc_call(a, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, 0, &p,
		   CUDA_ERROR_OUT_OF_MEMORY, 11400, NULL);
}

/*
 * Failed and other allocations: cudaMallocPitch failing inside the driver (correlation 50: its API record
 * is in the buffer, with the return code), cuMemCreate on device 1 (51), cudaMallocManaged (52),
 * cudaMallocAsync (53) out of memory; a cudaMalloc3D that succeeds and a cudaMalloc that fails with
 * an invalid value, neither recorded. Each failure is written with a's ranges open on this thread.
 */
static void alloc_failures(struct act *a)
{
	cudaMallocPitch_v3020_params pitch = { NULL, NULL, 1 << 20, 3000 };
	cudaMallocManaged_v6000_params managed = { NULL, 123456789, 1 };
	cudaMallocAsync_v11020_params async = { NULL, 777, NULL };
	cudaMalloc3D_v3020_params m3d;
	cudaMalloc_v3020_params bad = { NULL, (size_t)1 << 62 };
	CUmemAllocationProp prop;
	cuMemCreate_params create = { NULL, (size_t)1 << 30, &prop, 0 };
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 1;
	memset(&m3d, 0, sizeof(m3d));
	m3d.extent.width = m3d.extent.height = m3d.extent.depth = 64;
	alloc_call(a, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020, 50, &pitch,
		   cudaErrorMemoryAllocation, 11600, pitch_inside);
	alloc_call(a, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemCreate, 51, &create,
		   CUDA_ERROR_OUT_OF_MEMORY, 12000, NULL);
	alloc_call(a, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000, 52, &managed,
		   cudaErrorMemoryAllocation, 12500, NULL);
	alloc_call(a, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, 53, &async,
		   cudaErrorMemoryAllocation, 13000, NULL);
	alloc_call(a, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc3D_v3020, 54, &m3d, cudaSuccess,
		   13500, NULL);
	alloc_call(a, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 55, &bad,
		   cudaErrorInvalidValue, 14000, NULL);
}

int main(int argc, char **argv)
{
	struct wire_header h = { "activity-test", "gpuprof test", "test_activity", NULL, 1234, 1, "testhost", "trace",
				 NULL, (int64_t)ORIGIN };
	CUpti_ActivityDevice5 *dev;
	CUpti_ActivityKernel10 *k;
	CUpti_ActivityMemcpy6 *c;
	CUpti_ActivityMemcpyPtoP4 *p;
	CUpti_ActivityMemset4 *ms;
	CUpti_ActivitySynchronization2 *sy;
	CUpti_ActivityMemory4 *m;
	CUpti_ActivityAPI *api;
	CUpti_ActivityMarker2 *mk;
	CUpti_ActivityOverhead3 *ov, *full;
	CUpti_ActivityOverheadCommandBufferFullData *data;
	uint8_t *spare;
	size_t spare_used;
	struct wire *w;
	struct act a, b;
	size_t start;
	int64_t n;
	const char *launch = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: test_activity OUT.ndjson\n");
		return 2;
	}
	util_init(argv[0]);
	buf = aligned_alloc(8, 1 << 20);
	remove(argv[1]);
	w = wire_open(argv[1], &h);
	if (!w) {
		perror(argv[1]);
		return 4;
	}
	act_init(&a, w);

	dev = add(sizeof(*dev));
	dev->kind = CUPTI_ACTIVITY_KIND_DEVICE;
	dev->id = 0;
	dev->name = "NVIDIA H100 80GB HBM3";
	dev->computeCapabilityMajor = 9;
	dev->computeCapabilityMinor = 0;
	dev->numMultiprocessors = 132;
	dev->globalMemorySize = 84929347584ULL;
	dev->coreClockRate = 1980000;
	dev->globalMemoryBandwidth = 3352320000ULL;
	dev->maxWarpsPerMultiprocessor = 64;
	dev->numThreadsPerWarp = 32;
	dev->maxRegistersPerMultiprocessor = 65536;
	dev->maxSharedMemoryPerMultiprocessor = 233472;
	memcpy(dev->uuid.bytes, "\x8a\x1f\x0c\x2e\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb", 16);

	k = add(sizeof(*k));
	k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k->start = ORIGIN + 10000;
	k->end = ORIGIN + 20000;
	k->completed = k->end;
	k->deviceId = 0;
	k->contextId = 1;
	k->streamId = 7;
	k->correlationId = 42;
	k->gridX = 4096; k->gridY = 2; k->gridZ = 1;
	k->blockX = 256; k->blockY = 1; k->blockZ = 1;
	k->clusterX = 2; k->clusterY = 1; k->clusterZ = 1;
	k->registersPerThread = 40;
	k->staticSharedMemory = 1024;
	k->dynamicSharedMemory = 49152;
	k->localMemoryPerThread = 16;
	k->graphId = 3;
	k->graphNodeId = 77;
	k->name = "_Z5saxpyifPKfPf";

	k = add(sizeof(*k));
	k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k->start = ORIGIN + 30000;
	k->end = 0;	/* still running at a forced flush: dropped and counted */
	k->name = "unfinished";

	c = add(sizeof(*c));
	c->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	c->copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	c->srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	c->dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	c->flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	c->bytes = 1 << 20;
	c->start = ORIGIN + 3000;
	c->end = ORIGIN + 4000;
	c->deviceId = 0; c->contextId = 1; c->streamId = 7; c->correlationId = 40;

	p = add(sizeof(*p));
	p->kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
	p->copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
	p->srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	p->dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	p->bytes = 4096;
	p->start = ORIGIN + 5000;
	p->end = ORIGIN + 5500;
	p->deviceId = 0; p->contextId = 1; p->streamId = 9; p->correlationId = 41;
	p->srcDeviceId = 0;
	p->dstDeviceId = 1;

	ms = add(sizeof(*ms));
	ms->kind = CUPTI_ACTIVITY_KIND_MEMSET;
	ms->value = 255;
	ms->bytes = 8192;
	ms->start = ORIGIN + 6000;
	ms->end = ORIGIN + 6100;
	ms->deviceId = 0; ms->contextId = 1; ms->streamId = 7; ms->correlationId = 43;
	ms->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;

	sy = add(sizeof(*sy));
	sy->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	sy->type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	sy->start = ORIGIN + 21000;
	sy->end = ORIGIN + 22000;
	sy->correlationId = 44; sy->contextId = 1; sy->streamId = 7; sy->cudaEventId = 0;

	m = add(sizeof(*m));
	m->kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	m->memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
	m->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m->correlationId = 39;
	m->address = 0x7f1200000000ULL;
	m->bytes = 1 << 20;
	m->timestamp = ORIGIN + 1500;
	m->PC = 0x401234;
	m->deviceId = 0; m->contextId = 1; m->streamId = 0;
	m->name = "cudaMalloc";

	m = add(sizeof(*m));
	m->kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	m->memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
	m->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m->correlationId = 45;
	m->address = 0x7f1200000000ULL;
	m->bytes = 1 << 20;
	m->timestamp = ORIGIN + 23000;
	m->deviceId = 0; m->contextId = 1;
	m->isAsync = 1;
	m->streamId = 7;

	api = add_api(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 9000, 9500, 42);
	cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, api->cbid, &launch);
	/* The API record of the failed cudaMallocPitch below: its return code, no size. */
	api = add_api(CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020, 11000, 11600, 50);
	api->returnValue = cudaErrorMemoryAllocation;

	/* NVTX: "step" contains "forward"; an instant marker; a range never ended. */
	mk = add(sizeof(*mk));
	mk->kind = CUPTI_ACTIVITY_KIND_MARKER;
	mk->flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
	mk->timestamp = ORIGIN + 1000;
	mk->id = 1;
	mk->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	mk->objectId.pt.processId = 1234;
	mk->objectId.pt.threadId = 5555;
	mk->name = "step";
	mk = add(sizeof(*mk));
	mk->kind = CUPTI_ACTIVITY_KIND_MARKER;
	mk->flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
	mk->timestamp = ORIGIN + 2000;
	mk->id = 2;
	mk->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	mk->objectId.pt.threadId = 5555;
	mk->name = "forward";
	mk->domain = "mydomain";
	mk = add(sizeof(*mk));
	mk->kind = CUPTI_ACTIVITY_KIND_MARKER;
	mk->flags = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
	mk->timestamp = ORIGIN + 2500;
	mk->id = 3;
	mk->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	mk->objectId.pt.threadId = 5555;
	mk->name = "checkpoint";
	mk = add(sizeof(*mk));
	mk->kind = CUPTI_ACTIVITY_KIND_MARKER;
	mk->flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
	mk->timestamp = ORIGIN + 25000;
	mk->id = 2;
	mk->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	mk->objectId.pt.threadId = 5555;
	mk = add(sizeof(*mk));
	mk->kind = CUPTI_ACTIVITY_KIND_MARKER;
	mk->flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
	mk->timestamp = ORIGIN + 26000;
	mk->id = 1;
	mk->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	mk->objectId.pt.threadId = 5555;
	mk = add(sizeof(*mk));
	mk->kind = CUPTI_ACTIVITY_KIND_MARKER;
	mk->flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
	mk->timestamp = ORIGIN + 27000;
	mk->id = 4;
	mk->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	mk->objectId.pt.threadId = 5556;
	mk->name = "never ends";

	/*
	 * CUPTI's own overheads: a buffer flush on CUPTI's thread, UVM set-up on a device, lazy loading on a
	 * context, a full command buffer on a stream (its details malloc'd, as CUPTI hands them over: the
	 * collector must free them once), and an activity buffer request CUPTI could not time (0 and 0).
	 */
	ov = add_overhead(CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH, CUPTI_ACTIVITY_OBJECT_THREAD, 31000, 33500, 0);
	ov->objectId.pt.processId = 1234;
	ov->objectId.pt.threadId = 5560;
	ov = add_overhead(CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT, CUPTI_ACTIVITY_OBJECT_DEVICE, 500, 800, 0);
	ov->objectId.dcs.deviceId = 1;
	ov->objectId.dcs.contextId = 99;	/* not part of a device object: ignored */
	ov = add_overhead(CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING, CUPTI_ACTIVITY_OBJECT_CONTEXT, 9100, 9400, 42);
	ov->objectId.dcs.deviceId = 0;
	ov->objectId.dcs.contextId = 1;
	full = add_overhead(CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL, CUPTI_ACTIVITY_OBJECT_STREAM, 9200, 9300, 42);
	full->objectId.dcs.deviceId = 0;
	full->objectId.dcs.contextId = 1;
	full->objectId.dcs.streamId = 7;
	data = xcalloc(1, sizeof(*data));
	data->channelID = 3;
	full->overheadData = data;
	ov = add_overhead(CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST, CUPTI_ACTIVITY_OBJECT_PROCESS, 0, 0, 0);
	ov->objectId.pt.processId = 1234;	/* times 0 and 0: CUPTI could not time it */

	n = act_buffer(&a, buf, used);
	act_finish(&a);
	/*
	 * The failed allocations, while this thread has two ranges open (PyTorch's counter in the inner one's
	 * name, started last) and another thread one between them: their path is this thread's. Then the ranges
	 * are cut, never written (the ranges above stay the session's only ones).
	 */
	start = used;
	add_start(20, 1000, (uint32_t)(uintptr_t)pthread_self(), "train");
	add_start(21, 1050, 5557, "other thread");
	add_start(22, 1100, (uint32_t)(uintptr_t)pthread_self(), "forward, seq = 7");
	act_init(&b, w);
	act_buffer(&b, buf + start, used - start);
	alloc_failures(&b);
	act_cut_ranges(&b);
	act_finish(&b);
	/* act_buffer freed the details and forgot them: releasing the buffer again frees nothing twice. */
	printf("{\"overhead_data_released\": %s,\n", full->overheadData ? "false" : "true");
	act_release(buf, used);

	/* A buffer dropped unconverted (the collector's queue full): act_release frees what it holds. */
	spare = buf + used;
	spare_used = used;
	ov = add_overhead(CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL, CUPTI_ACTIVITY_OBJECT_STREAM, 0, 0, 0);
	ov->overheadData = xcalloc(1, sizeof(*data));
	act_release(spare, used - spare_used);
	printf(" \"dropped_overhead_data_released\": %s,\n", ov->overheadData ? "false" : "true");
	if (a.incomplete)
		wire_drops(w, (int64_t)ORIGIN + 30000, "cupti", "unfinished records", a.incomplete);
	wire_close(w, (int64_t)ORIGIN + 40000, 1);

	/* What was planted, as the database should show it (absolute ns). */
	printf(" \"records_walked\": %lld, \"origin\": %llu, \"launch_name\": \"%s\",\n", (long long)n,
	       (unsigned long long)ORIGIN, launch ? launch : "");
	printf(" \"kernel\": {\"start_ns\": %llu, \"end_ns\": %llu, \"device_id\": 0, \"context_id\": 1, \"stream_id\": 7,"
	       " \"correlation_id\": 42, \"name\": \"saxpy(int, float, float const*, float*)\", \"mangled\": \"_Z5saxpyifPKfPf\","
	       " \"grid_x\": 4096, \"grid_y\": 2, \"grid_z\": 1, \"block_x\": 256, \"block_y\": 1, \"block_z\": 1,"
	       " \"cluster_x\": 2, \"cluster_y\": 1, \"cluster_z\": 1, \"registers\": 40, \"static_smem\": 1024,"
	       " \"dynamic_smem\": 49152, \"local_mem\": 16, \"graph_id\": 3, \"graph_node_id\": 77},\n",
	       ORIGIN + 10000, ORIGIN + 20000);
	printf(" \"memcpys\": [[%llu, %llu, 1, 1, 3, 1048576, null, null, 1, 7], [%llu, %llu, 10, 3, 3, 4096, 0, 1, 0, 9]],\n",
	       ORIGIN + 3000, ORIGIN + 4000, ORIGIN + 5000, ORIGIN + 5500);
	printf(" \"memset\": [%llu, %llu, 8192, 255, 3, 7, 43],\n", ORIGIN + 6000, ORIGIN + 6100);
	printf(" \"sync\": [%llu, %llu, 3, 7, 44],\n", ORIGIN + 21000, ORIGIN + 22000);
	printf(" \"memory\": [[%llu, 1, 3, %llu, 1048576, %d, \"cudaMalloc\", null], [%llu, 2, 3, %llu, 1048576, 0, null, 7]],\n",
	       ORIGIN + 1500, 0x7f1200000000ULL, 0x401234, ORIGIN + 23000, 0x7f1200000000ULL);
	printf(" \"api\": [%llu, %llu, 5555, 42, 211, 1],\n", ORIGIN + 9000, ORIGIN + 9500);
	printf(" \"ranges\": [[\"forward\", %llu, %llu, 5555, 1, 1, \"mydomain\"], [\"never ends\", %llu, null, 5556, 1, 0, null],"
	       " [\"step\", %llu, %llu, 5555, 1, 0, null]],\n",
	       ORIGIN + 2000, ORIGIN + 25000, ORIGIN + 27000, ORIGIN + 1000, ORIGIN + 26000);
	printf(" \"marker\": [\"checkpoint\", %llu, 5555],\n", ORIGIN + 2500);
	printf(" \"device\": [0, \"NVIDIA H100 80GB HBM3\", \"GPU-8a1f0c2e-0011-2233-4455-66778899aabb\", 9, 0, 132, "
	       "84929347584, 1980000, 3352320000, 2048, 65536, 233472],\n");
	/* start, end, kind, object_kind, thread, device, context, stream, correlation, in CUPTI's order */
	printf(" \"overheads\": [[%llu, %llu, %d, 2, 5560, null, null, null, 0], [%llu, %llu, %d, 3, null, 1, null, null, 0],"
	       " [%llu, %llu, %d, 4, null, 0, 1, null, 42], [%llu, %llu, %d, 5, null, 0, 1, 7, 42],"
	       " [null, null, %d, 1, null, null, null, null, 0]],\n",
	       ORIGIN + 31000, ORIGIN + 33500, CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH, ORIGIN + 500, ORIGIN + 800,
	       CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT, ORIGIN + 9100, ORIGIN + 9400,
	       CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING, ORIGIN + 9200, ORIGIN + 9300,
	       CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL, CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST);
	/* ts, device, thread, correlation, bytes, call, cbid, domain, result, mem_kind, path */
	printf(" \"oom_calls\": %d, \"oom_events\": %d, \"oom_clock\": \"%s\",\n", oom_calls, oom_events,
	       oom_before ? "not CUPTI's" : "CUPTI's");
	printf(" \"alloc_failures\": [[%llu, null, %u, 50, 3145728000, \"cudaMallocPitch\", %d, 1, 2, 3, \"train/forward\"],"
	       " [%llu, 1, %u, 51, 1073741824, \"cuMemCreate\", %d, 2, 2, 3, \"train/forward\"],"
	       " [%llu, null, %u, 52, 123456789, \"cudaMallocManaged\", %d, 1, 2, 5, \"train/forward\"],"
	       " [%llu, null, %u, 53, 777, \"cudaMallocAsync\", %d, 1, 2, 3, \"train/forward\"]],\n",
	       ORIGIN + 11600, (unsigned)(uintptr_t)pthread_self(), CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020,
	       ORIGIN + 12000, (unsigned)(uintptr_t)pthread_self(), CUPTI_DRIVER_TRACE_CBID_cuMemCreate,
	       ORIGIN + 12500, (unsigned)(uintptr_t)pthread_self(), CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000,
	       ORIGIN + 13000, (unsigned)(uintptr_t)pthread_self(), CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020);
	printf(" \"dropped_unfinished\": 1}\n");
	free(buf);
	return 0;
}
