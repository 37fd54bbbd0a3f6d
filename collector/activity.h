/*
 * activity: CUPTI activity records (CUDA 13 layouts) to wire-format records. The writer thread walks
 * each completed buffer with act_buffer; tests feed hand-built buffers through the same function.
 * NVTX markers arrive as separate START and END records: they are paired here into ranges, with the
 * nesting depth per thread. A failed allocation (oom.c's event) is written here too, with the path of the
 * ranges then open on its thread (act_alloc_fail).
 *
 * Ownership: a struct act borrows the wire it writes to; act_finish frees what it holds. CUPTI's buffers
 * stay the caller's; what their records hold for the client (an overhead's overheadData, malloc'd by
 * CUPTI) is freed by act_buffer or act_release, and set to NULL so that it is never freed twice.
 */
#ifndef GPUPROF_ACTIVITY_H
#define GPUPROF_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>
#include "wire.h"

struct open_range;
struct oom_event;

struct act {
	struct wire *w;
	struct open_range *open;	/* started, not yet ended markers */
	size_t nopen, aopen;
	int64_t incomplete;		/* records CUPTI returned unfinished (end = 0): dropped, counted */
	/*
	 * Trace windows: the latest end of a kernel, copy, memset or sync converted that started before split
	 * (the open window's start; INT64_MAX when none is open), and of one that started after it.
	 */
	int64_t split, end_before, end_after;
};

void act_init(struct act *a, struct wire *w);
/*
 * Convert every record of a completed buffer; returns records converted, or -1 on a write error (the
 * records after it are not converted). Either way it frees what the records hold that CUPTI leaves to
 * the client (overheadData of OVERHEAD records); the caller still frees the buffer.
 */
int64_t act_buffer(struct act *a, uint8_t *buffer, size_t valid);
/* Free what the records of a buffer hold, as act_buffer does, for a buffer that is dropped unconverted. */
void act_release(uint8_t *buffer, size_t valid);
/*
 * The string id of a kernel's name as kernel records carry it: demangled when the C++ runtime can,
 * else as given, "(unnamed)" for NULL. With mangled, also the mangled name's id (0 when the same).
 */
int64_t act_kernel_name(struct wire *w, const char *name, int64_t *mangled);
/*
 * Forget the ranges still open, as a trace window closes: their ends will not be recorded (nor would a
 * range have its time outside the window). The number forgotten.
 */
int64_t act_cut_ranges(struct act *a);
/*
 * Write e (oom.c) as an alloc_fail record, with the NVTX path open on its thread: the names of the
 * ranges started on e->thread and not yet ended, outermost (earliest started) first, without PyTorch's
 * counters and joined with '/', as the ranges analysis paths them; none when none is open (or there is no
 * memory for it). Call it after converting the records CUPTI has finished, so that the STARTs are in.
 * 0, or -1 as wire_add.
 */
int act_alloc_fail(struct act *a, const struct oom_event *e);
/* Write ranges still open as unfinished (end null) and free the state; 0 or -1. */
int act_finish(struct act *a);

#endif
