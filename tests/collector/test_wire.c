/*
 * Failed writes in collector/wire.c: with the file size limit (RLIMIT_FSIZE) at the header's size,
 * markers named by new strings are added until three batch lines have failed, then the limit is lifted and
 * a few more markers (named by a string whose declaration failed) are written. Nothing may crash, the lost
 * batches are counted, and the later lines must be whole and valid: tests/collector.py ingests the file.
 * Prints what happened as JSON on stdout.
 *   test_wire OUT.ndjson > result.json
 */
#include "util.h"
#include "wire.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define ORIGIN 1763822038000000000LL
#define FAILURES 3	/* batch lines to lose; more than one shows the buffer is reused after a failure */
#define KEPT 10		/* markers added after the limit is lifted */

/* One marker at ORIGIN + i named name; wire_add's result. */
static int add_marker(struct wire *w, int64_t i, const char *name)
{
	struct value v[REC_MAX_FIELDS];
	memset(v, 0, sizeof(v));
	v[rec_field(R_MARKER, "ts")].i = ORIGIN + i;
	v[rec_field(R_MARKER, "thread")].i = 7;
	v[rec_field(R_MARKER, "name")].i = wire_string(w, name);
	return wire_add(w, R_MARKER, v);
}

int main(int argc, char **argv)
{
	struct wire_header h = { "wire-test", "gpuprof test", "test_wire", NULL, 1234, 1, "testhost", "trace",
				 NULL, ORIGIN };
	struct rlimit old, lim;
	struct stat st;
	struct wire *w;
	int64_t added = 0, failed_adds = 0, lost, i;
	int flush_rc, close_rc;
	char name[32];

	if (argc != 2) {
		fprintf(stderr, "usage: test_wire OUT.ndjson\n");
		return 2;
	}
	util_init(argv[0]);
	remove(argv[1]);
	w = wire_open(argv[1], &h);
	if (!w || stat(argv[1], &st) || getrlimit(RLIMIT_FSIZE, &old)) {
		perror(argv[1]);
		return 4;
	}
	signal(SIGXFSZ, SIG_IGN);	/* a write past the limit fails with EFBIG instead */
	lim = old;
	lim.rlim_cur = (rlim_t)st.st_size;
	if (setrlimit(RLIMIT_FSIZE, &lim)) {
		perror("setrlimit");
		return 4;
	}
	while (failed_adds < FAILURES && added < 1000000) {
		snprintf(name, sizeof(name), "lost-%lld", (long long)added);
		failed_adds += add_marker(w, added, name) != 0;
		added++;
	}
	lost = wire_lost(w);
	if (setrlimit(RLIMIT_FSIZE, &old)) {
		perror("setrlimit");
		return 4;
	}
	for (i = 0; i < KEPT; i++)
		add_marker(w, added + i, "lost-1");
	flush_rc = wire_flush(w);
	close_rc = wire_close(w, ORIGIN + 1000000, 1);
	printf("{\"added\":%lld,\"failed_adds\":%lld,\"lost\":%lld,\"kept\":%d,\"flush\":%d,\"close\":%d}\n",
	       (long long)added, (long long)failed_adds, (long long)lost, KEPT, flush_rc, close_rc);
	return 0;
}
