/*
 * decode: the first half of the wire-format reader, run on its own thread. It reads lines, parses them,
 * checks and decodes batch lines into typed columns, and hands the results over in file order through a
 * small bounded queue; the other thread (ndjson.c) writes them with the sink. Parsing and SQLite thus
 * run on two cores at once, with memory bounded by the queue (DECODE_SLOTS items). A file of up to 256 KiB
 * is decoded on the caller's thread instead, a line each time decode_next is called.
 *
 * Ownership: the decoder owns the items; decode_next returns one that stays valid until the next call.
 */
#ifndef GPUPROF_DECODE_H
#define GPUPROF_DECODE_H

#include <stdint.h>
#include "records.h"
#include "util.h"

#define EXCERPT 120

enum item_kind {
	IT_LINE,	/* a record that is no batch (header, strings, drops, error, end): text to parse again */
	IT_BATCH,	/* a batch line, checked and decoded */
	IT_REJECT,	/* a line the decoder rejected, with the reason */
	IT_CUT,		/* the last line is cut off (no newline, not valid JSON) */
	IT_EOF,		/* end of file */
	IT_FAIL		/* a read error; the message was printed */
};

struct item {
	enum item_kind kind;
	int64_t line;			/* 1-based line number */
	char excerpt[EXCERPT + 1];	/* the start of the line, for ingest_errors */
	char reason[512];		/* IT_REJECT */
	int first;			/* IT_REJECT: the file's first record, so no wire-format file at all */
	int64_t nuls;			/* IT_LINE, IT_BATCH: \u0000 escapes in it, each U+FFFD (lib/json.h) */
	struct buf text;		/* IT_LINE: the whole line */
	/* IT_BATCH: n rows of rec_specs[type].nfields values, row-major. */
	int type;
	int64_t seq, n;
	int64_t *vals;			/* times absolute; string ids as in the file; F_NUM as double bits;
					   F_TEXT as an offset into texts */
	uint8_t *nulls;			/* 1 = SQL NULL (null, negative F_OPT, string id 0) */
	struct buf texts;
	size_t vals_alloc, nulls_alloc;
};

struct decoder;

/* Start decoding path on a new thread (up to 256 KiB: on the caller's); NULL with a message if unopenable. */
struct decoder *decode_start(const char *path);
/* The next item in file order. After IT_EOF, IT_CUT or IT_FAIL no more items come. */
const struct item *decode_next(struct decoder *d);
/* Stop early (the caller gave up on the file), join the thread and free everything. */
void decode_finish(struct decoder *d);

#endif
