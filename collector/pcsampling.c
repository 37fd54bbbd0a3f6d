#include "pcsampling.h"
#include "activity.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB ((size_t)1 << 20)
#define DEFAULT_SCRATCH_MB 4	/* CUPTI's own default, 1 MB, holds about 5,500 PCs */
#define DEFAULT_HWBUF_MB 512	/* CUPTI's default */
#define DEFAULT_CUBIN_MB 256
#define PCS_PER_READ 5000	/* PCs one cuptiPCSamplingGetData call may return */
#define PCS_AT_DISABLE 20000	/* PCs the configuration buffer holds for what Disable flushes */
#define MAX_ROUNDS 1000		/* GetData calls per drain at most: a drain always ends */

const char *cupti_error(CUptiResult rc)
{
	const char *s = NULL;
	if (cuptiGetResultString(rc, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

/* ---- Options ---- */

static void option_note(struct pcs_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void option_note(struct pcs_options *o, const char *fmt, ...)
{
	va_list ap;
	if (o->nnotes == PCS_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(o->notes[o->nnotes++], sizeof(o->notes[0]), fmt, ap);
	va_end(ap);
}

/* An integer setting in lo..hi from the environment, or def with a note when it is not one. */
static int64_t option_int(struct pcs_options *o, const char *name, int64_t def, int64_t lo, int64_t hi,
			  const char *fallback)
{
	const char *s = getenv(name);
	int64_t v;
	if (!s || !*s)
		return def;
	if (parse_i64_range(s, lo, hi, &v)) {
		option_note(o, "%s: '%.40s' is not an integer in %lld..%lld; %s is used", name, s, (long long)lo,
			    (long long)hi, fallback);
		return def;
	}
	return v;
}

void pcs_options_from_env(struct pcs_options *o)
{
	const char *mode = getenv("GPUPROF_PC_MODE");
	char def[64];
	memset(o, 0, sizeof(*o));
	o->mode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
	if (mode && *mode && !strcmp(mode, "serialized"))
		o->mode = CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
	else if (mode && *mode && strcmp(mode, "continuous"))
		option_note(o, "GPUPROF_PC_MODE: '%.40s' is not continuous or serialized; continuous is used", mode);
	o->period = (int)option_int(o, "GPUPROF_PC_PERIOD", 0, 5, 31, "CUPTI's default period");
	snprintf(def, sizeof(def), "the default, %d MB,", DEFAULT_SCRATCH_MB);
	o->scratch_bytes = (size_t)option_int(o, "GPUPROF_PC_SCRATCH_MB", DEFAULT_SCRATCH_MB, 1, 4096, def) * MB;
	snprintf(def, sizeof(def), "the default, %d MB,", DEFAULT_HWBUF_MB);
	o->hwbuf_bytes = (size_t)option_int(o, "GPUPROF_PC_HWBUF_MB", DEFAULT_HWBUF_MB, 1, 65536, def) * MB;
	snprintf(def, sizeof(def), "the default, %d MB,", DEFAULT_CUBIN_MB);
	o->cubin_bytes = (size_t)option_int(o, "GPUPROF_PC_CUBIN_MB", DEFAULT_CUBIN_MB, 0, 65536, def) * MB;
}

void pcs_options_json(const struct pcs_options *o, char *out, size_t size)
{
	char period[16] = "null";
	if (o->period)
		snprintf(period, sizeof(period), "%d", o->period);
	snprintf(out, size, "\"pc_mode\":\"%s\",\"pc_period\":%s,\"pc_scratch_mb\":%zu,\"pc_hwbuf_mb\":%zu,"
		 "\"pc_cubin_mb\":%zu",
		 o->mode == CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED ? "serialized" : "continuous", period,
		 o->scratch_bytes / MB, o->hwbuf_bytes / MB, o->cubin_bytes / MB);
}

/* ---- Conversion (pure) ---- */

static struct pix {
	int ts, device, function, crc, pc, reason, samples, corr, file, line;
	int r_device, r_id, r_name;
	int t_ts, t_device, t_total, t_nonuser, t_dropped;
} pix;

#define I(m, t, f) { offsetof(struct pix, m), t, f }
static const struct rec_index pix_table[] = {
	I(ts, R_PC_SAMPLE, "ts"), I(device, R_PC_SAMPLE, "device"), I(function, R_PC_SAMPLE, "function"),
	I(crc, R_PC_SAMPLE, "cubin_crc"), I(pc, R_PC_SAMPLE, "pc_offset"), I(reason, R_PC_SAMPLE, "reason"),
	I(samples, R_PC_SAMPLE, "samples"), I(corr, R_PC_SAMPLE, "correlation"), I(file, R_PC_SAMPLE, "file"),
	I(line, R_PC_SAMPLE, "line"),
	I(r_device, R_STALL_REASON, "device"), I(r_id, R_STALL_REASON, "id"), I(r_name, R_STALL_REASON, "name"),
	I(t_ts, R_PC_TOTAL, "ts"), I(t_device, R_PC_TOTAL, "device"), I(t_total, R_PC_TOTAL, "total_samples"),
	I(t_nonuser, R_PC_TOTAL, "non_user_samples"), I(t_dropped, R_PC_TOTAL, "dropped_samples"),
};
#undef I

void pcs_conv_init(struct pcs_conv *cv, struct wire *w)
{
	static int ready;
	memset(cv, 0, sizeof(*cv));
	cv->w = w;
	if (!ready) {
		rec_indices(pix_table, sizeof(pix_table) / sizeof(pix_table[0]), &pix);
		ready = 1;
	}
}

void pcs_conv_release(struct pcs_conv *cv)
{
	size_t i;
	for (i = 0; cv->free_names && i < cv->names.cap; i++)
		if (cv->names.keys[i])
			free((char *)(intptr_t)cv->names.keys[i]);
	intmap_release(&cv->names);
}

int pcs_write_reasons(struct pcs_conv *cv, uint32_t device, size_t n, const uint32_t *index,
		      const char *const *names)
{
	struct value v[REC_MAX_FIELDS];
	size_t i;
	int rc = 0;
	for (i = 0; i < n; i++) {
		char name[CUPTI_STALL_REASON_STRING_SIZE];
		snprintf(name, sizeof(name), "%s", names[i] ? names[i] : "");
		memset(v, 0, sizeof(v));
		v[pix.r_device].i = device;
		v[pix.r_id].i = index[i];
		v[pix.r_name].i = wire_string(cv->w, name);
		rc |= wire_add(cv->w, R_STALL_REASON, v);
	}
	/* Out now, so the table precedes every sample that uses it. */
	rc |= wire_flush(cv->w);
	return rc ? -1 : 0;
}

/* The kernel-name string id of CUPTI's function name, demangled once per name. */
static int64_t function_name(struct pcs_conv *cv, const char *name)
{
	int64_t id;
	if (!name)
		return act_kernel_name(cv->w, NULL, NULL);
	if (intmap_get(&cv->names, (int64_t)(intptr_t)name, &id))
		return id;
	id = act_kernel_name(cv->w, name, NULL);
	if (id >= 0)
		intmap_try_put(&cv->names, (int64_t)(intptr_t)name, id);	/* out of memory: looked up again */
	return id;
}

int pcs_convert(struct pcs_conv *cv, int64_t ts, uint32_t device, const CUpti_PCSamplingData *d,
		pcs_line_fn lines, void *arg)
{
	struct value v[REC_MAX_FIELDS];
	size_t i, k, n = d->totalNumPcs < d->collectNumPcs ? d->totalNumPcs : d->collectNumPcs;
	int rc = 0;

	if (d->droppedSamples) {
		cv->dropped += (int64_t)d->droppedSamples;
		rc |= wire_drops(cv->w, ts, "pcsampling", "samples", (int64_t)d->droppedSamples);
	}
	if (d->hardwareBufferFull) {
		cv->hwfull++;
		rc |= wire_drops(cv->w, ts, "hwbuffer", "events", 1);
	}
	if (d->totalSamples || d->nonUsrKernelsTotalSamples || d->droppedSamples) {
		memset(v, 0, sizeof(v));
		v[pix.t_ts].i = ts;
		v[pix.t_device].i = device;
		v[pix.t_total].i = (int64_t)d->totalSamples;
		v[pix.t_nonuser].i = (int64_t)d->nonUsrKernelsTotalSamples;
		v[pix.t_dropped].i = (int64_t)d->droppedSamples;
		rc |= wire_add(cv->w, R_PC_TOTAL, v);
	}
	for (i = 0; d->pPcData && i < n; i++) {
		const CUpti_PCSamplingPCData *pc = &d->pPcData[i];
		const char *file = NULL;
		uint32_t line = 0;
		int64_t name = function_name(cv, pc->functionName), file_id;
		if (lines)
			lines(arg, pc->cubinCrc, pc->functionName, pc->functionIndex, pc->pcOffset, &file, &line);
		file_id = file && *file ? wire_string(cv->w, file) : 0;
		for (k = 0; pc->stallReason && k < pc->stallReasonCount; k++) {
			if (!pc->stallReason[k].samples)
				continue;
			memset(v, 0, sizeof(v));
			v[pix.ts].i = ts;
			v[pix.device].i = device;
			v[pix.function].i = name;
			v[pix.crc].i = (int64_t)pc->cubinCrc;	/* unsigned 64-bit, written as its signed twin */
			v[pix.pc].i = (int64_t)pc->pcOffset;
			v[pix.reason].i = pc->stallReason[k].pcSamplingStallReasonIndex;
			v[pix.samples].i = pc->stallReason[k].samples;
			v[pix.corr].i = pc->correlationId;
			v[pix.file].i = file_id;
			v[pix.line].i = line;
			rc |= wire_add(cv->w, R_PC_SAMPLE, v);
			cv->rows++;
		}
	}
	return rc ? -1 : 0;
}

/* ---- The engine ---- */

/* One CUDA context with PC sampling enabled. */
struct pcs_ctx {
	CUcontext ctx;
	uint32_t device;
	int on;				/* enabled and configured, not yet disabled */
	size_t nreasons;
	uint32_t *reason_index;		/* the stall reasons asked for (all of the device's) */
	CUpti_PCSamplingData cfg;	/* the configuration's buffer: CUPTI fills it at module change and Disable */
	CUpti_PCSamplingData get;	/* what cuptiPCSamplingGetData fills */
	CUpti_PCSamplingStallReason *cfg_reasons, *get_reasons;	/* their per-PC reason arrays, one block each */
	int get_failed;			/* a GetData failure was recorded */
	int kept;			/* Disable failed: CUPTI may still use the buffers, never freed */
};

/* A module's cubin, kept for source lines. */
struct cubin {
	uint64_t crc;
	void *data;
	size_t size;
};

/* A PC's source line, looked up once. */
struct line_slot {
	uint64_t crc, pc;
	uint32_t function;		/* function index in the module */
	uint32_t line;
	char *file;			/* NULL when unknown */
	int used;
};

static struct {
	pthread_mutex_t lock;		/* everything below, and every PC-sampling CUPTI call */
	int on;
	int tracing;			/* the activity trace runs too */
	struct pcs_options o;
	pthread_mutex_t *wlock;		/* taken after lock, for every write */
	pcs_note_fn note;
	struct pcs_conv cv;
	struct pcs_ctx **ctx;
	size_t nctx, actx;
	uint32_t *described;		/* devices whose stall reasons were written */
	size_t ndescribed, adescribed;
	struct cubin *cubins;
	size_t ncubins, acubins, cubin_total;
	int cubins_full;		/* a cubin was not kept for lack of budget (noted once) */
	struct line_slot *lines;	/* open addressing, power-of-two size */
	size_t nlines, alines;
	int hwfull_noted;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Point every PC of d at its slice of reasons and clear what CUPTI reports. */
static void buffer_reset(CUpti_PCSamplingData *d, CUpti_PCSamplingStallReason *reasons, size_t nreasons,
			 size_t npcs)
{
	size_t i;
	CUpti_PCSamplingPCData *pcs = d->pPcData;
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->collectNumPcs = npcs;
	d->pPcData = pcs;
	for (i = 0; i < npcs; i++) {
		memset(&pcs[i], 0, sizeof(pcs[i]));
		pcs[i].size = sizeof(pcs[i]);
		pcs[i].stallReason = reasons + i * nreasons;
	}
}

/* Allocate a buffer of npcs PCs with nreasons reasons each; 0 or -1. */
static int buffer_alloc(CUpti_PCSamplingData *d, CUpti_PCSamplingStallReason **reasons, size_t nreasons,
			size_t npcs)
{
	memset(d, 0, sizeof(*d));
	d->pPcData = calloc(npcs, sizeof(*d->pPcData));
	*reasons = calloc(npcs * (nreasons ? nreasons : 1), sizeof(**reasons));
	if (!d->pPcData || !*reasons) {
		free(d->pPcData);
		free(*reasons);
		d->pPcData = NULL;
		*reasons = NULL;
		return -1;
	}
	buffer_reset(d, *reasons, nreasons, npcs);
	return 0;
}

/* Free c's sample buffers and stall-reason table, unless CUPTI may still write into them. */
static void buffers_free(struct pcs_ctx *c)
{
	if (c->kept)
		return;
	free(c->cfg.pPcData);
	free(c->get.pPcData);
	free(c->cfg_reasons);
	free(c->get_reasons);
	free(c->reason_index);
	c->cfg.pPcData = c->get.pPcData = NULL;
	c->cfg_reasons = c->get_reasons = NULL;
	c->reason_index = NULL;
}

static void ctx_free(struct pcs_ctx *c)
{
	buffers_free(c);
	if (!c->kept)
		free(c);
}

static struct pcs_ctx *find_ctx(CUcontext ctx)
{
	size_t i;
	for (i = 0; i < P.nctx; i++)
		if (P.ctx[i]->ctx == ctx && P.ctx[i]->on)
			return P.ctx[i];
	return NULL;
}

/* Write one filled buffer. */
static void write_buffer(struct pcs_ctx *c, int64_t ts, const CUpti_PCSamplingData *d)
{
	pthread_mutex_lock(P.wlock);
	pcs_convert(&P.cv, ts, c->device, d, P.o.cubin_bytes ? pcs_cubin_line : NULL, NULL);
	pthread_mutex_unlock(P.wlock);
	if (d->hardwareBufferFull && !P.hwfull_noted) {
		P.hwfull_noted = 1;
		P.note("pcsampling", "the hardware buffer of device %u overflowed and its samples were lost "
		       "(raise GPUPROF_PC_HWBUF_MB or GPUPROF_PC_PERIOD)", c->device);
	}
}

/* Read everything CUPTI holds for c. */
static void drain(struct pcs_ctx *c)
{
	int64_t ts = realtime_ns();
	int round;
	for (round = 0; c->on && round < MAX_ROUNDS; round++) {
		CUpti_PCSamplingGetDataParams p;
		CUptiResult rc;
		buffer_reset(&c->get, c->get_reasons, c->nreasons, PCS_PER_READ);
		memset(&p, 0, sizeof(p));
		p.size = CUpti_PCSamplingGetDataParamsSize;
		p.ctx = c->ctx;
		p.pcSamplingData = &c->get;
		rc = cuptiPCSamplingGetData(&p);
		if (rc != CUPTI_SUCCESS && !(rc == CUPTI_ERROR_OUT_OF_MEMORY && c->get.hardwareBufferFull)) {
			if (!c->get_failed) {
				c->get_failed = 1;
				P.note("pcsampling", "cuptiPCSamplingGetData (device %u): %s", c->device, cupti_error(rc));
			}
			return;
		}
		write_buffer(c, ts, &c->get);
		/* Done when CUPTI has nothing more, or (a guard) when a call brought nothing. */
		if (rc != CUPTI_SUCCESS || (!c->get.remainingNumPcs && !c->cfg.totalNumPcs) ||
		    (!c->get.totalNumPcs && !c->get.remainingNumPcs))
			return;
	}
}

/* Drain, disable (which flushes into the configuration's buffer), write that; c is then off. */
static void stop(struct pcs_ctx *c)
{
	CUpti_PCSamplingDisableParams p;
	CUptiResult rc;
	if (!c->on)
		return;
	drain(c);
	memset(&p, 0, sizeof(p));
	p.size = CUpti_PCSamplingDisableParamsSize;
	p.ctx = c->ctx;
	rc = cuptiPCSamplingDisable(&p);
	c->on = 0;
	if (rc != CUPTI_SUCCESS) {
		/* CUPTI may still hold the configuration's buffer: it is never freed. */
		c->kept = 1;
		P.note("pcsampling", "cuptiPCSamplingDisable (device %u): %s", c->device, cupti_error(rc));
		return;
	}
	write_buffer(c, realtime_ns(), &c->cfg);
	buffers_free(c);
}

/* The device's stall reasons into c (after Enable, as CUPTI requires); written once per device. 0 or -1. */
static int stall_reasons(struct pcs_ctx *c)
{
	CUpti_PCSamplingGetNumStallReasonsParams np;
	CUpti_PCSamplingGetStallReasonsParams sp;
	char **names;
	size_t i, n = 0;
	CUptiResult rc;
	int ok;

	memset(&np, 0, sizeof(np));
	np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
	np.ctx = c->ctx;
	np.numStallReasons = &n;
	rc = cuptiPCSamplingGetNumStallReasons(&np);
	if (rc != CUPTI_SUCCESS || !n) {
		P.note("pcsampling", "cuptiPCSamplingGetNumStallReasons (device %u): %s", c->device,
		       rc != CUPTI_SUCCESS ? cupti_error(rc) : "no stall reasons");
		return -1;
	}
	names = calloc(n, sizeof(*names));
	c->reason_index = calloc(n, sizeof(*c->reason_index));
	for (i = 0, ok = names && c->reason_index; ok && i < n; i++)
		ok = (names[i] = calloc(1, CUPTI_STALL_REASON_STRING_SIZE)) != NULL;
	if (ok) {
		memset(&sp, 0, sizeof(sp));
		sp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
		sp.ctx = c->ctx;
		sp.numStallReasons = n;
		sp.stallReasonIndex = c->reason_index;
		sp.stallReasons = names;
		rc = cuptiPCSamplingGetStallReasons(&sp);
		if (rc != CUPTI_SUCCESS) {
			P.note("pcsampling", "cuptiPCSamplingGetStallReasons (device %u): %s", c->device, cupti_error(rc));
			ok = 0;
		}
	} else {
		P.note("pcsampling", "out of memory for the stall reasons of device %u", c->device);
	}
	if (ok) {
		c->nreasons = n;
		for (i = 0; i < P.ndescribed && P.described[i] != c->device; i++)
			;
		if (i == P.ndescribed) {
			for (i = 0; i < n; i++)
				names[i][CUPTI_STALL_REASON_STRING_SIZE - 1] = '\0';
			pthread_mutex_lock(P.wlock);
			pcs_write_reasons(&P.cv, c->device, n, c->reason_index, (const char *const *)names);
			pthread_mutex_unlock(P.wlock);
			/* Out of memory: written again for the device's next context, which readers allow. */
			if (!ALLOC_GROW_SOFT(P.described, P.ndescribed + 1, P.adescribed))
				P.described[P.ndescribed++] = c->device;
		}
	}
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	return ok ? 0 : -1;
}

static const char *attribute_name(CUpti_PCSamplingConfigurationAttributeType t)
{
	switch (t) {
	case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD: return "sampling period";
	case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON: return "stall reasons";
	case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE: return "scratch buffer size";
	case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE: return "hardware buffer size";
	case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE: return "collection mode";
	case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER: return "data buffer";
	default: return "attribute";
	}
}

/* Set c's configuration: all of it, or with CUPTI's defaults for period and buffer sizes. */
static CUptiResult set_config(struct pcs_ctx *c, int with_sizes, char *failed, size_t size)
{
	CUpti_PCSamplingConfigurationInfo info[6];
	CUpti_PCSamplingConfigurationInfoParams p;
	size_t n = 0, i, len = 0;
	CUptiResult rc;

	memset(info, 0, sizeof(info));
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
	info[n++].attributeData.collectionModeData.collectionMode = P.o.mode;
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
	info[n].attributeData.stallReasonData.stallReasonCount = c->nreasons;
	info[n++].attributeData.stallReasonData.pStallReasonIndex = c->reason_index;
	info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
	info[n++].attributeData.samplingDataBufferData.samplingDataBuffer = &c->cfg;
	if (with_sizes) {
		info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
		info[n++].attributeData.scratchBufferSizeData.scratchBufferSize = P.o.scratch_bytes;
		info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
		info[n++].attributeData.hardwareBufferSizeData.hardwareBufferSize = P.o.hwbuf_bytes;
		if (P.o.period) {
			info[n].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
			info[n++].attributeData.samplingPeriodData.samplingPeriod = (uint32_t)P.o.period;
		}
	}
	memset(&p, 0, sizeof(p));
	p.size = CUpti_PCSamplingConfigurationInfoParamsSize;
	p.ctx = c->ctx;
	p.numAttributes = n;
	p.pPCSamplingConfigurationInfo = info;
	rc = cuptiPCSamplingSetConfigurationAttribute(&p);
	failed[0] = '\0';
	for (i = 0; rc != CUPTI_SUCCESS && i < n; i++)
		if (info[i].attributeStatus != CUPTI_SUCCESS && len < size)
			len += (size_t)snprintf(failed + len, size - len, "%s%s: %s", len ? ", " : "",
						 attribute_name(info[i].attributeType),
						 cupti_error(info[i].attributeStatus));
	return rc;
}

/* Configure c; on failure, once more with CUPTI's defaults. 0, or -1 with the reason noted. */
static int configure(struct pcs_ctx *c)
{
	char failed[512];
	CUptiResult rc = set_config(c, 1, failed, sizeof(failed));
	if (rc == CUPTI_SUCCESS)
		return 0;
	P.note("pcsampling", "cuptiPCSamplingSetConfigurationAttribute (device %u): %s%s%s%s", c->device,
	       cupti_error(rc), *failed ? " (" : "", failed, *failed ? ")" : "");
	rc = set_config(c, 0, failed, sizeof(failed));
	if (rc == CUPTI_SUCCESS) {
		P.note("pcsampling", "device %u samples with CUPTI's default period and buffer sizes", c->device);
		return 0;
	}
	P.note("pcsampling", "cuptiPCSamplingSetConfigurationAttribute with CUPTI's defaults (device %u): %s%s%s%s; "
	       "no PC samples from this device", c->device, cupti_error(rc), *failed ? " (" : "", failed,
	       *failed ? ")" : "");
	return -1;
}

/* A new context: enable, read the stall reasons, configure. Failures are noted and leave it off. */
static void context_created(CUcontext ctx)
{
	struct pcs_ctx *c = calloc(1, sizeof(*c));
	CUpti_PCSamplingEnableParams e;
	CUpti_PCSamplingDisableParams d;
	CUptiResult rc;

	if (!c) {
		P.note("pcsampling", "out of memory: no PC samples from a new context");
		return;
	}
	c->ctx = ctx;
	if (cuptiGetDeviceId(ctx, &c->device) != CUPTI_SUCCESS)
		c->device = 0;
	memset(&e, 0, sizeof(e));
	e.size = CUpti_PCSamplingEnableParamsSize;
	e.ctx = ctx;
	rc = cuptiPCSamplingEnable(&e);
	if (rc != CUPTI_SUCCESS) {
		P.note("pcsampling", "cuptiPCSamplingEnable (device %u): %s; %s", c->device, cupti_error(rc),
		       P.tracing ? "PC sampling does not run with activity tracing here: tracing goes on without it"
				 : "no PC samples from this device");
		ctx_free(c);
		return;
	}
	if (stall_reasons(c) == 0 &&
	    (buffer_alloc(&c->cfg, &c->cfg_reasons, c->nreasons, PCS_AT_DISABLE) ||
	     buffer_alloc(&c->get, &c->get_reasons, c->nreasons, PCS_PER_READ)))
		P.note("pcsampling", "out of memory for the sample buffers of device %u", c->device);
	else if (c->nreasons && configure(c) == 0)
		c->on = 1;
	if (c->on && ALLOC_GROW_SOFT(P.ctx, P.nctx + 1, P.actx)) {
		P.note("pcsampling", "out of memory: no PC samples from a context of device %u", c->device);
		c->on = 0;
	}
	if (!c->on) {
		memset(&d, 0, sizeof(d));
		d.size = CUpti_PCSamplingDisableParamsSize;
		d.ctx = ctx;
		/* The configuration may have handed CUPTI c's buffer: keep it unless CUPTI let go. */
		c->kept = cuptiPCSamplingDisable(&d) != CUPTI_SUCCESS;
		ctx_free(c);
		return;
	}
	P.ctx[P.nctx++] = c;
}

static struct cubin *find_cubin(uint64_t crc)
{
	size_t i;
	for (i = 0; i < P.ncubins; i++)
		if (P.cubins[i].crc == crc)
			return &P.cubins[i];
	return NULL;
}

/* Keep a copy of a loaded module's cubin, within the budget, for source lines. */
static void keep_cubin(const CUpti_ModuleResourceData *m)
{
	CUpti_GetCubinCrcParams p;
	void *copy = NULL;
	if (!m || !m->pCubin || !m->cubinSize || !P.o.cubin_bytes)
		return;
	memset(&p, 0, sizeof(p));
	p.size = CUpti_GetCubinCrcParamsSize;
	p.cubin = m->pCubin;
	p.cubinSize = m->cubinSize;
	if (cuptiGetCubinCrc(&p) != CUPTI_SUCCESS || find_cubin(p.cubinCrc))
		return;
	if (P.cubin_total + m->cubinSize > P.o.cubin_bytes || !(copy = malloc(m->cubinSize)) ||
	    ALLOC_GROW_SOFT(P.cubins, P.ncubins + 1, P.acubins)) {
		free(copy);	/* NULL unless the list could not grow */
		if (!P.cubins_full) {
			P.cubins_full = 1;
			P.note("pcsampling", "cubins beyond %zu MB are not kept (GPUPROF_PC_CUBIN_MB): samples in "
			       "them have no source lines", P.o.cubin_bytes / MB);
		}
		return;
	}
	memcpy(copy, m->pCubin, m->cubinSize);
	P.cubins[P.ncubins].crc = p.cubinCrc;
	P.cubins[P.ncubins].data = copy;
	P.cubins[P.ncubins].size = m->cubinSize;
	P.ncubins++;
	P.cubin_total += m->cubinSize;
}

static size_t line_hash(uint64_t crc, uint32_t function, uint64_t pc)
{
	uint64_t h = crc ^ (pc * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)function << 32);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return (size_t)(h ^ (h >> 32));
}

/*
 * The slot of (crc, function, pc): its entry, or the free slot where it goes; NULL when the table is
 * full and finds no memory to grow.
 */
static struct line_slot *line_find(uint64_t crc, uint32_t function, uint64_t pc)
{
	size_t j, mask;
	if ((P.nlines + 1) * 2 > P.alines) {
		size_t i, n = P.alines ? P.alines * 2 : 1024;
		struct line_slot *t = calloc(n, sizeof(*t));
		if (!t && P.nlines + 1 < P.alines)
			goto find;	/* fuller than it should be, but with room */
		if (!t)
			return NULL;
		for (i = 0; i < P.alines; i++) {
			if (!P.lines[i].used)
				continue;
			for (j = line_hash(P.lines[i].crc, P.lines[i].function, P.lines[i].pc) & (n - 1); t[j].used;
			     j = (j + 1) & (n - 1))
				;
			t[j] = P.lines[i];
		}
		free(P.lines);
		P.lines = t;
		P.alines = n;
	}
find:
	mask = P.alines - 1;
	for (j = line_hash(crc, function, pc) & mask; P.lines[j].used; j = (j + 1) & mask)
		if (P.lines[j].crc == crc && P.lines[j].function == function && P.lines[j].pc == pc)
			break;
	return &P.lines[j];
}

void pcs_cubin_line(void *arg, uint64_t cubin_crc, const char *function, uint32_t function_index,
		    uint64_t pc_offset, const char **file, uint32_t *line)
{
	struct line_slot *s;
	struct cubin *cb;
	(void)arg;
	*file = NULL;
	*line = 0;
	if (!function || !(cb = find_cubin(cubin_crc)))
		return;
	s = line_find(cubin_crc, function_index, pc_offset);
	if (!s)
		return;	/* out of memory: no line */
	if (!s->used) {
		CUpti_GetSassToSourceCorrelationParams q;
		memset(s, 0, sizeof(*s));
		s->used = 1;
		s->crc = cubin_crc;
		s->function = function_index;
		s->pc = pc_offset;
		P.nlines++;
		memset(&q, 0, sizeof(q));
		q.size = CUpti_GetSassToSourceCorrelationParamsSize;
		q.cubin = cb->data;
		q.cubinSize = cb->size;
		q.functionName = function;
		q.pcOffset = pc_offset;
		if (cuptiGetSassToSourceCorrelation(&q) == CUPTI_SUCCESS && q.fileName && *q.fileName) {
			struct buf b;
			buf_init(&b);
			if (q.dirName && *q.dirName && q.fileName[0] != '/') {
				buf_addstr(&b, q.dirName);
				if (!ends_with(q.dirName, "/"))
					buf_addch(&b, '/');
			}
			buf_addstr(&b, q.fileName);
			if (b.failed || !b.alloc) {
				buf_release(&b);	/* out of memory: no line */
			} else {
				s->file = b.s;
				s->line = q.lineNumber;
			}
		}
		free(q.fileName);
		free(q.dirName);
	}
	*file = s->file;
	*line = s->line;
}

/* Driver calls that launch kernels: in serialized mode each one's samples are read when it returns. */
static const CUpti_CallbackId launches[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunch, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

int pcs_start(CUpti_SubscriberHandle sub, const struct pcs_options *o, struct wire *w, pthread_mutex_t *wlock,
	      pcs_note_fn note, int tracing)
{
	static const CUpti_CallbackId resources[] = {
		CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
		CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
	};
	size_t i;
	CUptiResult rc;

	pthread_mutex_lock(&P.lock);
	P.o = *o;
	P.wlock = wlock;
	P.note = note;
	P.tracing = tracing;
	pcs_conv_init(&P.cv, w);
	P.cv.free_names = 1;
	for (i = 0; i < sizeof(resources) / sizeof(resources[0]); i++) {
		rc = cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, resources[i]);
		if (rc != CUPTI_SUCCESS) {
			note("pcsampling", "cuptiEnableCallback(resource %u): %s; PC sampling is off",
			     (unsigned)resources[i], cupti_error(rc));
			pthread_mutex_unlock(&P.lock);
			return -1;
		}
	}
	for (i = 0; o->mode == CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED &&
		    i < sizeof(launches) / sizeof(launches[0]); i++) {
		rc = cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, launches[i]);
		if (rc != CUPTI_SUCCESS)
			note("pcsampling", "cuptiEnableCallback(driver %u): %s; those launches are read at the next poll",
			     (unsigned)launches[i], cupti_error(rc));
	}
	P.on = 1;
	pthread_mutex_unlock(&P.lock);
	return 0;
}

static int is_launch(CUpti_CallbackId cbid)
{
	size_t i;
	for (i = 0; i < sizeof(launches) / sizeof(launches[0]); i++)
		if (launches[i] == cbid)
			return 1;
	return 0;
}

void pcs_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *info)
{
	struct pcs_ctx *c;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		/* Serialized mode: a launch has returned, its kernel has run; read its samples. */
		const CUpti_CallbackData *d = info;
		if (!is_launch(cbid) || d->callbackSite != CUPTI_API_EXIT)
			return;
		pthread_mutex_lock(&P.lock);
		if (P.on && P.o.mode == CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED &&
		    (c = find_ctx(d->context)))
			drain(c);
		pthread_mutex_unlock(&P.lock);
		return;
	}
	if (domain != CUPTI_CB_DOMAIN_RESOURCE)
		return;
	pthread_mutex_lock(&P.lock);
	if (P.on) {
		const CUpti_ResourceData *r = info;
		switch (cbid) {
		case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
			context_created(r->context);
			break;
		case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
			if ((c = find_ctx(r->context)))
				stop(c);
			break;
		case CUPTI_CBID_RESOURCE_MODULE_LOADED:
		case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
			if (!(c = find_ctx(r->context)))
				break;
			if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED)
				keep_cubin(r->resourceDescriptor);
			/* PCs are unique only within one set of loaded modules: read what came before. */
			drain(c);
			break;
		default:
			break;
		}
	}
	pthread_mutex_unlock(&P.lock);
}

void pcs_poll(void)
{
	size_t i;
	pthread_mutex_lock(&P.lock);
	for (i = 0; P.on && i < P.nctx; i++)
		drain(P.ctx[i]);
	pthread_mutex_unlock(&P.lock);
}

void pcs_finish(void)
{
	size_t i;
	pthread_mutex_lock(&P.lock);
	if (P.on) {
		for (i = 0; i < P.nctx; i++) {
			stop(P.ctx[i]);
			ctx_free(P.ctx[i]);
		}
		for (i = 0; i < P.ncubins; i++)
			free(P.cubins[i].data);
		for (i = 0; i < P.alines; i++)
			free(P.lines[i].file);
		free(P.ctx);
		free(P.cubins);
		free(P.lines);
		free(P.described);
		P.ctx = NULL;
		P.cubins = NULL;
		P.lines = NULL;
		P.described = NULL;
		P.nctx = P.ncubins = P.nlines = P.alines = P.ndescribed = 0;
		P.on = 0;
	}
	pthread_mutex_unlock(&P.lock);
}

void pcs_release(void)
{
	pthread_mutex_lock(&P.lock);
	pcs_conv_release(&P.cv);
	pthread_mutex_unlock(&P.lock);
}
