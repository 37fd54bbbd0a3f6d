/*
 * embed: data files compiled into the programs (schemas/ and analyze/ SQL files, report assets).
 * The table is generated at build time by scripts/bin2c.c; entries are static and never freed.
 */
#ifndef GPUPROF_EMBED_H
#define GPUPROF_EMBED_H

#include <stddef.h>

struct embedded {
	const char *name;	/* path relative to the source root, e.g. "analyze/hotspots.sql" */
	const char *data;	/* NUL-terminated contents */
	size_t len;
};

extern const struct embedded embedded_files[];

/* The contents of embedded file `name`, or NULL when there is none. */
const char *embed_get(const char *name);

#endif
