/*
 * busy: the one definition of a device's GPU span, busy and idle time, which summary, devices, idle,
 * streams and gaps all take from here (so no analysis can define them differently). GPU activity is a
 * device's kernels, copies and memsets:
 *   span = last end - first start over all its activity (0 when it had none)
 *   busy = the length of the union of those intervals, idle = span - busy
 * Kernel-only figures (summed kernel time, the union of kernel intervals) are kept apart and named so.
 *
 * Ownership: gpu_busy_get returns an array the caller frees; gpu_load_read fills a struct gpu_load the
 * caller releases with gpu_load_free.
 */
#ifndef GPUPROF_BUSY_H
#define GPUPROF_BUSY_H

#include <sqlite3.h>
#include <stdint.h>
#include <stddef.h>

#include "analysis.h"
#include "stats.h"

/* One device's figures. */
struct gpu_busy {
	int64_t device;
	int active;			/* ran a kernel, copy or memset (else every figure is 0) */
	int64_t first_ns, last_ns;	/* first start, last end of any activity */
	int64_t span_ns, busy_ns, idle_ns;	/* the definitions above */
	int64_t kernels, kernel_ns;	/* kernels only: count, summed duration */
	int64_t kernel_busy_ns;		/* kernels only: the union of their intervals */
	int64_t copy_busy_ns;		/* copies and memsets only: the union of their intervals */
	int64_t overlap_ns;		/* kernels and copies at once: kernel_busy + copy_busy - busy */
};

/*
 * Every device of the session o->session, sorted by id: those the source declared (a device that ran
 * nothing shows with active 0) and those that ran something. Computed once per (db, session) and
 * remembered until gpu_busy_drop(db) (columns_drop calls it), as summary, devices and idle all ask in one
 * report. *out is the caller's to free; 0, or -1 with a message.
 */
int gpu_busy_get(sqlite3 *db, const struct analysis_opts *o, struct gpu_busy **out, size_t *n);
/* Forget the figures remembered for db (before it is closed: another may open at its address). */
void gpu_busy_drop(sqlite3 *db);

/* GPU intervals of one device, split by what ran (kernels; copies and memsets). */
struct dev_iv {
	int64_t device;
	struct ivlist compute, copy;
	int64_t first, last;		/* first start and last end of both */
	int64_t kernels, kernel_ns;	/* its kernels: count, summed duration (read per device or per stream) */
};

/* Intervals of one (device, stream), when read per stream. */
struct stream_iv {
	int64_t device, stream;		/* stream -1: unknown */
	struct ivlist v;
	int64_t busy;			/* for the caller */
};

struct gpu_load {
	struct dev_iv *dev;		/* devices with activity, in order of first sight */
	size_t ndev, adev;
	struct stream_iv *str;		/* per stream, when read so (then dev's lists stay empty) */
	size_t nstr, astr;
};

/*
 * Every GPU interval of the session: kernels from the shared kernel columns (columns.h), copies and
 * memsets from analyze/busy.sql, into per-device lists, or with streams into per-stream lists. 0, or -1
 * with a message (g is then still g's to free).
 */
int gpu_load_read(sqlite3 *db, const struct analysis_opts *o, int streams, struct gpu_load *g);
/* The GPU span (as gpu_busy_get defines it) of `device` in a load, read per device or per stream; 0 if none. */
int64_t gpu_load_span(const struct gpu_load *g, int64_t device);
void gpu_load_free(struct gpu_load *g);

#endif
