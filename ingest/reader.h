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

/*
 * A top-level member that identifies a reader's JSON documents, whatever comes before it: its name, and
 * the string value it must have (NULL: any value).
 */
struct json_claim {
	const char *key;
	const char *value;
};

struct reader {
	const char *name;	/* --format value */
	const char *help;
	/* JSON documents that are this format: a list ended by { NULL }; NULL for formats that are not JSON */
	const struct json_claim *claims;
	/*
	 * Formats told apart otherwise (a directory, a file name, magic bytes): 1 if the input looks like this
	 * format, from its path and the first bytes of the (decompressed) file. Asked only when no reader
	 * claimed the input by its JSON structure. NULL when claims say it all.
	 */
	int (*detect)(const char *path, int is_dir, const char *head, size_t n);
	int (*ingest)(struct sink *s, const char *path, const struct reader_opts *o);
};

extern const struct reader ndjson_reader;
extern const struct reader kineto_reader;
extern const struct reader nsys_reader;
extern const struct reader gpuprof_reader;

#endif
