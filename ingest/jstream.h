/*
 * jstream: a JSON document read as a stream of values, from a plain or gzip-compressed file, with
 * bounded memory. The caller walks the structure itself (jstream_next/jstream_peek for punctuation) and
 * takes each value it wants whole (jstream_value), as text for lib/json, or skips it unread.
 *
 * A struct jstream owns its file and buffer: jstream_open fills it, jstream_close frees both.
 */
#ifndef GPUPROF_JSTREAM_H
#define GPUPROF_JSTREAM_H

#include <stdint.h>
#include <zlib.h>

#include "util.h"

struct jstream {
	gzFile f;
	char *buf;
	size_t cap;		/* its size */
	size_t pos, end;	/* unread bytes are buf[pos..end) */
	int64_t consumed;	/* bytes before buf[0], for messages */
	int eof;
	int err;		/* 1: the compressed file is cut off; 2: a read error */
};

/* Open path for reading; 0, or -1 with a message. */
int jstream_open(struct jstream *in, const char *path);
void jstream_close(struct jstream *in);
/* The next character that is not white space, consumed; -1 at the end of input (or on an error). */
int jstream_next(struct jstream *in);
/* Like jstream_next, without consuming it. */
int jstream_peek(struct jstream *in);
/*
 * One complete JSON value (object, array, string or scalar), copied as text into out (reset first), or
 * skipped when out is NULL. Only nesting and strings are tracked, nothing is parsed. Returns 0, or -1
 * when the input ends first.
 */
int jstream_value(struct jstream *in, struct buf *out);
/* Bytes consumed so far, for messages. */
int64_t jstream_offset(const struct jstream *in);

#endif
