/*
 * activity: CUPTI activity records (CUDA 13 layouts) to wire-format records. The writer thread walks
 * each completed buffer with act_buffer; tests feed hand-built buffers through the same function.
 * NVTX markers arrive as separate START and END records: they are paired here into ranges, with the
 * nesting depth per thread.
 *
 * Ownership: a struct act borrows the wire it writes to; act_finish frees what it holds.
 */
#ifndef GPUPROF_ACTIVITY_H
#define GPUPROF_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>
#include "wire.h"

struct open_range;

struct act {
	struct wire *w;
	struct open_range *open;	/* started, not yet ended markers */
	size_t nopen, aopen;
	int64_t incomplete;		/* records CUPTI returned unfinished (end = 0): dropped, counted */
};

void act_init(struct act *a, struct wire *w);
/* Convert every record of a completed buffer; returns records converted, or -1 on a write error. */
int64_t act_buffer(struct act *a, uint8_t *buffer, size_t valid);
/*
 * The string id of a kernel's name as kernel records carry it: demangled when the C++ runtime can,
 * else as given, "(unnamed)" for NULL. With mangled, also the mangled name's id (0 when the same).
 */
int64_t act_kernel_name(struct wire *w, const char *name, int64_t *mangled);
/* Write ranges still open as unfinished (end null) and free the state; 0 or -1. */
int act_finish(struct act *a);

#endif
