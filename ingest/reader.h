/*
 * reader: the interface every input format implements for gpuprof-ingest. A reader turns one input
 * (a file or a session directory) into sink calls inside one transaction it opens and closes itself.
 *
 * ingest returns an exit code: EXIT_OK; EXIT_DATA when lines were rejected (the valid rest is committed)
 * or the input could not be read as this format (nothing written); EXIT_SYSTEM on I/O or database
 * failure (rolled back). Messages are printed by the reader.
 */
#ifndef GPUPROF_READER_H
#define GPUPROF_READER_H

#include <stddef.h>
#include "sink.h"

struct reader_opts {
	const char *session;	/* --session: session id to store into (merging inputs), or NULL */
};

struct reader {
	const char *name;	/* --format value */
	const char *help;
	/* 1 if the input looks like this format: path, and the first bytes of the (decompressed) file. */
	int (*detect)(const char *path, int is_dir, const char *head, size_t n);
	int (*ingest)(struct sink *s, const char *path, const struct reader_opts *o);
};

extern const struct reader ndjson_reader;
extern const struct reader kineto_reader;
extern const struct reader nsys_reader;

#endif
