/*
 * The gpuprof reader: a session database gpuprof-ingest wrote (each host's ranks ingested where they ran,
 * say) combined into the output: lib/sink_combine.c says how.
 */
#include "reader.h"
#include "util.h"

#include <string.h>

/* An SQLite file whose header's application id (offset 68, big-endian) is gpuprof's, "GPRF". */
static int gpuprof_detect(const char *path, int is_dir, const char *head, size_t n)
{
	(void)path;
	return !is_dir && n >= 72 && !memcmp(head, "SQLite format 3", 16) && !memcmp(head + 68, "GPRF", 4);
}

static int gpuprof_ingest(struct sink *s, const char *path, const struct reader_opts *o)
{
	int64_t events, processes;
	int rc = sink_combine(s, path, o->session, &events, &processes);
	if (rc == -2)
		return EXIT_DATA;
	if (rc)
		return EXIT_SYSTEM;
	info("%s: %lld process%s, %lld event rows", path, (long long)processes, processes == 1 ? "" : "es",
	     (long long)events);
	return EXIT_OK;
}

const struct reader gpuprof_reader = {
	"gpuprof", "a gpuprof session database (combines per-host databases; idempotent)", NULL, gpuprof_detect,
	gpuprof_ingest
};
