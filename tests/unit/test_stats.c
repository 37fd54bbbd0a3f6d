/* Unit tests for analyze/stats: nsys-convention statistics and interval unions. */
#include "check.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	struct dstats s;
	int64_t odd[] = { 5, 1, 9, 3, 7 }, even[] = { 10, 40, 20, 30 }, one[] = { 42 };
	struct interval iv[] = { { 10, 20 }, { 0, 5 }, { 15, 30 }, { 30, 40 }, { 50, 50 }, { 45, 48 } };
	uint64_t seed = 12345;
	int round;

	util_init("test_stats");
	stats_of(odd, 5, &s);
	CHECK_EQ_I64(s.n, 5);
	CHECK_EQ_I64(s.total, 25);
	CHECK(s.median == 5.0);
	CHECK_EQ_I64(s.min, 1);
	CHECK_EQ_I64(s.max, 9);
	CHECK(fabs(s.stddev - sqrt(10.0)) < 1e-12);	/* sample variance of 1,3,5,7,9 is 10 */

	stats_of(even, 4, &s);
	CHECK(s.median == 25.0);			/* mean of the two middle values */
	CHECK(s.mean == 25.0);

	stats_of(one, 1, &s);
	CHECK(s.stddev == 0.0 && s.median == 42.0);

	/* The median agrees with a full sort on random data of every parity, duplicates included. */
	for (round = 0; round < 200; round++) {
		size_t n = 1 + (size_t)(round * 7 % 101), i;
		int64_t *v = malloc(n * sizeof(*v)), *w = malloc(n * sizeof(*w));
		double want;
		for (i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			v[i] = w[i] = (int64_t)(seed >> 33) % (round % 3 ? 1000 : 5);
		}
		qsort(w, n, sizeof(*w), cmp);
		want = n % 2 ? (double)w[n / 2] : ((double)w[n / 2 - 1] + (double)w[n / 2]) / 2;
		stats_of(v, n, &s);
		CHECK(s.median == want);
		free(v);
		free(w);
	}

	/* Union: [0,5) + [10,40) + [45,48); the empty [50,50) adds nothing. */
	CHECK_EQ_I64(interval_union(iv, 6), 5 + 30 + 3);
	CHECK_EQ_I64(interval_union(iv, 0), 0);

	/* Large shuffled input takes the radix path; the union must equal a brute-force count. */
	{
		size_t n = 20000, i;
		struct interval *big = malloc(n * sizeof(*big));
		static unsigned char covered[3000000];
		int64_t want = 0, base = 1763822038000000000LL;
		memset(covered, 0, sizeof(covered));
		for (i = 0; i < n; i++) {
			int64_t st, len;
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			st = (int64_t)((seed >> 33) % 2900000);
			len = (int64_t)((seed >> 13) % 97);
			big[i].start = base + st;
			big[i].end = base + st + len;
			memset(covered + st, 1, (size_t)len);
		}
		for (i = 0; i < sizeof(covered); i++)
			want += covered[i];
		CHECK_EQ_I64(interval_union(big, n), want);
		for (i = 1; i < n; i++)
			if (big[i].start < big[i - 1].start)
				break;
		CHECK(i == n);
		/* Negative starts sort below positive ones. */
		for (i = 0; i < n; i++)
			big[i].start = big[i].end = (i % 2 ? (int64_t)i : -(int64_t)i) * 1000003;
		interval_union(big, n);
		for (i = 1; i < n; i++)
			if (big[i].start < big[i - 1].start)
				break;
		CHECK(i == n);
		free(big);
	}
	return check_done("test_stats");
}
