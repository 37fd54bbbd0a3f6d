/*
 * oom: device allocations that fail for want of memory, from CUPTI's API callbacks. The size a call asked
 * for is one of its parameters, which only the callback at its return sees (CUPTI's API activity record of
 * the call carries its return code, not its size): inject.c enables these callbacks (oom_enable), turns
 * each return into an event here (oom_from_callback), flushes what CUPTI holds and writes the event with
 * the NVTX path then open on its thread (activity.c's act_alloc_fail). Tests feed hand-built
 * CUpti_CallbackData through the same functions.
 *
 * Ownership: an oom_event holds no memory; its call name is CUPTI's (static). Per-thread state (a runtime
 * allocation in progress, whose driver call inside must not count twice) lives in thread-local storage.
 */
#ifndef GPUPROF_OOM_H
#define GPUPROF_OOM_H

#include <stdint.h>
#include <cupti.h>

struct oom_event {
	int64_t ts;		/* when the call returned: absolute ns, CUPTI's clock */
	int64_t device;		/* CUDA ordinal, -1 when unknown */
	int64_t thread;		/* the calling thread as CUPTI's activity records name it */
	int64_t correlation;	/* the call's CUPTI correlation id */
	int64_t bytes;		/* bytes requested */
	const char *call;	/* CUPTI's name of the call ("cudaMalloc_v3020"), or NULL */
	int cbid, domain;	/* CUPTI callback id; 1 runtime, 2 driver */
	int result;		/* the return code: cudaError_t or CUresult */
	int mem_kind;		/* CUPTI memory kind: 3 device, 5 managed */
};

/* Enable the callbacks of every allocation call this module knows on subscriber s; how many were enabled. */
int oom_enable(CUpti_SubscriberHandle s);
/*
 * One API callback: 1 when it is the return of an allocation call that failed for want of memory (e
 * filled), else 0. A driver call made inside a runtime allocation call on the same thread gives 0: the
 * runtime call's return gives the event.
 */
int oom_from_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData *d,
		      struct oom_event *e);

#endif
