/*
 * wire: writes one wire-format file (schemas/wire-format.md) from typed records (lib/records.h), the
 * same records the ingest side reads. Rows are buffered per type and written as columnar batch lines;
 * each line goes out with a single write(), so a killed process leaves only whole lines behind.
 *
 * Not thread-safe: one thread owns a struct wire. Never aborts, whatever runs out (libgpuprof.so runs it). Ownership: wire_open copies what it keeps;
 * wire_close flushes, writes the session-end record and frees everything.
 */
#ifndef GPUPROF_WIRE_H
#define GPUPROF_WIRE_H

#include <stdint.h>
#include "records.h"

struct wire_header {
	const char *session;	/* session id, shared by every file of the session */
	const char *collector;	/* e.g. "gpuprof 0.1.0" */
	const char *program;
	const char *const *args;	/* NULL-terminated, may be NULL */
	int64_t pid, ppid;
	const char *hostname;
	const char *engine;
	const char *options_json;	/* a JSON object, or NULL */
	int64_t origin_ns;		/* Unix-epoch ns; record times are relative to it */
};

struct wire;

/* Create path (failing if it exists) and write the header; NULL with errno set on failure (no file left). */
struct wire *wire_open(const char *path, const struct wire_header *h);
/*
 * The id of string s in this file, declared on the next flush if new. 0 for NULL; -1 when out of memory,
 * and wire_add then drops the record that carries it.
 */
int64_t wire_string(struct wire *w, const char *s);
/* The text of string id (from wire_string), or NULL when id names none; it stays valid until wire_close. */
const char *wire_text(const struct wire *w, int64_t id);
/*
 * Add one record: vals[] in rec_specs[t] field order, times ABSOLUTE ns (relative ones are written),
 * string fields as ids from wire_string, text fields as NUL-terminated strings (copied).
 * Writes a batch line when the type's buffer is full. Returns 0, or -1 on a write error: that batch's
 * records are then lost (wire_lost), and the buffer is empty again for the next ones.
 * Never aborts: a record that finds no memory (for its row, its text, one of its strings, its batch
 * line) is dropped and counted, and the next flush writes the counts as `drops` lines of source
 * "memory", what "TYPE records". Such records are not in the end record's totals.
 */
int wire_add(struct wire *w, enum rec_type t, const struct value *vals);
/* Count n records of type t dropped before they reached the wire for lack of memory (as wire_add does). */
void wire_nomem(struct wire *w, enum rec_type t, int64_t n);
/* Write every buffered row (strings first); 0 or -1. */
int wire_flush(struct wire *w);
int wire_drops(struct wire *w, int64_t ts_ns, const char *source, const char *what, int64_t count);
int wire_error(struct wire *w, int64_t ts_ns, const char *what, const char *reason);
/*
 * A trace window (--trace-window): activity tracing on from start_ns; end_ns -1 while it is still on, else
 * when it ended, with the ranges it cut (open at its end, left out). A window is written when it opens and
 * again, same start, each time its end is known or grows. 0 or -1.
 */
int wire_window(struct wire *w, int64_t start_ns, int64_t end_ns, int64_t ranges_cut);
/* Close and free without writing anything more (a forked child's copy of its parent's wire). */
void wire_discard(struct wire *w);
/* Records lost with batch lines that could not be written (a full disk, a file size limit). */
int64_t wire_lost(const struct wire *w);
/*
 * Flush, write the session-end record (when clean), close and free. 0 or -1. The line buffer keeps
 * room for drops, error and end lines from wire_open on, so these never fail for lack of memory.
 */
int wire_close(struct wire *w, int64_t end_ns, int clean);

#endif
