#include "oom.h"
#include "util.h"

#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>	/* the calls' parameter structures come with cupti.h (generated_cuda*_meta.h) */

#define OUT_OF_MEMORY 2	/* cudaErrorMemoryAllocation and CUDA_ERROR_OUT_OF_MEMORY alike */

/* The bytes a call's parameters ask for. */
typedef int64_t (*size_fn)(const void *params);

#define SIZE_OF(fn, type, expr) \
	static int64_t fn(const void *params) { const type *p = params; return (int64_t)(expr); }
SIZE_OF(rt_malloc, cudaMalloc_v3020_params, p->size)
SIZE_OF(rt_pitch, cudaMallocPitch_v3020_params, p->width * p->height)
SIZE_OF(rt_3d, cudaMalloc3D_v3020_params, p->extent.width * p->extent.height * p->extent.depth)
SIZE_OF(rt_managed, cudaMallocManaged_v6000_params, p->size)
SIZE_OF(rt_async, cudaMallocAsync_v11020_params, p->size)
SIZE_OF(rt_async_ptsz, cudaMallocAsync_ptsz_v11020_params, p->size)
SIZE_OF(rt_pool, cudaMallocFromPoolAsync_v11020_params, p->size)
SIZE_OF(rt_pool_ptsz, cudaMallocFromPoolAsync_ptsz_v11020_params, p->size)
SIZE_OF(dr_alloc, cuMemAlloc_v2_params, p->bytesize)
SIZE_OF(dr_pitch, cuMemAllocPitch_v2_params, p->WidthInBytes * p->Height)
SIZE_OF(dr_managed, cuMemAllocManaged_params, p->bytesize)
SIZE_OF(dr_async, cuMemAllocAsync_params, p->bytesize)
SIZE_OF(dr_async_ptsz, cuMemAllocAsync_ptsz_params, p->bytesize)
SIZE_OF(dr_pool, cuMemAllocFromPoolAsync_params, p->bytesize)
SIZE_OF(dr_pool_ptsz, cuMemAllocFromPoolAsync_ptsz_params, p->bytesize)
SIZE_OF(dr_create, cuMemCreate_params, p->size)
#undef SIZE_OF

/* The allocation calls watched: device (and managed) memory by size; host memory and arrays are not. */
static const struct alloc_call {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	int mem_kind;		/* CUPTI memory kind */
	size_fn size;
} calls[] = {
	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 3, rt_malloc },
	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020, 3, rt_pitch },
	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc3D_v3020, 3, rt_3d },
	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000, 5, rt_managed },
	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, 3, rt_async },
	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020, 3, rt_async_ptsz },
	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020, 3, rt_pool },
	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020, 3, rt_pool_ptsz },
	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, 3, dr_alloc },
	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, 3, dr_pitch },
	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged, 5, dr_managed },
	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, 3, dr_async },
	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz, 3, dr_async_ptsz },
	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync, 3, dr_pool },
	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, 3, dr_pool_ptsz },
	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemCreate, 3, dr_create },
};

/* Runtime allocation calls in progress on this thread: a driver call inside one is not its own event. */
static __thread int in_runtime_alloc;

static const struct alloc_call *find_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	size_t i;
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].domain == domain && calls[i].cbid == cbid)
			return &calls[i];
	return NULL;
}

int oom_enable(CUpti_SubscriberHandle s)
{
	size_t i;
	int n = 0;
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		n += cuptiEnableCallback(1, s, calls[i].domain, calls[i].cbid) == CUPTI_SUCCESS;
	return n;
}

/*
 * This thread as CUPTI's records name it: gettid() when CUPTI was told to use the system's ids, else
 * pthread_self(), which CUPTI's 32-bit threadId fields hold cut to their low 32 bits.
 */
static int64_t thread_id(void)
{
	CUpti_ActivityThreadIdType type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
	if (cuptiGetThreadIdType(&type) == CUPTI_SUCCESS && type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
		return (int64_t)syscall(SYS_gettid);
	return (int64_t)(uint32_t)(uintptr_t)pthread_self();
}

/* The device a failed call was for: cuMemCreate's location when it names a device, else its context's. */
static int64_t call_device(CUpti_CallbackId cbid, CUpti_CallbackDomain domain, const CUpti_CallbackData *d)
{
	uint32_t dev;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuMemCreate && d->functionParams) {
		const cuMemCreate_params *p = d->functionParams;
		if (p->prop && p->prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
			return p->prop->location.id;
	}
	if (d->context && cuptiGetDeviceId(d->context, &dev) == CUPTI_SUCCESS)
		return dev;
	return -1;
}

int oom_from_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData *d,
		      struct oom_event *e)
{
	const struct alloc_call *c = find_call(domain, cbid);
	const char *name = NULL;
	uint64_t ts = 0;
	int result;
	if (!c || !d)
		return 0;
	if (d->callbackSite == CUPTI_API_ENTER) {
		in_runtime_alloc += domain == CUPTI_CB_DOMAIN_RUNTIME_API;
		return 0;
	}
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && in_runtime_alloc > 0)
		in_runtime_alloc--;
	else if (in_runtime_alloc > 0)
		return 0;	/* inside a runtime allocation: that call's return says it */
	if (!d->functionReturnValue || !d->functionParams)
		return 0;
	memcpy(&result, d->functionReturnValue, sizeof(result));	/* a cudaError_t or CUresult: an enum */
	if (result != OUT_OF_MEMORY)
		return 0;
	memset(e, 0, sizeof(*e));
	e->ts = cuptiGetTimestamp(&ts) == CUPTI_SUCCESS && ts ? (int64_t)ts : realtime_ns();
	e->device = call_device(cbid, domain, d);
	e->thread = thread_id();
	e->correlation = d->correlationId;
	e->bytes = c->size(d->functionParams);
	if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS)
		e->call = name;
	e->cbid = (int)cbid;
	e->domain = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? 1 : 2;
	e->result = result;
	e->mem_kind = c->mem_kind;
	return 1;
}
