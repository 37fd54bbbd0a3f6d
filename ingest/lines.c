#include "lines.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CHUNK (1 << 20)
#define MAX_LINE ((size_t)1 << 30)

struct lines {
	gzFile f;
	char *path;
	char *buf;
	size_t cap, start, end;	/* unread bytes are buf[start..end) */
	int eof;
	int64_t lineno;
};

struct lines *lines_open(const char *path)
{
	struct lines *r;
	gzFile f = gzopen(path, "rb");
	if (!f) {
		error("%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->cap = util_read_chunk(path, CHUNK);
	gzbuffer(f, (unsigned)r->cap);
	r->f = f;
	r->path = xstrdup(path);
	r->buf = xmalloc(r->cap + 1);
	return r;
}

/* Read more input behind the unread bytes; 0 on success or end of file, -1 on error. */
static int fill(struct lines *r)
{
	int n;
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->end == r->cap) {
		if (r->cap >= MAX_LINE)
			return error("%s:%lld: line longer than %zu bytes", r->path, (long long)r->lineno + 1,
				     MAX_LINE);
		char *more = realloc(r->buf, r->cap * 2 + 1);
		if (!more)	/* a line too big for the memory left: the reader stops with exit 4 */
			return error_oom("out of memory reading %s:%lld", r->path, (long long)r->lineno + 1);
		r->buf = more;
		r->cap *= 2;
	}
	n = gzread(r->f, r->buf + r->end, (unsigned)(r->cap - r->end));
	if (n < 0) {
		int errnum;
		const char *msg = gzerror(r->f, &errnum);
		if (errnum == Z_BUF_ERROR) {
			/* A cut-off .gz file: keep what decompressed, like a cut-off plain file. */
			warning("%s: compressed data ends early (file cut off?)", r->path);
			r->eof = 1;
			return 0;
		}
		if (errnum == Z_MEM_ERROR)
			return error_oom("out of memory reading %s:%lld", r->path, (long long)r->lineno + 1);
		return error("%s: read error: %s", r->path, errnum == Z_ERRNO ? strerror(errno) : msg);
	}
	if (n == 0)
		r->eof = 1;
	r->end += (size_t)n;
	return 0;
}

int lines_next(struct lines *r, char **line, size_t *len, int *complete)
{
	size_t scanned = 0;
	for (;;) {
		char *p = memchr(r->buf + r->start + scanned, '\n', r->end - r->start - scanned);
		if (p) {
			*line = r->buf + r->start;
			*len = (size_t)(p - *line);
			*p = '\0';
			*complete = 1;
			r->start += *len + 1;
			r->lineno++;
			return 1;
		}
		scanned = r->end - r->start;
		if (r->eof) {
			if (r->end == r->start)
				return 0;
			*line = r->buf + r->start;
			*len = r->end - r->start;
			(*line)[*len] = '\0';
			*complete = 0;
			r->start = r->end;
			r->lineno++;
			return 1;
		}
		if (fill(r))
			return -1;
	}
}

int64_t lines_number(const struct lines *r)
{
	return r->lineno;
}

void lines_close(struct lines *r)
{
	if (!r)
		return;
	gzclose(r->f);
	free(r->path);
	free(r->buf);
	free(r);
}
