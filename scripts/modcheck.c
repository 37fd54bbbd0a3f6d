/*
 * modcheck: check the analysis modules' headers before the build embeds them.
 *
 *   modcheck analyze/NAME.sql...
 *
 * makes the analyses table from the files as the programs make it from the embedded ones (analyses_load:
 * every header parsed, names matching files, includes resolved, options and gates built in, places in the
 * report distinct) and exits 0; a malformed header is one message "FILE:LINE: what" and exit 3. The
 * Makefile runs it over analyze/NAME.sql, every one, so a malformed header fails the build.
 */
#include "analysis.h"
#include "embed.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nothing embedded: the files are read from the command line. */
const struct embedded embedded_files[] = { { NULL, NULL, 0 } };

/* The whole file at path, NUL-terminated; NULL with a message. */
static char *slurp(const char *path)
{
	FILE *in = fopen(path, "rb");
	struct buf b;
	char chunk[8192];
	size_t n;
	if (!in) {
		error("cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(in)) {
		error("cannot read '%s': read error", path);
		fclose(in);
		buf_release(&b);
		return NULL;
	}
	fclose(in);
	return b.len ? b.s : xstrdup("");
}

static const char **texts;	/* (static: the modules point into them until exit) */

int main(int argc, char **argv)
{
	int i;
	util_init("modcheck");
	if (argc < 2) {
		fprintf(stderr, "usage: modcheck analyze/NAME.sql...\n");
		return EXIT_USAGE;
	}
	texts = xcalloc((size_t)argc, sizeof(*texts));
	for (i = 1; i < argc; i++)
		if (!(texts[i - 1] = slurp(argv[i])))
			return EXIT_SYSTEM;
	return analyses_load(argc - 1, (const char *const *)argv + 1, texts) ? EXIT_DATA : EXIT_OK;
}
