/*
 * Unit tests for collector/sampler.c's /proc parsing: the system's disk and network counters from fixture
 * copies of /proc/diskstats and /proc/net/dev (tests/data/proc/), against sums worked out by hand.
 */
#include "check.h"
#include "sampler.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A fixture file whole, NUL-terminated; NULL when it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) && (s = malloc((size_t)n + 1))) {
		s[fread(s, 1, (size_t)n, f)] = '\0';
	}
	fclose(f);
	return s;
}

int main(void)
{
	char *disk = slurp("tests/data/proc/diskstats"), *net = slurp("tests/data/proc/net/dev");
	int64_t rd = -1, wr = -1, rx = -1, tx = -1;

	CHECK(disk != NULL);
	CHECK(net != NULL);
	/*
	 * Whole disks: sda 4,000,000 / 6,000,000 sectors, sdb 20,000 / 1,000, nvme0n1 24,000,000 / 16,000,000,
	 * nvme0n10 200 / 300 and mmcblk10 40 / 60 (disks of their own: a partition of a disk whose name ends in
	 * a digit has a "p"), mmcblk0 8,000 / 80, sdaa 64 / 24 (a 14-column line of an older kernel; not a
	 * partition of sda). Left out: sda1, sda2, nvme0n1p1, mmcblk0p1 (partitions), loop0, loop1, dm-0, md0.
	 * Times 512 bytes.
	 */
	CHECK(disk && !sampler_parse_diskstats(disk, &rd, &wr));
	CHECK_EQ_I64(rd, (4000000LL + 20000 + 24000000 + 200 + 8000 + 40 + 64) * 512);
	CHECK_EQ_I64(rd, 14350491648LL);
	CHECK_EQ_I64(wr, (6000000LL + 1000 + 16000000 + 300 + 80 + 60 + 24) * 512);
	CHECK_EQ_I64(wr, 11264749568LL);
	/* Every interface but lo: eth0, docker0, and wlan0 (no blank after its colon, a large counter). */
	CHECK(net && !sampler_parse_netdev(net, &rx, &tx));
	CHECK_EQ_I64(rx, 1500000000LL + 4096 + 18446744073709LL);
	CHECK_EQ_I64(tx, 250000000LL + 8192 + 1000);

	/* Nothing that parses: -1, the outputs untouched. */
	rd = wr = rx = tx = 7;
	CHECK(sampler_parse_diskstats("", &rd, &wr) == -1);
	CHECK(sampler_parse_diskstats("garbage\nmore garbage\n", &rd, &wr) == -1);
	CHECK(sampler_parse_netdev("Inter-|   Receive |  Transmit\n face |bytes packets|bytes\n", &rx, &tx) == -1);
	CHECK(rd == 7 && wr == 7 && rx == 7 && tx == 7);
	/* Only lo: parsed, and zero. */
	CHECK(!sampler_parse_netdev("    lo: 5 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0\n", &rx, &tx));
	CHECK(rx == 0 && tx == 0);
	/* Only virtual devices and partitions of a disk not listed: parsed; the partition counts as a disk. */
	CHECK(!sampler_parse_diskstats("   7 0 loop0 1 0 8 0 1 0 8 0 0 0 0\n"
				       "   8 1 sdz1 1 0 2 0 1 0 4 0 0 0 0\n", &rd, &wr));
	CHECK(rd == 2 * 512 && wr == 4 * 512);
	free(disk);
	free(net);
	return check_done("test_sampler");
}
