/*
 * libFuzzer target for the wire-format reader: arbitrary bytes as an .ndjson file, read through the
 * real reader into a real (in-memory) session database. Any crash, leak or sanitizer report fails.
 *   make fuzz FUZZ_SECONDS=60
 */
#include "db.h"
#include "reader.h"
#include "sink.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sqlite3 *db;
	static int runs;
	struct reader_opts o = { NULL };
	struct sink *s;
	char path[64];
	int fd;

	if (!db || ++runs % 500 == 0) {
		db_close(db);
		util_init("fuzz_ndjson");
		util_set_quiet(2);
		db = db_open(":memory:", DB_WRITE);
	}
	fd = memfd_create("input.ndjson", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	s = sink_open(db);
	if (s)
		ndjson_reader.ingest(s, path, &o);
	sink_free(s);
	close(fd);
	return 0;
}
