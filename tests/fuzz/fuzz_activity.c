/*
 * libFuzzer target: the collector's CUPTI record conversion (collector/activity.c). The input fills a
 * buffer with records of the real CUDA 13 layouts (cupti.h): a byte picks each record's type, the next
 * bytes are its contents; only its kind and the pointers CUPTI owns (names, overhead data) are set right.
 * act_buffer walks it with CUPTI's own cuptiActivityGetNextRecord and writes wire format, which is then
 * read back by the wire-format reader through the checking sink: what the collector writes, ingest takes.
 */
#include "harness.h"
#include "activity.h"

#include <cupti.h>
#include <stddef.h>
#include <string.h>

#define BUF_SIZE (64 * 1024)
#define NO_FIELD ((size_t)-1)

/* A record layout: its kind, size, and the offsets of up to two name pointers and of overheadData. */
struct layout {
	CUpti_ActivityKind kind;
	size_t size;
	size_t name, name2, data;
};

#define L(kind, type, n1, n2, d) { kind, sizeof(type), n1, n2, d }
static const struct layout layouts[] = {
	L(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUpti_ActivityKernel10, offsetof(CUpti_ActivityKernel10, name), NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_KERNEL, CUpti_ActivityKernel10, offsetof(CUpti_ActivityKernel10, name), NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_MEMCPY, CUpti_ActivityMemcpy6, NO_FIELD, NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_MEMCPY2, CUpti_ActivityMemcpyPtoP4, NO_FIELD, NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_MEMSET, CUpti_ActivityMemset4, NO_FIELD, NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUpti_ActivitySynchronization2, NO_FIELD, NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_MEMORY2, CUpti_ActivityMemory4, offsetof(CUpti_ActivityMemory4, name), NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_RUNTIME, CUpti_ActivityAPI, NO_FIELD, NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_DRIVER, CUpti_ActivityAPI, NO_FIELD, NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_MARKER, CUpti_ActivityMarker2, offsetof(CUpti_ActivityMarker2, name),
	  offsetof(CUpti_ActivityMarker2, domain), NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_DEVICE, CUpti_ActivityDevice5, offsetof(CUpti_ActivityDevice5, name), NO_FIELD, NO_FIELD),
	L(CUPTI_ACTIVITY_KIND_OVERHEAD, CUpti_ActivityOverhead3, NO_FIELD, NO_FIELD, offsetof(CUpti_ActivityOverhead3, overheadData)),
};
#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

/* Names as CUPTI would hand them over: NULL, empty, mangled, hostile. */
static const char *const names[] = { NULL, "", "_Z5saxpyifPKfPf", "_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_",
				     "saxpy(int, float, float const*, float*)", "\"quoted\"\n\t\x01", "\xc3\x28", "_Z" };

static void set_ptr(uint8_t *rec, size_t off, const void *p)
{
	if (off != NO_FIELD)
		memcpy(rec + off, &p, sizeof(p));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *buf;
	static char path[300];
	struct wire_header h = { "fuzz-activity", "gpuprof fuzz", "fuzz", NULL, 1, 0, "fuzzhost", "trace", NULL,
				 1763822038000000000LL };
	size_t used = 0, at = 0;
	struct wire *w;
	struct act a;

	if (!buf && !(buf = aligned_alloc(8, BUF_SIZE)))
		return 0;
	if (!*path) {
		if (!fuzz_file("", 0))
			return 0;
		snprintf(path, sizeof(path), "%s.ndjson", fuzz_path);
	}
	while (at + 2 <= size) {
		const struct layout *l = &layouts[data[at] % NLAYOUTS];
		uint8_t *rec = buf + used;
		size_t take = size - at - 2 < l->size ? size - at - 2 : l->size;
		if (used + l->size > BUF_SIZE)
			break;
		memset(rec, 0, l->size);
		memcpy(rec, data + at + 2, take);
		memcpy(rec, &l->kind, sizeof(l->kind));	/* (kind is every record's first member) */
		set_ptr(rec, l->name, names[data[at + 1] % 8]);
		set_ptr(rec, l->name2, names[(data[at + 1] >> 3) % 8]);
		set_ptr(rec, l->data, NULL);
		used += (l->size + 7) & ~(size_t)7;
		at += 2 + take;
	}
	unlink(path);
	if (!(w = wire_open(path, &h)))
		return 0;
	act_init(&a, w);
	act_buffer(&a, buf, used);
	act_finish(&a);
	wire_close(w, 0, 1);
	fuzz_ingest(&ndjson_reader, path);
	unlink(path);
	return 0;
}
