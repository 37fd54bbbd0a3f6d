/*
 * Hand-built CUPTI PC-sampling buffers (the real CUDA 13 CUpti_PCSamplingData, CUpti_PCSamplingPCData
 * and CUpti_PCSamplingStallReason, size fields set as the API asks) fed through the engine's own
 * conversion (pcs_write_reasons, pcs_convert) into a wire file, beside kernel records of the same
 * functions through the activity path. Prints, as JSON on stdout, every row the database should hold;
 * tests/collector.py ingests the file and compares field by field.
 *   test_pcsampling OUT.ndjson > expected.json
 */
#include "activity.h"
#include "pcsampling.h"
#include "util.h"
#include "wire.h"

#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORIGIN 1763822038000000000LL
#define PREFIX "smsp__pcsamp_warps_issue_stalled_"
#define CRC_A 0xfedcba9876543210ULL	/* above 2^63: written as its signed twin */
#define CRC_B 0x0123456789abcdefULL

/* Two devices whose tables number the reasons differently. */
static uint32_t index0[] = { 0, 3, 5, 7, 9, 12 };
static const char *names0[] = { PREFIX "barrier", PREFIX "long_scoreboard", PREFIX "math_pipe_throttle", PREFIX "wait",
				PREFIX "long_scoreboard_not_issued", PREFIX "selected" };
static uint32_t index1[] = { 1, 2, 4 };
static const char *names1[] = { PREFIX "long_scoreboard", PREFIX "short_scoreboard", PREFIX "wait" };

/* One planted PC and its (reason, samples) pairs; a pair with 0 samples must give no row. */
struct plant {
	uint32_t device;
	const char *mangled;
	uint64_t crc, pc;
	uint32_t function_index, correlation;
	size_t nreasons;
	uint32_t reason[4], samples[4];
};

static const struct plant buffer1[] = {	/* device 0, continuous mode: correlation 0 */
	{ 0, "_Z11memory_walkPKfPfii", CRC_A, 0x80, 1, 0, 3, { 3, 9, 0 }, { 40, 12, 0 } },
	{ 0, "_Z11memory_walkPKfPfii", CRC_A, 0x90, 1, 0, 1, { 3 }, { 25 } },
	{ 0, "_Z9fma_chainPfi", CRC_A, 0x40, 2, 0, 2, { 5, 7 }, { 30, 18 } },
	{ 0, "plain_c_kernel", CRC_B, 0x10, 0, 0, 1, { 12 }, { 5 } },
};
static const struct plant buffer2[] = {	/* device 1, serialized mode: launches' correlation ids */
	{ 1, "_Z11memory_walkPKfPfii", CRC_B, 0x80, 1, 42, 2, { 1, 4 }, { 7, 3 } },
	{ 1, "_Z9fma_chainPfi", CRC_B, 0x40, 2, 43, 1, { 2 }, { 9 } },
};

/* The test's source lines: one PC has one, the rest none. */
static void fake_lines(void *arg, uint64_t crc, const char *function, uint32_t function_index, uint64_t pc,
		       const char **file, uint32_t *line)
{
	(void)arg;
	(void)function_index;
	*file = NULL;
	*line = 0;
	if (crc == CRC_A && pc == 0x80 && function && !strcmp(function, "_Z11memory_walkPKfPfii")) {
		*file = "/src/workload.cu";
		*line = 42;
	}
}

/* A CUpti_PCSamplingData holding the planted PCs, laid out as CUPTI fills one. */
static CUpti_PCSamplingData *build(const struct plant *p, size_t n, size_t collect)
{
	CUpti_PCSamplingData *d = xcalloc(1, sizeof(*d));
	size_t i, k;
	d->size = sizeof(*d);
	d->collectNumPcs = collect;
	d->pPcData = xcalloc(collect, sizeof(*d->pPcData));
	d->totalNumPcs = n;
	for (i = 0; i < n; i++) {
		CUpti_PCSamplingPCData *pc = &d->pPcData[i];
		pc->size = sizeof(*pc);
		pc->cubinCrc = p[i].crc;
		pc->pcOffset = p[i].pc;
		pc->functionIndex = p[i].function_index;
		pc->functionName = xstrdup(p[i].mangled);	/* CUPTI's are heap strings too */
		pc->correlationId = p[i].correlation;
		pc->stallReason = xcalloc(4, sizeof(*pc->stallReason));
		pc->stallReasonCount = p[i].nreasons;
		for (k = 0; k < p[i].nreasons; k++) {
			pc->stallReason[k].pcSamplingStallReasonIndex = p[i].reason[k];
			pc->stallReason[k].samples = p[i].samples[k];
		}
	}
	return d;
}

static void release(CUpti_PCSamplingData *d)
{
	size_t i;
	for (i = 0; i < d->collectNumPcs; i++) {
		free(d->pPcData[i].functionName);
		free(d->pPcData[i].stallReason);
	}
	free(d->pPcData);
	free(d);
}

static const char *reason_name(uint32_t device, uint32_t id)
{
	size_t i;
	for (i = 0; device == 0 && i < sizeof(index0) / sizeof(index0[0]); i++)
		if (index0[i] == id)
			return names0[i];
	for (i = 0; device == 1 && i < sizeof(index1) / sizeof(index1[0]); i++)
		if (index1[i] == id)
			return names1[i];
	return "?";
}

/* The rows the database should hold for one planted buffer, as JSON array elements. */
static void expect(const struct plant *p, size_t n, int64_t ts, int with_line, int *first)
{
	size_t i, k;
	for (i = 0; i < n; i++) {
		char *name = NULL;
		int status = -1;
		extern char *__cxa_demangle(const char *, char *, size_t *, int *);
		if (!strncmp(p[i].mangled, "_Z", 2))
			name = __cxa_demangle(p[i].mangled, NULL, NULL, &status);
		for (k = 0; k < p[i].nreasons; k++) {
			int line = with_line && p[i].crc == CRC_A && p[i].pc == 0x80;
			if (!p[i].samples[k])
				continue;
			printf("%s\n  [%lld, %u, \"%s\", %lld, %llu, \"%s\", %u, %u, %s, %d]", *first ? "" : ",",
			       (long long)ts, p[i].device,
			       status == 0 ? name : p[i].mangled, (long long)p[i].crc, (unsigned long long)p[i].pc,
			       reason_name(p[i].device, p[i].reason[k]), p[i].samples[k], p[i].correlation,
			       line ? "\"/src/workload.cu\"" : "null", line ? 42 : 0);
			*first = 0;
		}
		free(name);
	}
}

/* A finished kernel record of the given name, so samples can be joined to kernels by name. */
static void *kernel_record(uint8_t *at, const char *name, uint32_t device, uint32_t corr, int64_t start)
{
	CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)at;
	memset(k, 0, sizeof(*k));
	k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k->start = (uint64_t)start;
	k->end = (uint64_t)start + 1000;
	k->completed = k->end;
	k->deviceId = device;
	k->correlationId = corr;
	k->name = name;
	return at + ((sizeof(*k) + 7) & ~(size_t)7);
}

int main(int argc, char **argv)
{
	struct wire_header h = { "pcsampling-test", "gpuprof test", "test_pcsampling", NULL, 1234, 1, "testhost",
				 "pcsampling", NULL, ORIGIN };
	CUpti_PCSamplingData *b1, *b2, *b3;
	struct pcs_conv cv;
	struct act a;
	struct wire *w;
	uint8_t *kbuf, *end;
	int first = 1, rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: test_pcsampling OUT.ndjson\n");
		return 2;
	}
	util_init(argv[0]);
	remove(argv[1]);
	if (!(w = wire_open(argv[1], &h))) {
		perror(argv[1]);
		return 4;
	}
	act_init(&a, w);
	pcs_conv_init(&cv, w);

	/* Kernels of the sampled functions, through the activity path. */
	kbuf = aligned_alloc(8, 4096);
	end = kernel_record(kbuf, "_Z11memory_walkPKfPfii", 0, 10, ORIGIN + 1000);
	end = kernel_record(end, "_Z9fma_chainPfi", 0, 11, ORIGIN + 3000);
	end = kernel_record(end, "plain_c_kernel", 0, 12, ORIGIN + 5000);
	end = kernel_record(end, "_Z11memory_walkPKfPfii", 1, 42, ORIGIN + 7000);
	end = kernel_record(end, "_Z9fma_chainPfi", 1, 43, ORIGIN + 9000);
	rc |= act_buffer(&a, kbuf, (size_t)(end - kbuf)) != 5;

	rc |= pcs_write_reasons(&cv, 0, sizeof(index0) / sizeof(index0[0]), index0, names0);
	rc |= pcs_write_reasons(&cv, 1, sizeof(index1) / sizeof(index1[0]), index1, names1);

	/* Buffer 1: device 0, 17 samples dropped, one PC with a source line. */
	b1 = build(buffer1, 4, 8);
	b1->droppedSamples = 17;
	b1->totalSamples = 147;
	b1->nonUsrKernelsTotalSamples = 5;
	rc |= pcs_convert(&cv, ORIGIN + 20000, 0, b1, fake_lines, NULL);
	/* Buffer 2: device 1, the hardware buffer overflowed; the engine's lookup (no cubins: no lines). */
	b2 = build(buffer2, 2, 2);
	b2->hardwareBufferFull = 1;
	rc |= pcs_convert(&cv, ORIGIN + 30000, 1, b2, pcs_cubin_line, NULL);
	/* Buffer 3: CUPTI says 2 PCs in a buffer of 1: only what fits is read. No lookup at all. */
	b3 = build(buffer2, 1, 1);
	b3->totalNumPcs = 2;
	b3->totalSamples = 9;
	b3->nonUsrKernelsTotalSamples = 2;
	rc |= pcs_convert(&cv, ORIGIN + 40000, 1, b3, NULL, NULL);

	act_finish(&a);
	rc |= wire_close(w, ORIGIN + 50000, 1);
	if (rc) {
		fprintf(stderr, "test_pcsampling: a write failed\n");
		return 1;
	}

	printf("{\"origin\": %lld, \"rows_written\": %lld, \"dropped\": %lld, \"hwfull\": %lld,\n", (long long)ORIGIN,
	       (long long)cv.rows, (long long)cv.dropped, (long long)cv.hwfull);
	printf(" \"samples\": [");
	expect(buffer1, 4, ORIGIN + 20000, 1, &first);
	expect(buffer2, 2, ORIGIN + 30000, 0, &first);
	expect(buffer2, 1, ORIGIN + 40000, 0, &first);
	printf("],\n");
	printf(" \"reasons\": [[0, 0, \"%s\"], [0, 3, \"%s\"], [0, 5, \"%s\"], [0, 7, \"%s\"], [0, 9, \"%s\"], "
	       "[0, 12, \"%s\"], [1, 1, \"%s\"], [1, 2, \"%s\"], [1, 4, \"%s\"]]}\n",
	       names0[0], names0[1], names0[2], names0[3], names0[4], names0[5], names1[0], names1[1], names1[2]);
	pcs_conv_release(&cv);
	release(b1);
	release(b2);
	release(b3);
	free(kbuf);
	return 0;
}
