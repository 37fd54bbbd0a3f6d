/*
 * pcsampling: the `pcsampling` engine, warp-state PC sampling through CUPTI's PC Sampling API
 * (cupti_pcsampling.h; CUDA 13 removed the PC_SAMPLING activity kind). It runs beside the activity
 * trace of inject.c.
 *
 * Two halves:
 * - Conversion (pcs_conv_*, pcs_write_reasons, pcs_convert): CUPTI's CUpti_PCSamplingData buffers and
 *   stall-reason tables to `pc_sample`, `stall_reason`, `pc_total` and `drops` records. Pure: no CUPTI call, no
 *   global state; source lines come from a caller-supplied lookup. Tests feed hand-built buffers.
 * - The engine (pcs_start, pcs_callback, pcs_poll, pcs_finish): per context, at CONTEXT_CREATED,
 *   cuptiPCSamplingEnable, the device's stall reasons, then the configuration; cubins kept at
 *   MODULE_LOADED for source lines; cuptiPCSamplingGetData at module load and unload, after each launch
 *   in serialized mode, from the writer thread (pcs_poll) and before cuptiPCSamplingDisable at context
 *   destroy and exit. Every CUPTI call runs under one engine lock, so no two threads ever drain one
 *   context at once; the lock is taken before the wire lock, never after.
 *
 * Ownership: a struct pcs_conv borrows its wire (the caller serialises writes); pcs_conv_release frees
 * its caches. CUPTI's function-name strings are the client's to free() once every record has been
 * processed (cupti_pcsampling.h: one string may be shared by many records, activity records included):
 * the engine's converter frees each distinct one (free_names) in pcs_release, after the last activity
 * buffer; the engine owns everything else it allocates and frees it in pcs_finish.
 */
#ifndef GPUPROF_PCSAMPLING_H
#define GPUPROF_PCSAMPLING_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <cupti.h>
#include <cupti_pcsampling.h>

#include "intmap.h"
#include "wire.h"

#define PCS_MAX_NOTES 6

/* CUPTI's name for rc (a static string), for failure notes here and in inject.c. */
const char *cupti_error(CUptiResult rc);

/* Settings from GPUPROF_PC_* (see README); rejected values fall back to the default with a note. */
struct pcs_options {
	CUpti_PCSamplingCollectionMode mode;	/* CONTINUOUS (default) or KERNEL_SERIALIZED */
	int period;			/* 5..31: 2^period cycles; 0: CUPTI's default for the device */
	size_t scratch_bytes;		/* CUPTI's scratch buffer for decoded PCs */
	size_t hwbuf_bytes;		/* the device's hardware buffer */
	size_t cubin_bytes;		/* cubins kept for source lines, at most; 0: no source lines */
	char notes[PCS_MAX_NOTES][192];	/* why a setting was rejected */
	int nnotes;
};

/* Read GPUPROF_PC_MODE, _PERIOD, _SCRATCH_MB, _HWBUF_MB and _CUBIN_MB into o. */
void pcs_options_from_env(struct pcs_options *o);
/* The options as JSON members (no braces) for the session header, into out. */
void pcs_options_json(const struct pcs_options *o, char *out, size_t size);

/*
 * Where a PC comes from in the source: sets *file (valid until the next call, NULL when unknown) and
 * *line (0 when unknown).
 */
typedef void (*pcs_line_fn)(void *arg, uint64_t cubin_crc, const char *function, uint32_t function_index,
			    uint64_t pc_offset, const char **file, uint32_t *line);

struct pcs_conv {
	struct wire *w;
	struct intmap names;		/* CUPTI function-name pointer -> kernel-name string id */
	int64_t rows;			/* pc_sample records written */
	int64_t dropped;		/* samples CUPTI reported dropped */
	int64_t hwfull;			/* buffers that came back with the hardware buffer full */
	int free_names;			/* pcs_conv_release frees the names (their pointers are names' keys) */
};

void pcs_conv_init(struct pcs_conv *cv, struct wire *w);
void pcs_conv_release(struct pcs_conv *cv);
/* The device's stall-reason table as `stall_reason` records, flushed at once; 0 or -1. */
int pcs_write_reasons(struct pcs_conv *cv, uint32_t device, size_t n, const uint32_t *index,
		      const char *const *names);
/*
 * One buffer CUPTI filled: a `pc_sample` per (PC, reason) with samples, times ts (absolute ns); its
 * dropped samples and a full hardware buffer as `drops`. lines may be NULL. 0, or -1 on a write error.
 */
int pcs_convert(struct pcs_conv *cv, int64_t ts, uint32_t device, const CUpti_PCSamplingData *d,
		pcs_line_fn lines, void *arg);
/* The engine's own lookup: cubins kept at MODULE_LOADED and cuptiGetSassToSourceCorrelation. */
void pcs_cubin_line(void *arg, uint64_t cubin_crc, const char *function, uint32_t function_index,
		    uint64_t pc_offset, const char **file, uint32_t *line);

/* How the engine records a failure in the session (inject.c's note_error). */
typedef void (*pcs_note_fn)(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Start the engine on a CUPTI subscription: enables the callbacks it needs. Writes go to w under
 * wlock; tracing says whether the activity trace runs too (for the failure notes). Returns 0, or -1
 * with the reason noted (the session goes on without PC sampling).
 */
int pcs_start(CUpti_SubscriberHandle sub, const struct pcs_options *o, struct wire *w, pthread_mutex_t *wlock,
	      pcs_note_fn note, int tracing);
/* Every CUPTI callback of the subscription; ignores those it does not use. */
void pcs_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *info);
/* Drain every context (the writer thread, periodically). */
void pcs_poll(void);
/* Drain and disable every context, write what is left; before the final activity flush. */
void pcs_finish(void);
/* Free CUPTI's function-name strings; after pcs_finish and the last activity buffer converted. */
void pcs_release(void);

#endif
