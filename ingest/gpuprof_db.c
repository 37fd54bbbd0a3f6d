/*
 * The gpuprof reader: a session database gpuprof-ingest wrote (each host's ranks ingested where they ran,
 * say) combined into the output: ingest/sink_combine.c says how.
 */
#include "reader.h"
#include "util.h"

#include <sqlite3.h>

#include <string.h>

/*
 * An SQLite file whose header's application id (offset 68, big-endian) is gpuprof's, "GPRF"; or, made
 * before gpuprof set one, whose tables are a session database's.
 */
static int gpuprof_detect(const char *path, int is_dir, const char *head, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int found = 0;
	if (is_dir || n < 72 || memcmp(head, "SQLite format 3", 16))
		return 0;
	if (!memcmp(head + 68, "GPRF", 4))
		return 1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', "
			       "'processes', 'strings', 'kernels', 'ingest_errors')", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		found = sqlite3_column_int(st, 0) == 5;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return found;
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
