/* Unit tests for lib/util's big-array mappings: freed ones kept for reuse, and given back by xmap_trim. */
#include "check.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BIG (64u << 20)

/* This process's resident memory in MiB (/proc/self/statm), -1 when unknown. */
static long resident_mib(void)
{
	long pages = -1, size;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f && fscanf(f, "%ld %ld", &size, &pages) != 2)
		pages = -1;
	if (f)
		fclose(f);
	return pages < 0 ? -1 : pages * sysconf(_SC_PAGESIZE) / (1 << 20);
}

int main(void)
{
	long before, held, trimmed;
	unsigned char *p, *q;
	size_t i, nonzero = 0;
	before = resident_mib();
	CHECK(before >= 0);
	p = xmap(BIG);
	memset(p, 0xab, BIG);	/* every page faulted in */
	xunmap(p, BIG);
	/* Kept for reuse: still resident, and the next array of that size gets it back, zeroed. */
	held = resident_mib();
	CHECK(held - before >= 60);
	q = xmap(BIG);
	CHECK(q == p);
	for (i = 0; i < BIG; i += 4096)
		nonzero += q[i] != 0;
	CHECK_EQ_I64(nonzero, 0);
	xunmap(q, BIG);
	/* Trimmed: given back to the system, and a new array is a new mapping (zeroed too). */
	xmap_trim();
	trimmed = resident_mib();
	CHECK(held - trimmed >= 60);
	q = xmap(BIG);
	CHECK(q[0] == 0 && q[BIG - 1] == 0);
	xunmap(q, BIG);
	xmap_trim();
	xmap_trim();	/* nothing kept: nothing to do */
	CHECK(resident_mib() - before < 16);
	return check_done("xmap");
}
