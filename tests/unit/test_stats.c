/* Unit tests for analyze/ext/dstats and analyze/ext/spans: nsys-convention statistics and interval unions. */
#include "check.h"
#include "dstats.h"
#include "spans.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static unsigned char in_a[3000000], in_b[3000000];

/* spans_union's callback: append the span to the ivlist arg. */
static void append(void *arg, int64_t start, int64_t end)
{
	struct ivlist *l = arg;
	if (l->n == l->alloc)
		ivlist_grow(l);
	l->v[l->n].start = start;
	l->v[l->n].end = end;
	l->n++;
}

/* Spans checked against point-by-point coverage: merged lists are disjoint, maximal and cover exactly
 * what their intervals cover; intersect and union (both ways) agree with the counts. v holds n intervals
 * starting at base, sorted; covered is their coverage. */
static void spans_checks(const struct interval *v, size_t n, int64_t base, const unsigned char *covered)
{
	struct ivlist a, b, all, both[2], out = { NULL, 0, 0, 0 };
	int64_t len_a = 0, len_b = 0, len_and = 0, len_or = 0, got;
	size_t i, j;
	int ok;

	ivlist_reserve(&a, n);
	ivlist_reserve(&b, n);
	ivlist_reserve(&all, n);
	memset(in_a, 0, sizeof(in_a));
	memset(in_b, 0, sizeof(in_b));
	for (i = 0; i < n; i++) {
		struct ivlist *l = i % 3 ? &a : &b;
		l->v[l->n++] = v[n - 1 - i];		/* reversed: spans_merge sorts */
		all.v[all.n++] = v[i];
		memset((i % 3 ? in_a : in_b) + (v[n - 1 - i].start - base), 1,
		       (size_t)(v[n - 1 - i].end - v[n - 1 - i].start));
	}
	for (i = 0; i < sizeof(in_a); i++) {
		len_a += in_a[i];
		len_b += in_b[i];
		len_and += in_a[i] && in_b[i];
		len_or += in_a[i] || in_b[i];
	}
	CHECK_EQ_I64(spans_merge(&a), len_a);
	CHECK_EQ_I64(spans_merge(&b), len_b);
	CHECK_EQ_I64(spans_merge(&all), len_or);
	ok = 1;
	for (i = 0; i < all.n; i++) {
		int64_t s = all.v[i].start - base, e = all.v[i].end - base;
		ok &= s < e && (i == 0 || all.v[i].start > all.v[i - 1].end);
		ok &= (s == 0 || !covered[s - 1]) && !covered[e];	/* maximal: no covered point next to it */
		for (j = (size_t)s; j < (size_t)e; j++)
			ok &= covered[j];
	}
	CHECK(ok);
	CHECK_EQ_I64(spans_intersect(&a, &b), len_and);
	CHECK_EQ_I64(spans_intersect(&b, &a), len_and);
	both[0] = a;
	both[1] = b;
	CHECK_EQ_I64(spans_union(both, 2, NULL, NULL), len_or);
	got = spans_union(both, 2, append, &out);
	CHECK_EQ_I64(got, len_or);
	CHECK(out.n == all.n && !memcmp(out.v, all.v, all.n * sizeof(*all.v)));
	CHECK_EQ_I64(spans_union(both, 1, NULL, NULL), len_a);
	CHECK_EQ_I64(spans_union(both, 0, NULL, NULL), 0);
	ivlist_release(&a);
	ivlist_release(&b);
	ivlist_release(&all);
	ivlist_release(&out);
}

/* util's duration parsers: parse_duration, and parse_trace_window on top of it (--trace-window). */
static void durations(void)
{
	static const struct {
		const char *s;
		int64_t on, every;	/* -1: refused */
	} windows[] = {
		{ "2s/60s", 2000000000, 60000000000 }, { "500ms/10s", 500000000, 10000000000 },
		{ "1min/1h", 60000000000, 3600000000000 }, { "1m/1h", 60000000000, 3600000000000 },
		{ "1.5s/1.5s", 1500000000, 1500000000 }, { "1ms/2ms", 1000000, 2000000 },
		{ "2/60", -1, -1 }, { "2s/60", -1, -1 }, { "2s", -1, -1 }, { "2s/", -1, -1 }, { " 2s/60s", -1, -1 },
		{ "-1s/2s", -1, -1 }, { "999us/1s", -1, -1 }, { "2s/1s", -1, -1 }, { "2x/3s", -1, -1 },
		{ "inf/inf", -1, -1 },
	};
	const char *why;
	int64_t v, on, every;
	size_t i;
	CHECK(!parse_duration("2min", &v) && v == 120000000000);
	CHECK(!parse_duration("1.5h", &v) && v == 5400000000000);
	CHECK(!parse_duration("3m", &v) && v == 180000000000);
	CHECK(!parse_duration("3ms", &v) && v == 3000000);
	CHECK(!parse_duration("500", &v) && v == 500);
	CHECK(parse_duration("3mn", &v));
	CHECK(!parse_size("1500", &v) && v == 1500);
	CHECK(!parse_size("2b", &v) && v == 2);
	CHECK(!parse_size("40GiB", &v) && v == 42949672960);
	CHECK(!parse_size("40g", &v) && v == 42949672960);
	CHECK(!parse_size("40GB", &v) && v == 40000000000);
	CHECK(!parse_size("1.5kB", &v) && v == 1500);
	CHECK(parse_size("-1", &v) && parse_size("1X", &v) && parse_size(" 1G", &v) && parse_size("1e30TB", &v));
	for (i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
		int rc = parse_trace_window(windows[i].s, &on, &every, &why);
		if (windows[i].on < 0) {
			CHECK(rc == -1);
		} else {
			CHECK(rc == 0);
			CHECK_EQ_I64(on, windows[i].on);
			CHECK_EQ_I64(every, windows[i].every);
		}
	}
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
		struct interval *big = malloc(n * sizeof(*big)), *sorted = malloc(n * sizeof(*sorted));
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
		/* interval_union merges in place, so the sort is checked on a copy. */
		memcpy(sorted, big, n * sizeof(*big));
		interval_sort(sorted, n);
		for (i = 1; i < n; i++)
			if (sorted[i].start < sorted[i - 1].start)
				break;
		CHECK(i == n);
		spans_checks(sorted, n, base, covered);
		memcpy(sorted, big, n * sizeof(*big));
		CHECK_EQ_I64(interval_union(big, n), want);
		/* Negative starts sort below positive ones. */
		for (i = 0; i < n; i++)
			big[i].start = big[i].end = (i % 2 ? (int64_t)i : -(int64_t)i) * 1000003;
		CHECK_EQ_I64(interval_union(big, n), 0);
		for (i = 1; i < n; i++)
			if (big[i].start < big[i - 1].start)
				break;
		CHECK(i == n);
		free(big);
		free(sorted);
	}
	durations();
	return check_done("test_stats");
}
