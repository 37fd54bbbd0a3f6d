/*
 * The shared libFuzzer harness: arbitrary bytes as one input file, read through the real reader into a
 * real (in-memory) session database. Any crash, leak or sanitizer report fails the run.
 */
#ifndef GPUPROF_FUZZ_HARNESS_H
#define GPUPROF_FUZZ_HARNESS_H

#include "db.h"
#include "reader.h"
#include "sink.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_reader(const struct reader *r, const uint8_t *data, size_t size)
{
	static sqlite3 *db;
	static int runs;
	struct reader_opts o = { NULL };
	struct sink *s;
	char path[64];
	int fd;

	if (!db || ++runs % 500 == 0) {
		db_close(db);
		util_init("fuzz");
		util_set_quiet(2);
		db = db_open(":memory:", DB_WRITE);
	}
	fd = memfd_create("input", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	s = sink_open(db);
	if (s)
		r->ingest(s, path, &o);
	sink_free(s);
	close(fd);
	return 0;
}

#endif
