/*
 * A stand-in libcupti.so.13 for testing the pcsampling engine without a GPU: the calls libgpuprof.so
 * makes, with the PC Sampling API acting as the header describes it (per context, stall reasons only
 * after Enable, GetData in rounds of at most 3 PCs with remainingNumPcs, a full hardware buffer as
 * CUPTI_ERROR_OUT_OF_MEMORY, Disable flushing into the configuration's buffer). It checks what it is
 * given (size fields, the order of calls, no two calls on one context at once) and fake_cupti_run plays
 * a driver: contexts, a module with a cubin, launches, unloads, a context destroyed. fake_cupti_report
 * prints, as JSON on stdout, what it saw. fake_cupti_work plays a workload's activity: kernel and memcpy
 * records in the buffers the library hands out (records with no buffer are counted as CUPTI drops them);
 * fake_cupti_timeline plays one over time, its records made only while their kind is enabled (trace
 * windows), and fake_cupti_timeline_report says what it launched and recorded; fake_cupti_oom plays
 * allocations that fail for want of memory, with kernel records CUPTI holds until the library flushes.
 * Built with a version script so its symbols carry the
 * libcupti.so.13 version libgpuprof.so asks for; picked up through LD_LIBRARY_PATH.
 */
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define PER_CALL 3	/* PCs one GetData returns at most, whatever was asked */
#define NCTX 2

static const char cubin_a[] = "FAKE-CUBIN-A with line info";
static const uint32_t reason_index[] = { 0, 3, 5, 9 };
static const char *const reason_names[] = {
	"smsp__pcsamp_warps_issue_stalled_barrier", "smsp__pcsamp_warps_issue_stalled_long_scoreboard",
	"smsp__pcsamp_warps_issue_stalled_math_pipe_throttle", "smsp__pcsamp_warps_issue_stalled_wait",
};

static struct fake_ctx {
	CUcontext ctx;
	uint32_t device;
	int enabled, reasons_read, configured, disabled, busy;
	CUpti_PCSamplingData *cfg;	/* the configuration's buffer */
	uint32_t period, mode;
	size_t scratch, hwbuf;
	int pending;			/* PCs sampled, not yet read */
	int next_pc;			/* the next PC to hand out */
	int hwfull;			/* the next GetData finds the hardware buffer full */
} ctxs[NCTX] = {
	{ (CUcontext)0x1000, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0, 0 },
	{ (CUcontext)0x2000, 1, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0, 0 },
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_CallbackFunc callback;
static void *callback_data;
static int enabled_cb[4][1024];		/* [domain][cbid] */
static char violations[8192];
static size_t vlen;
static int getdata_calls, samples_handed, disables, crc_calls, line_calls;
static int totals_handed, nonuser_handed;	/* GetData's totalSamples and nonUsrKernelsTotalSamples, summed */
static char *function_names[2];		/* shared by every record, as CUPTI's are */

/* The activity API's side: buffers handed over and back, what was enabled. */
static CUpti_BuffersCallbackRequestFunc buf_request;
static CUpti_BuffersCallbackCompleteFunc buf_complete;
static int zeroed_attr, kind_enabled[CUPTI_ACTIVITY_KIND_COUNT], api_enabled[2][16];
static int buffers_requested, buffers_dirty, buffers_reused;
static void *nvtx_table;		/* what NVTX's injection entry point was given */
static const char *const api_names[2][8] = {	/* [runtime, driver][cbid]; "fake" beyond */
	{ NULL, "cudaGetDevice_v3020", "cudaLaunchKernel_v7000", "cudaStreamIsCapturing_v10000",
	  "cudaMemcpyAsync_v3020", "cudaPeekAtLastError_v3020", "cudaOccupancyMaxActiveClusters_v11070",
	  "cudaStreamSynchronize_v3020" },
	{ NULL, "cuKernelGetName", "cuLaunchKernel", "cuDevicePrimaryCtxGetState", "cuMemAlloc_v2",
	  "cuLibraryLoadData", "cuCtxIsland_Fake", "cuStreamDisable_Fake" },
};

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	va_list ap;
	char sep = vlen ? ',' : '[';
	if (vlen + 200 >= sizeof(violations))
		return;
	violations[vlen++] = sep;
	violations[vlen++] = '"';
	va_start(ap, fmt);
	vlen += (size_t)vsnprintf(violations + vlen, sizeof(violations) - vlen - 3, fmt, ap);
	va_end(ap);
	violations[vlen++] = '"';
}

static struct fake_ctx *find(CUcontext ctx)
{
	int i;
	for (i = 0; i < NCTX; i++)
		if (ctxs[i].ctx == ctx)
			return &ctxs[i];
	return NULL;
}

/* Enter a call on c: flags a second thread inside a call on the same context. */
static struct fake_ctx *enter(CUcontext ctx, const char *what)
{
	struct fake_ctx *c;
	pthread_mutex_lock(&lock);
	c = find(ctx);
	if (!c)
		violation("%s: unknown context", what);
	else if (c->busy++)
		violation("%s: two calls on one context at once", what);
	pthread_mutex_unlock(&lock);
	return c;
}

/* Start a PC Sampling call: its size field as the API asks, then enter(). */
static struct fake_ctx *begin(const char *what, size_t size, size_t want, CUcontext ctx)
{
	if (size != want)
		violation("%s: size %zu, not %zu", what, size, want);
	return enter(ctx, what);
}

static void leave(struct fake_ctx *c)
{
	pthread_mutex_lock(&lock);
	if (c)
		c->busy--;
	pthread_mutex_unlock(&lock);
}

/* ---- NVTX's injection entry point: libgpuprof.so must hand over to this one ---- */

EXPORT int InitializeInjectionNvtx2(void *get_export_table);
int InitializeInjectionNvtx2(void *get_export_table)
{
	nvtx_table = get_export_table;
	return 1;
}

/* ---- The activity and callback API: all accepted, nothing recorded ---- */

EXPORT CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version)
{
	*version = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
	switch (result) {
	case CUPTI_SUCCESS: *str = "CUPTI_SUCCESS"; break;
	case CUPTI_ERROR_NOT_SUPPORTED: *str = "CUPTI_ERROR_NOT_SUPPORTED"; break;
	case CUPTI_ERROR_OUT_OF_MEMORY: *str = "CUPTI_ERROR_OUT_OF_MEMORY"; break;
	case CUPTI_ERROR_INVALID_PARAMETER: *str = "CUPTI_ERROR_INVALID_PARAMETER"; break;
	default: *str = "CUPTI_ERROR_UNKNOWN"; break;
	}
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
							   CUpti_BuffersCallbackCompleteFunc done)
{
	buf_request = req;
	buf_complete = done;
	return CUPTI_SUCCESS;
}

static int kind_toggles[2][CUPTI_ACTIVITY_KIND_COUNT];	/* [off, on]: each change of a kind's state */

EXPORT CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	if ((unsigned)kind >= CUPTI_ACTIVITY_KIND_COUNT)
		return CUPTI_ERROR_INVALID_KIND;
	pthread_mutex_lock(&lock);
	if (!kind_enabled[kind])
		kind_toggles[1][kind]++;
	kind_enabled[kind] = 1;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
	if ((unsigned)kind >= CUPTI_ACTIVITY_KIND_COUNT)
		return CUPTI_ERROR_INVALID_KIND;
	pthread_mutex_lock(&lock);
	if (kind_enabled[kind])
		kind_toggles[0][kind]++;
	kind_enabled[kind] = 0;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

/* Whether records of kind are made now (a kernel's at its launch). */
static int kind_on(CUpti_ActivityKind kind)
{
	int on;
	pthread_mutex_lock(&lock);
	on = kind_enabled[kind];
	pthread_mutex_unlock(&lock);
	return on;
}

static long long attr_value[16];	/* the other attributes set (-1: never), by CUpti_ActivityAttribute */
static int attrs_ready;

EXPORT CUptiResult CUPTIAPI cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t *size, void *value)
{
	int byte = attr == CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER ||
		   attr == CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED;
	if (!attrs_ready) {
		for (int i = 0; i < 16; i++)
			attr_value[i] = -1;
		attrs_ready = 1;
	}
	if (attr == CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER) {
		if (*size != sizeof(uint8_t))
			violation("ZEROED_OUT_ACTIVITY_BUFFER given %zu bytes", *size);
		zeroed_attr = *(uint8_t *)value;
		return CUPTI_SUCCESS;
	}
	if (attr == CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE || attr == CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE ||
	    attr == CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT || byte) {
		if (*size != (byte ? sizeof(uint8_t) : sizeof(size_t)))
			violation("attribute %d given %zu bytes", (int)attr, *size);
		else if (buf_request)
			violation("attribute %d set after cuptiActivityRegisterCallbacks", (int)attr);
		else
			attr_value[attr] = byte ? *(uint8_t *)value : (long long)*(size_t *)value;
		return CUPTI_SUCCESS;
	}
	return CUPTI_ERROR_NOT_SUPPORTED;
}

static CUptiResult enable_api(int domain, CUpti_CallbackId cbid, uint8_t enable)
{
	if (cbid >= 16 && cbid < (domain ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE))
		return CUPTI_SUCCESS;
	if (cbid >= 16)
		return CUPTI_ERROR_INVALID_PARAMETER;
	api_enabled[domain][cbid] = enable;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable)
{
	return enable_api(0, cbid, enable);
}

EXPORT CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable)
{
	return enable_api(1, cbid, enable);
}

/* fake_cupti_timeline's buffer being filled, which a flush hands over (under lock). */
static uint8_t *tl_buf;
static size_t tl_size, tl_off;

/* A buffer of records CUPTI holds until a flush (fake_cupti_oom), and its valid bytes. */
static uint8_t *held;
static size_t held_size, held_valid;
static int flushes;

EXPORT CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	uint8_t *b, *t;
	size_t tsize, toff;
	(void)flag;
	pthread_mutex_lock(&lock);
	t = tl_buf;
	tsize = tl_size;
	toff = tl_off;
	tl_buf = NULL;
	tl_off = 0;
	b = held;
	held = NULL;
	flushes++;
	pthread_mutex_unlock(&lock);
	if (t && buf_complete)
		buf_complete(NULL, 0, t, tsize, toff);
	if (b)
		buf_complete(NULL, 0, b, held_size, held_valid);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	*timestamp = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetThreadIdType(CUpti_ActivityThreadIdType *type)
{
	*type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t time)
{
	(void)time;
	return CUPTI_SUCCESS;
}

/* The size of the record at p (fake_cupti_work writes kernels and memcpys), or 0: the buffer ends there. */
static size_t record_size(const uint8_t *p, size_t left)
{
	uint32_t kind;
	size_t size;
	if (left < sizeof(CUpti_Activity))
		return 0;
	memcpy(&kind, p, sizeof(kind));
	size = kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ? sizeof(CUpti_ActivityKernel10) :
	       kind == CUPTI_ACTIVITY_KIND_MEMCPY ? sizeof(CUpti_ActivityMemcpy6) :
	       kind == CUPTI_ACTIVITY_KIND_MARKER ? sizeof(CUpti_ActivityMarker2) : 0;
	return size <= left ? size : 0;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record)
{
	size_t off = 0;
	if (*record) {
		off = (size_t)((uint8_t *)*record - buffer);
		off += record_size(buffer + off, valid - off);
	}
	if (off >= valid || !record_size(buffer + off, valid - off))
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*record = (CUpti_Activity *)(void *)(buffer + off);
	return CUPTI_SUCCESS;
}

static size_t records_dropped;	/* for want of a buffer, until read (under lock) */

EXPORT CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t stream, size_t *dropped)
{
	(void)context;
	(void)stream;
	pthread_mutex_lock(&lock);
	*dropped = records_dropped;
	records_dropped = 0;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char **name)
{
	int d = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && !d)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*name = cbid < 8 && api_names[d][cbid] ? api_names[d][cbid] : "fake";
	if (!d && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020)
		*name = "cudaMalloc_v3020";
	else if (d && cbid == CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2)
		*name = "cuMemAlloc_v2";
	else if (d && cbid == CUPTI_DRIVER_TRACE_CBID_cuMemCreate)
		*name = "cuMemCreate";
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc fn, void *data)
{
	callback = fn;
	callback_data = data;
	*subscriber = (CUpti_SubscriberHandle)&callback;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
						CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	if (subscriber != (CUpti_SubscriberHandle)&callback || domain >= 4 || cbid >= 1024)
		return CUPTI_ERROR_INVALID_PARAMETER;
	enabled_cb[domain][cbid] = (int)enable;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *device)
{
	struct fake_ctx *c = find(context);
	if (!c)
		return CUPTI_ERROR_INVALID_CONTEXT;
	*device = c->device;
	return CUPTI_SUCCESS;
}

/* ---- The PC Sampling API ---- */

EXPORT CUptiResult CUPTIAPI cuptiPCSamplingEnable(CUpti_PCSamplingEnableParams *p)
{
	struct fake_ctx *c;
	if (!(c = begin("Enable", p->size, CUpti_PCSamplingEnableParamsSize, p->ctx)))
		return CUPTI_ERROR_INVALID_CONTEXT;
	if (c->enabled)
		violation("Enable: twice on device %u", c->device);
	if (c->device == 1) {	/* this device does not take PC sampling beside tracing */
		leave(c);
		return CUPTI_ERROR_NOT_SUPPORTED;
	}
	c->enabled = 1;
	leave(c);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams *p)
{
	struct fake_ctx *c;
	if (!(c = begin("GetNumStallReasons", p->size, CUpti_PCSamplingGetNumStallReasonsParamsSize, p->ctx)))
		return CUPTI_ERROR_INVALID_CONTEXT;
	/* Before Enable it answers 0 (NVIDIA forum, CUDA 13.1): a collector must ask after. */
	if (!c->enabled)
		violation("GetNumStallReasons before Enable");
	*p->numStallReasons = c->enabled ? sizeof(reason_index) / sizeof(reason_index[0]) : 0;
	leave(c);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams *p)
{
	struct fake_ctx *c;
	size_t i;
	if (!(c = begin("GetStallReasons", p->size, CUpti_PCSamplingGetStallReasonsParamsSize, p->ctx)))
		return CUPTI_ERROR_INVALID_CONTEXT;
	if (!c->enabled || p->numStallReasons != sizeof(reason_index) / sizeof(reason_index[0]))
		violation("GetStallReasons: not enabled, or %zu reasons asked", p->numStallReasons);
	for (i = 0; i < p->numStallReasons && i < sizeof(reason_index) / sizeof(reason_index[0]); i++) {
		p->stallReasonIndex[i] = reason_index[i];
		/* All 128 bytes are the caller's. */
		memset(p->stallReasons[i], 'x', CUPTI_STALL_REASON_STRING_SIZE);
		snprintf(p->stallReasons[i], CUPTI_STALL_REASON_STRING_SIZE, "%s", reason_names[i]);
	}
	c->reasons_read = 1;
	leave(c);
	return CUPTI_SUCCESS;
}

/* A buffer laid out as the API asks: sizes set, a reason array per PC. */
static void check_buffer(const char *what, const CUpti_PCSamplingData *d)
{
	size_t i;
	if (!d || d->size != sizeof(*d) || !d->collectNumPcs || !d->pPcData) {
		violation("%s: buffer without size, PCs or PC array", what);
		return;
	}
	for (i = 0; i < d->collectNumPcs; i++)
		if (d->pPcData[i].size != sizeof(d->pPcData[i]) || !d->pPcData[i].stallReason) {
			violation("%s: PC %zu without size or reason array", what, i);
			return;
		}
}

EXPORT CUptiResult CUPTIAPI cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams *p)
{
	struct fake_ctx *c;
	size_t i;
	CUptiResult rc = CUPTI_SUCCESS;
	if (!(c = begin("SetConfigurationAttribute", p->size, CUpti_PCSamplingConfigurationInfoParamsSize, p->ctx)))
		return CUPTI_ERROR_INVALID_CONTEXT;
	if (!c->enabled || !c->reasons_read)
		violation("SetConfigurationAttribute before Enable or the stall reasons");
	c->period = 0;	/* what this call sets, 0 for CUPTI's default */
	c->scratch = c->hwbuf = 0;
	for (i = 0; i < p->numAttributes; i++) {
		CUpti_PCSamplingConfigurationInfo *a = &p->pPCSamplingConfigurationInfo[i];
		a->attributeStatus = CUPTI_SUCCESS;
		switch (a->attributeType) {
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD:
			c->period = a->attributeData.samplingPeriodData.samplingPeriod;
			if (c->period < 5 || c->period > 31)
				a->attributeStatus = CUPTI_ERROR_INVALID_PARAMETER;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON:
			if (a->attributeData.stallReasonData.stallReasonCount != 4 ||
			    a->attributeData.stallReasonData.pStallReasonIndex[1] != 3)
				a->attributeStatus = CUPTI_ERROR_INVALID_PARAMETER;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE:
			c->scratch = a->attributeData.scratchBufferSizeData.scratchBufferSize;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE:
			c->hwbuf = a->attributeData.hardwareBufferSizeData.hardwareBufferSize;
			if (c->hwbuf > ((size_t)1 << 30))	/* this device has 1 GB for it */
				a->attributeStatus = CUPTI_ERROR_INVALID_PARAMETER;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE:
			c->mode = a->attributeData.collectionModeData.collectionMode;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER:
			c->cfg = a->attributeData.samplingDataBufferData.samplingDataBuffer;
			check_buffer("configuration buffer", c->cfg);
			break;
		default:
			a->attributeStatus = CUPTI_ERROR_INVALID_PARAMETER;
			break;
		}
		if (a->attributeStatus != CUPTI_SUCCESS)
			rc = CUPTI_ERROR_INVALID_PARAMETER;
	}
	c->configured = rc == CUPTI_SUCCESS;
	leave(c);
	return rc;
}

/* Fill PC number n of a buffer: two functions, every third PC with a second reason. */
static void fill_pc(CUpti_PCSamplingPCData *pc, int n, uint32_t mode)
{
	pc->cubinCrc = 0xa11ce;
	pc->pcOffset = 0x10 * (uint64_t)n;
	pc->functionIndex = (uint32_t)(n % 2);
	pc->functionName = function_names[n % 2];
	pc->correlationId = mode == CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED ? 7 : 0;
	pc->stallReason[0].pcSamplingStallReasonIndex = 3;
	pc->stallReason[0].samples = (uint32_t)n + 1;
	pc->stallReasonCount = 1;
	samples_handed += n + 1;
	if (n % 3 == 0) {
		pc->stallReason[1].pcSamplingStallReasonIndex = 5;
		pc->stallReason[1].samples = 2;
		pc->stallReasonCount = 2;
		samples_handed += 2;
	}
}

EXPORT CUptiResult CUPTIAPI cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams *p)
{
	CUpti_PCSamplingData *d = p->pcSamplingData;
	struct fake_ctx *c;
	size_t i, n;
	if (!(c = begin("GetData", p->size, CUpti_PCSamplingGetDataParamsSize, p->ctx)))
		return CUPTI_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&lock);
	getdata_calls++;
	if (!c->configured || c->disabled)
		violation("GetData on device %u: not configured, or disabled", c->device);
	check_buffer("GetData", d);
	d->totalNumPcs = d->remainingNumPcs = 0;
	d->droppedSamples = 0;
	d->hardwareBufferFull = 0;
	if (c->hwfull) {
		c->hwfull = 0;
		d->hardwareBufferFull = 1;
		d->droppedSamples = 5;
		d->totalSamples = 5;	/* the dropped ones count in the total */
		d->nonUsrKernelsTotalSamples = 0;
		totals_handed += 5;
		pthread_mutex_unlock(&lock);
		leave(c);
		return CUPTI_ERROR_OUT_OF_MEMORY;
	}
	n = (size_t)c->pending < PER_CALL ? (size_t)c->pending : PER_CALL;
	if (n > d->collectNumPcs)
		n = d->collectNumPcs;
	d->totalSamples = (uint64_t)-samples_handed;
	for (i = 0; i < n; i++)
		fill_pc(&d->pPcData[i], c->next_pc++, c->mode);
	/* every sample handed out, and 3 in kernels CUPTI gives no PCs for (the driver's own) */
	d->nonUsrKernelsTotalSamples = n ? 3 : 0;
	d->totalSamples += (uint64_t)samples_handed + d->nonUsrKernelsTotalSamples;
	totals_handed += (int)d->totalSamples;
	nonuser_handed += (int)d->nonUsrKernelsTotalSamples;
	c->pending -= (int)n;
	d->totalNumPcs = n;
	d->remainingNumPcs = (size_t)c->pending;
	pthread_mutex_unlock(&lock);
	leave(c);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiPCSamplingDisable(CUpti_PCSamplingDisableParams *p)
{
	struct fake_ctx *c;
	if (!(c = begin("Disable", p->size, CUpti_PCSamplingDisableParamsSize, p->ctx)))
		return CUPTI_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&lock);
	if (c->disabled)
		violation("Disable twice on device %u", c->device);
	if (c->pending)
		violation("Disable on device %u with %d PCs never read", c->device, c->pending);
	/* What the hardware still held goes into the configuration's buffer. */
	if (c->configured && c->cfg) {
		fill_pc(&c->cfg->pPcData[0], 100, c->mode);
		c->cfg->totalNumPcs = 1;
	}
	c->disabled = 1;
	disables++;
	pthread_mutex_unlock(&lock);
	leave(c);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetCubinCrc(CUpti_GetCubinCrcParams *p)
{
	if (p->size != CUpti_GetCubinCrcParamsSize || !p->cubin || !p->cubinSize)
		return CUPTI_ERROR_INVALID_PARAMETER;
	crc_calls++;
	p->cubinCrc = p->cubinSize == sizeof(cubin_a) && !memcmp(p->cubin, cubin_a, sizeof(cubin_a)) ? 0xa11ce : 0xb0b;
	return CUPTI_SUCCESS;
}

/* Lines for the kept copy of cubin A: PC 0x10 * n is at line 100 + n of /src/fake.cu. */
EXPORT CUptiResult CUPTIAPI cuptiGetSassToSourceCorrelation(CUpti_GetSassToSourceCorrelationParams *p)
{
	if (p->size != CUpti_GetSassToSourceCorrelationParamsSize || !p->cubin || !p->functionName)
		return CUPTI_ERROR_INVALID_PARAMETER;
	line_calls++;
	if (p->cubinSize != sizeof(cubin_a) || memcmp(p->cubin, cubin_a, sizeof(cubin_a)) || p->cubin == cubin_a)
		return CUPTI_ERROR_INVALID_MODULE;	/* not a copy of cubin A (the original is gone by now) */
	p->lineNumber = 100 + (uint32_t)(p->pcOffset / 0x10);
	p->fileName = strdup("fake.cu");
	p->dirName = strdup("/src");
	return CUPTI_SUCCESS;
}

/* ---- The driver ---- */

static void resource(CUpti_CallbackId cbid, CUcontext ctx, void *descriptor)
{
	CUpti_ResourceData r;
	memset(&r, 0, sizeof(r));
	r.context = ctx;
	r.resourceDescriptor = descriptor;
	if (callback && enabled_cb[CUPTI_CB_DOMAIN_RESOURCE][cbid])
		callback(callback_data, CUPTI_CB_DOMAIN_RESOURCE, cbid, &r);
}

static void launch(CUcontext ctx)
{
	CUpti_CallbackData d;
	CUpti_CallbackId cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
	memset(&d, 0, sizeof(d));
	d.context = ctx;
	d.functionName = "cuLaunchKernel";
	d.callbackSite = CUPTI_API_ENTER;
	if (callback && enabled_cb[CUPTI_CB_DOMAIN_DRIVER_API][cbid])
		callback(callback_data, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &d);
	d.callbackSite = CUPTI_API_EXIT;
	if (callback && enabled_cb[CUPTI_CB_DOMAIN_DRIVER_API][cbid])
		callback(callback_data, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &d);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };
	nanosleep(&ts, NULL);
}

/* Sample n more PCs on c. */
static void sample(struct fake_ctx *c, int n, int hwfull)
{
	pthread_mutex_lock(&lock);
	c->pending += n;
	c->hwfull |= hwfull;
	pthread_mutex_unlock(&lock);
}

/*
 * Threads filling activity buffers: n requested, each checked for zeros (CUPTI was told they come
 * zeroed), scribbled on and handed back. Buffers handed out again after the writer has had them count
 * as reused when they were among prev.
 */
static void fill_buffers(uint8_t **bufs, int n, uint8_t *const *prev, int nprev)
{
	int i, j;
	for (i = 0; i < n; i++) {
		size_t size = 0, max = 0, k;
		buf_request(&bufs[i], &size, &max);
		buffers_requested++;
		if (!bufs[i] || size < 4096) {
			violation("buffer request answered with %zu bytes", size);
			continue;
		}
		for (k = 0; k < size && !bufs[i][k]; k++)
			;
		buffers_dirty += k < size;
		for (j = 0; j < nprev; j++)
			buffers_reused += bufs[i] == prev[j];
		memset(bufs[i], 0xa5, size);
		buf_complete(NULL, 0, bufs[i], size, size);
	}
}

/*
 * The program's life: two contexts (device 1 refuses PC sampling), a module whose cubin is copied and
 * then overwritten, samples read by the writer's poll, a launch, an overflow, an unload; with destroy,
 * context A is destroyed at the end, else the library's exit handler disables it.
 */
EXPORT void fake_cupti_run(int destroy);
void fake_cupti_run(int destroy)
{
	char *cubin = malloc(sizeof(cubin_a));
	uint8_t *first[3], *second[3];
	CUpti_ModuleResourceData m;
	function_names[0] = strdup("_Z11memory_walkPKfPfii");
	function_names[1] = strdup("_Z9fma_chainPfi");
	resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, ctxs[0].ctx, NULL);
	resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, ctxs[1].ctx, NULL);
	memcpy(cubin, cubin_a, sizeof(cubin_a));
	memset(&m, 0, sizeof(m));
	m.moduleId = 1;
	m.cubinSize = sizeof(cubin_a);
	m.pCubin = cubin;
	resource(CUPTI_CBID_RESOURCE_MODULE_LOADED, ctxs[0].ctx, &m);
	memset(cubin, 0, sizeof(cubin_a));	/* valid only during the callback */
	free(cubin);
	sample(&ctxs[0], 7, 0);
	sleep_ms(400);				/* the writer reads them (3 + 3 + 1) */
	sample(&ctxs[0], 2, 0);
	launch(ctxs[0].ctx);			/* serialized mode reads them here */
	sleep_ms(300);
	sample(&ctxs[0], 0, 1);			/* the hardware buffer overflows */
	sleep_ms(300);
	sample(&ctxs[0], 4, 0);
	resource(CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING, ctxs[0].ctx, NULL);
	if (buf_request && buf_complete) {
		fill_buffers(first, 3, NULL, 0);
		sleep_ms(300);			/* the writer converts, clears and keeps them */
		fill_buffers(second, 3, first, 3);
	}
	if (destroy)
		resource(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, ctxs[0].ctx, NULL);
}

static uint64_t realtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A workload's activity, on the calling thread: kernels kernel records, then memcpys memcpy records, at
 * most per_buffer to a buffer asked of the library; a buffer refused (NULL) drops its records, counted
 * for cuptiActivityGetNumDroppedRecords as CUPTI counts them. Kernel i is named "_Z6kernelILi<i%3>EEvPf".
 */
EXPORT void fake_cupti_work(int kernels, int memcpys, int per_buffer);
void fake_cupti_work(int kernels, int memcpys, int per_buffer)
{
	static const char *const names[3] = { "_Z6kernelILi0EEvPf", "_Z6kernelILi1EEvPf", "_Z6kernelILi2EEvPf" };
	static uint32_t correlation;
	int total = kernels + memcpys, i = 0;
	while (i < total) {
		uint8_t *b = NULL;
		size_t size = 0, max = 0, off = 0;
		int n;
		if (buf_request)
			buf_request(&b, &size, &max);
		for (n = 0; i < total && n < per_buffer; n++, i++) {
			union {
				CUpti_ActivityKernel10 k;
				CUpti_ActivityMemcpy6 c;
			} r;
			size_t rsize = i < kernels ? sizeof(r.k) : sizeof(r.c);
			uint64_t t = realtime();
			if (!b) {
				pthread_mutex_lock(&lock);
				records_dropped++;
				pthread_mutex_unlock(&lock);
				continue;
			}
			if (off + rsize > size)
				break;
			memset(&r, 0, sizeof(r));
			if (i < kernels) {
				r.k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
				r.k.start = t;
				r.k.end = t + 1000 + (uint64_t)i;
				r.k.contextId = 1;
				r.k.streamId = 7;
				r.k.correlationId = ++correlation;
				r.k.gridX = r.k.gridY = r.k.gridZ = r.k.blockY = r.k.blockZ = 1;
				r.k.blockX = 128;
				r.k.name = names[i % 3];
			} else {
				r.c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
				r.c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
				r.c.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
				r.c.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
				r.c.bytes = 4096;
				r.c.start = t;
				r.c.end = t + 500;
				r.c.contextId = 1;
				r.c.streamId = 7;
				r.c.correlationId = ++correlation;
			}
			memcpy(b + off, &r, rsize);
			off += rsize;
		}
		if (b)
			buf_complete(NULL, 0, b, size, off);
	}
}

/* One API call through the callbacks enabled for it: ENTER, then EXIT returning result. */
static void api_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUcontext ctx, uint32_t corr,
		     void *params, int result, void (*inside)(void))
{
	CUpti_CallbackData d;
	int ok = callback && enabled_cb[domain][cbid];
	memset(&d, 0, sizeof(d));
	d.context = ctx;
	d.correlationId = corr;
	d.functionParams = params;
	d.functionReturnValue = &result;
	d.callbackSite = CUPTI_API_ENTER;
	if (ok)
		callback(callback_data, domain, cbid, &d);
	if (inside)
		inside();
	d.callbackSite = CUPTI_API_EXIT;
	if (ok)
		callback(callback_data, domain, cbid, &d);
}

static int inner_result;	/* what the driver call inside a runtime cudaMalloc returns */

/* The driver's cuMemAlloc_v2 that a runtime cudaMalloc makes, as CUPTI reports it. */
static void inner_alloc(void)
{
	cuMemAlloc_v2_params p = { NULL, (size_t)3 << 30 };
	api_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, ctxs[1].ctx, 0, &p, inner_result, NULL);
}

/* A runtime cudaMalloc of bytes on context B (device 1), its driver call inside, returning result. */
static void runtime_malloc(size_t bytes, uint32_t corr, int result)
{
	cudaMalloc_v3020_params p = { NULL, bytes };
	inner_result = result;
	api_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, ctxs[1].ctx, corr, &p, result,
		 inner_alloc);
}

/*
 * Allocations failing for want of memory, as a PyTorch program meets them: `held` kernel records
 * (named as fake_cupti_work names them) and the START of an NVTX range "oom-step" on the calling thread,
 * never ended (the program dies in it), which CUPTI holds in a buffer until a flush; a cudaMalloc of 3 GiB
 * that fails inside the driver (correlation 1001), one that succeeds (1002), one that fails with an
 * invalid value (1003), the caching allocator's retry of the first, failing again (1004), and a
 * cuMemCreate of 2000 MiB on device 0, with no context, failing in the driver alone (1005). Returns the
 * calling thread as CUPTI names it (pthread_self's low 32 bits).
 */
EXPORT uint32_t fake_cupti_oom(int kept);
uint32_t fake_cupti_oom(int kept)
{
	CUmemAllocationProp prop;
	cuMemCreate_params create;
	uint8_t *b = NULL;
	size_t size = 0, max = 0, off = 0;
	int i;
	if (buf_request)
		buf_request(&b, &size, &max);
	for (i = 0; b && i < kept && off + sizeof(CUpti_ActivityKernel10) <= size; i++) {
		CUpti_ActivityKernel10 k;
		memset(&k, 0, sizeof(k));
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		k.start = realtime();
		k.end = k.start + 2000;
		k.contextId = 2;
		k.deviceId = 1;
		k.streamId = 9;
		k.correlationId = 900 + (uint32_t)i;
		k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
		k.name = "_Z4heldv";
		memcpy(b + off, &k, sizeof(k));
		off += sizeof(k);
	}
	if (b && off + sizeof(CUpti_ActivityMarker2) <= size) {
		CUpti_ActivityMarker2 m;
		memset(&m, 0, sizeof(m));
		m.kind = CUPTI_ACTIVITY_KIND_MARKER;
		m.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
		m.timestamp = realtime();
		m.id = 77;
		m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
		m.objectId.pt.processId = (uint32_t)getpid();
		m.objectId.pt.threadId = (uint32_t)(uintptr_t)pthread_self();	/* as cuptiGetThreadIdType's default */
		m.name = "oom-step";
		memcpy(b + off, &m, sizeof(m));
		off += sizeof(m);
	}
	pthread_mutex_lock(&lock);
	held = b;
	held_size = size;
	held_valid = off;
	pthread_mutex_unlock(&lock);
	runtime_malloc((size_t)3 << 30, 1001, cudaErrorMemoryAllocation);
	runtime_malloc(4096, 1002, cudaSuccess);
	runtime_malloc((size_t)1 << 40, 1003, cudaErrorInvalidValue);
	runtime_malloc((size_t)3 << 30, 1004, cudaErrorMemoryAllocation);
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	create.handle = NULL;
	create.size = (size_t)2000 << 20;
	create.prop = &prop;
	create.flags = 0;
	api_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemCreate, NULL, 1005, &create,
		 CUDA_ERROR_OUT_OF_MEMORY, NULL);
	return (uint32_t)(uintptr_t)pthread_self();
}

EXPORT void fake_cupti_report(void);
void fake_cupti_report(void)
{
	printf("{\"violations\": %s, \"getdata_calls\": %d, \"samples_handed\": %d, \"totals_handed\": %d, "
	       "\"nonuser_handed\": %d, \"disables\": %d, "
	       "\"period\": %u, \"mode\": %u, \"scratch\": %zu, \"hwbuf\": %zu, \"crc_calls\": %d, \"line_calls\": %d, "
	       "\"callbacks\": {\"context_created\": %d, \"module_loaded\": %d, \"launch\": %d}, "
	       "\"attrs\": {\"device_buffer\": %lld, \"pool_limit\": %lld, \"prealloc\": %lld, \"pinned\": %lld, "
	       "\"per_thread\": %lld}, "
	       "\"nvtx_table\": \"%p\", \"buffers\": {\"zeroed_attr\": %d, \"requested\": %d, \"dirty\": %d, \"reused\": %d}, "
	       "\"api\": {\"runtime_kind\": %d, \"driver_kind\": %d, \"runtime\": [",
	       vlen ? (violations[vlen] = ']', violations) : "[]", getdata_calls, samples_handed, totals_handed,
	       nonuser_handed, disables,
	       ctxs[0].period, ctxs[0].mode, ctxs[0].scratch, ctxs[0].hwbuf, crc_calls, line_calls,
	       enabled_cb[CUPTI_CB_DOMAIN_RESOURCE][CUPTI_CBID_RESOURCE_CONTEXT_CREATED],
	       enabled_cb[CUPTI_CB_DOMAIN_RESOURCE][CUPTI_CBID_RESOURCE_MODULE_LOADED],
	       enabled_cb[CUPTI_CB_DOMAIN_DRIVER_API][CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel],
	       attrs_ready ? attr_value[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE] : -1,
	       attrs_ready ? attr_value[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT] : -1,
	       attrs_ready ? attr_value[CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE] : -1,
	       attrs_ready ? attr_value[CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED] : -1,
	       attrs_ready ? attr_value[CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER] : -1,
	       nvtx_table, zeroed_attr, buffers_requested, buffers_dirty, buffers_reused,
	       kind_enabled[CUPTI_ACTIVITY_KIND_RUNTIME], kind_enabled[CUPTI_ACTIVITY_KIND_DRIVER]);
	for (int d = 0, first = 1; d < 2; d++, first = 1) {
		for (int i = 1; i < 8; i++)
			if (api_enabled[d][i]) {
				printf("%s\"%s\"", first ? "" : ", ", api_names[d][i]);
				first = 0;
			}
		printf(d ? "]}}\n" : "], \"driver\": [");
	}
	fflush(stdout);
}

/* ---- a workload over time, for trace windows ---- */

union timeline_rec {
	CUpti_ActivityKernel10 k;
	CUpti_ActivityMarker2 m;
};

static struct {
	int launched, recorded, ranges_begun, ranges_recorded;	/* kernels; ranges whose START was recorded */
	uint64_t long_start, long_end;	/* the last long kernel recorded */
} tl;

/* A START or END marker of range id at t into pending, when MARKER is on (and there is room): 1, else 0. */
static int marker(union timeline_rec *pending, size_t *npending, CUpti_ActivityFlag flag, uint64_t t, uint32_t id)
{
	CUpti_ActivityMarker2 *m;
	if (!kind_on(CUPTI_ACTIVITY_KIND_MARKER) || *npending >= 4096)
		return 0;
	m = &pending[(*npending)++].m;
	memset(m, 0, sizeof(*m));
	m->kind = CUPTI_ACTIVITY_KIND_MARKER;
	m->flags = flag;
	m->timestamp = t;
	m->id = id;
	m->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m->name = flag == CUPTI_ACTIVITY_FLAG_MARKER_START ? "step" : NULL;
	return 1;
}

/*
 * Play ms milliseconds of a program: a kernel launched every every_us (1 us long; every 20th runs
 * long_ms), recorded only when CONCURRENT_KERNEL is on at its launch and delivered once it has ended, as
 * CUPTI does; and a 20 ms NVTX range every 25 ms, its START and END records each made only when MARKER is
 * on at that moment. Buffers go back every 10 ms and at the end (after the last kernel has ended).
 */
EXPORT void fake_cupti_timeline(int ms, int every_us, int long_ms);
void fake_cupti_timeline(int ms, int every_us, int long_ms)
{
	static const char *const kname = "_Z8timelinev";
	union timeline_rec *pending = calloc(4096, sizeof(*pending));
	size_t npending = 0, i;
	uint64_t t0 = realtime(), last_buffer = t0, next_range = t0, range_end = 0;
	uint32_t range_id = 0, range_open = 0;
	size_t max = 0;
	if (!pending)
		return;
	for (;;) {
		uint64_t t = realtime();
		int done = t >= t0 + (uint64_t)ms * 1000000u;
		if (!done && kind_on(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) && npending < 4096) {
			CUpti_ActivityKernel10 *k = &pending[npending++].k;
			memset(k, 0, sizeof(*k));
			k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
			k->start = t + 1000;
			k->end = k->start + (tl.launched % 20 == 19 ? (uint64_t)long_ms * 1000000u : 1000u);
			k->contextId = 1;
			k->streamId = 7;
			k->correlationId = (uint32_t)tl.launched + 1;
			k->gridX = k->gridY = k->gridZ = k->blockY = k->blockZ = 1;
			k->blockX = 32;
			k->name = kname;
			tl.recorded++;
			if (tl.launched % 20 == 19) {
				tl.long_start = k->start;
				tl.long_end = k->end;
			}
		}
		if (!done)
			tl.launched++;
		/* ranges: START at next_range, END 20 ms later */
		if (!done && !range_open && t >= next_range) {
			range_open = ++range_id;
			range_end = t + 20000000u;
			next_range = t + 25000000u;
			tl.ranges_begun += marker(pending, &npending, CUPTI_ACTIVITY_FLAG_MARKER_START, t, range_open);
		}
		if (range_open && (t >= range_end || done)) {
			marker(pending, &npending, CUPTI_ACTIVITY_FLAG_MARKER_END, t, range_open);
			range_open = 0;
		}
		/* deliver what has ended: kernels once past their end, markers at once (a flush takes the buffer) */
		pthread_mutex_lock(&lock);
		for (i = 0; i < npending;) {
			size_t rsize = pending[i].k.kind == CUPTI_ACTIVITY_KIND_MARKER ? sizeof(pending[i].m) : sizeof(pending[i].k);
			if (pending[i].k.kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && pending[i].k.end > t) {
				i++;
				continue;
			}
			if (!tl_buf && buf_request)
				buf_request(&tl_buf, &tl_size, &max);
			if (!tl_buf || tl_off + rsize > tl_size)
				break;
			memcpy(tl_buf + tl_off, &pending[i], rsize);
			tl_off += rsize;
			pending[i] = pending[--npending];
		}
		if (tl_buf && (t - last_buffer >= 10000000u || (done && !npending))) {
			buf_complete(NULL, 0, tl_buf, tl_size, tl_off);
			tl_buf = NULL;
			tl_off = 0;
			last_buffer = t;
		}
		pthread_mutex_unlock(&lock);
		if (done && !npending)
			break;
		sleep_us(every_us);
	}
	free(pending);
}

EXPORT void fake_cupti_timeline_report(void);
void fake_cupti_timeline_report(void)
{
	printf("{\"launched\": %d, \"recorded\": %d, \"ranges_begun\": %d, \"long_start\": %llu, \"long_end\": %llu, "
	       "\"kernel_on\": %d, \"kernel_off\": %d, \"marker_on\": %d, \"marker_off\": %d, \"memory_off\": %d, "
	       "\"device_off\": %d}\n",
	       tl.launched, tl.recorded, tl.ranges_begun, (unsigned long long)tl.long_start, (unsigned long long)tl.long_end,
	       kind_toggles[1][CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL], kind_toggles[0][CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL],
	       kind_toggles[1][CUPTI_ACTIVITY_KIND_MARKER], kind_toggles[0][CUPTI_ACTIVITY_KIND_MARKER],
	       kind_toggles[0][CUPTI_ACTIVITY_KIND_MEMORY2], kind_toggles[0][CUPTI_ACTIVITY_KIND_DEVICE]);
	fflush(stdout);
}
