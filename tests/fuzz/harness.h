/*
 * The shared libFuzzer harness for the readers: arbitrary bytes as one input file (a temporary file),
 * read by the real reader into a sink. Any crash, leak or sanitizer report fails
 * the run.
 *
 * Two sinks, one source per target: by default the checking sink (sink_check_open: no database, every
 * call checked against the sink's contract, a broken one abort()s), thousands of inputs a second; built
 * with -DFUZZ_SINK_DB, a real in-memory session database, slower, for what only SQLite checks
 * (constraints, the chunks, the time shifts). FUZZ_VERBOSE=1 in the environment shows the readers' messages.
 */
#ifndef GPUPROF_FUZZ_HARNESS_H
#define GPUPROF_FUZZ_HARNESS_H

#include "db.h"
#include "reader.h"
#include "sink.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_path[256];

static void fuzz_file_remove(void)
{
	unlink(fuzz_path);
}

/*
 * A path whose file holds exactly data[0..size): one temporary file, rewritten for each input and removed
 * at exit (a real file: SQLite opens no /proc/self/fd link); NULL on failure. It lies in /dev/shm where
 * that is writable (tmpfs: no disk), else in $TMPDIR or /tmp; it is written over and then cut to size,
 * never cut to empty first (ext4 flushes a file cut to empty to disk when it is closed: ~3 ms an
 * input).
 */
static inline const char *fuzz_file(const void *data, size_t size)
{
	static int fd = -1;
	if (fd < 0) {
		const char *dir = getenv("TMPDIR");
		if (!access("/dev/shm", W_OK))
			dir = "/dev/shm";
		snprintf(fuzz_path, sizeof(fuzz_path), "%s/gpuprof-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
		if ((fd = mkstemp(fuzz_path)) < 0)
			return NULL;
		atexit(fuzz_file_remove);
	}
	if (size && pwrite(fd, data, size, 0) != (ssize_t)size)
		return NULL;
	if (ftruncate(fd, (off_t)size))	/* (the reader, or SQLite, may have written to it) */
		return NULL;
	return fuzz_path;
}

/* Run reader r on the file at path through the target's sink. */
static inline void fuzz_ingest(const struct reader *r, const char *path)
{
	struct reader_opts o = { NULL };
	struct sink *s;
#ifdef FUZZ_SINK_DB
	static sqlite3 *db;
	static int runs;
	if (!db || ++runs % 500 == 0) {
		db_close(db);
		util_init("fuzz");
		util_set_quiet(getenv("FUZZ_VERBOSE") ? 0 : 2);
		db = db_open(":memory:", DB_WRITE);
	}
	s = sink_open(db);
	if (s)
		r->ingest(s, path, &o);
#else
	static int ready;
	if (!ready) {
		util_init("fuzz");
		util_set_quiet(getenv("FUZZ_VERBOSE") ? 0 : 2);
		ready = 1;
	}
	s = sink_check_open();
	if (s) {
		r->ingest(s, path, &o);
		sink_check_done(s);
	}
#endif
	sink_free(s);
}

/* The bytes as one input file of reader r. */
static inline int fuzz_reader(const struct reader *r, const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	if (path)
		fuzz_ingest(r, path);
	return 0;
}

#endif
