/*
 * jstream: JSON values from a (possibly gzipped) file, one at a time. See jstream.h.
 */
#include "jstream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (1 << 20)

int jstream_open(struct jstream *in, const char *path)
{
	memset(in, 0, sizeof(*in));
	if (!(in->f = gzopen(path, "rb")))
		return error("%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
	in->cap = util_read_chunk(path, CHUNK);
	gzbuffer(in->f, (unsigned)in->cap);
	in->buf = xmalloc(in->cap);
	return 0;
}

void jstream_close(struct jstream *in)
{
	if (in->f)
		gzclose(in->f);
	free(in->buf);
	memset(in, 0, sizeof(*in));
}

static int fill(struct jstream *in)
{
	int n;
	if (in->eof || in->err)
		return 0;
	in->consumed += (int64_t)in->end;
	in->pos = in->end = 0;
	n = gzread(in->f, in->buf, (unsigned)in->cap);
	if (n < 0) {
		int errnum;
		gzerror(in->f, &errnum);
		in->err = errnum == Z_BUF_ERROR ? 1 : 2;
		return 0;
	}
	if (n == 0)
		in->eof = 1;
	in->end = (size_t)n;
	return n;
}

int64_t jstream_offset(const struct jstream *in)
{
	return in->consumed + (int64_t)in->pos;
}

int jstream_next(struct jstream *in)
{
	for (;;) {
		while (in->pos < in->end) {
			char c = in->buf[in->pos++];
			if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
				return (unsigned char)c;
		}
		if (!fill(in))
			return -1;
	}
}

int jstream_peek(struct jstream *in)
{
	int c = jstream_next(in);
	if (c >= 0)
		in->pos--;
	return c;
}

int jstream_value(struct jstream *in, struct buf *out)
{
	int depth = 0, in_str = 0, esc = 0, scalar = 0, c, copied = 0;
	if (out)
		buf_reset(out);
	if ((c = jstream_peek(in)) < 0)
		return -1;
	if (c != '{' && c != '[' && c != '"')
		scalar = 1;
	for (;;) {
		char *p, *q, *e;
		int done = 0;
		if (in->pos == in->end && !fill(in))
			return scalar && copied ? 0 : -1;
		p = in->buf + in->pos;
		e = in->buf + in->end;
		for (q = p; q < e && !done; q++) {
			char ch = *q;
			if (in_str) {
				if (esc)
					esc = 0;
				else if (ch == '\\')
					esc = 1;
				else if (ch == '"') {
					in_str = 0;
					done = depth == 0;
				}
			} else if (scalar) {
				if (ch == ',' || ch == '}' || ch == ']' || ch == ' ' || ch == '\n' || ch == '\r' ||
				    ch == '\t') {
					done = 1;
					q--;	/* the delimiter is not part of the value */
				}
			} else if (ch == '"') {
				in_str = 1;
			} else if (ch == '{' || ch == '[') {
				depth++;
			} else if (ch == '}' || ch == ']') {
				done = --depth == 0;
			}
		}
		if (out)
			buf_add(out, p, (size_t)(q - p));
		copied |= q > p;
		in->pos += (size_t)(q - p);
		if (done)
			return 0;
	}
}
