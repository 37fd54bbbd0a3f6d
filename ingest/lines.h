/*
 * lines: read a plain or gzip-compressed file line by line, with bounded memory.
 *
 * lines_next returns a pointer into the reader's own buffer, valid until the next call; the line is
 * NUL-terminated (without its '\n') and may be modified in place by the caller.
 */
#ifndef GPUPROF_LINES_H
#define GPUPROF_LINES_H

#include <stddef.h>
#include <stdint.h>

struct lines;

/* Open path (gzip detected from content); NULL with a message on failure. */
struct lines *lines_open(const char *path);
/*
 * Next line: 1 with *line and *len set and *complete = whether it ended with '\n', 0 at end of file,
 * -1 on a read error (message printed).
 */
int lines_next(struct lines *r, char **line, size_t *len, int *complete);
/* 1-based number of the line last returned. */
int64_t lines_number(const struct lines *r);
void lines_close(struct lines *r);

#endif
