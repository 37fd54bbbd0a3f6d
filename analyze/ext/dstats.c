#include "dstats.h"

#include <math.h>

/* Rearrange v so that v[k] is the k-th smallest, smaller ones before it (Wirth's selection). */
static void select_kth(int64_t *v, size_t n, size_t k)
{
	ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
	while (l < m) {
		int64_t x = v[kk], tmp;
		ptrdiff_t i = l, j = m;
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				tmp = v[i];
				v[i] = v[j];
				v[j] = tmp;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
}

/* The largest of v[0..n) (n > 0). */
static int64_t max_of(const int64_t *v, size_t n)
{
	int64_t m = v[0];
	size_t i;
	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

/* The smallest of v[0..n) (n > 0). */
static int64_t min_of(const int64_t *v, size_t n)
{
	int64_t m = v[0];
	size_t i;
	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double stats_median(int64_t *v, size_t n)
{
	select_kth(v, n, n / 2);
	if (n % 2)
		return (double)v[n / 2];
	/* The lower middle value is the largest of the lower half. */
	return ((double)max_of(v, n / 2) + (double)v[n / 2]) / 2.0;
}

double stats_stddev(const int64_t *v, size_t n, int64_t total)
{
	double mean = (double)total / (double)n, ss = 0;
	size_t i;
	/*
	 * Exactly when it fits 128 bits (fewer than 2^23 values, each under 2^40 ns, 18 minutes): n * sum(v^2) -
	 * total^2 is an integer, so the result is the same double whatever the values' order (rows and column
	 * chunks give a name's values in different orders). Otherwise the two passes below.
	 */
	if (n > 1 && n < ((size_t)1 << 23)) {
		__int128 s2 = 0;
		const int64_t lim = (int64_t)1 << 40;
		for (i = 0; i < n && v[i] < lim && v[i] > -lim; i++)
			s2 += (__int128)v[i] * v[i];
		if (i == n) {
			__int128 num = (__int128)n * s2 - (__int128)total * total;
			return (double)sqrtl((long double)num / ((long double)n * (long double)(n - 1)));
		}
	}
	for (i = 0; i < n; i++) {
		double d = (double)v[i] - mean;
		ss += d * d;
	}
	return n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
}

double stats_lerp(double a, double b, double t)
{
	return t > 0 ? a + (b - a) * t : a;
}

size_t stats_rank(size_t n, double p, double *t)
{
	double h = p / 100.0 * (double)(n - 1), k = floor(h);
	if (k >= (double)(n - 1)) {
		*t = 0;
		return n - 1;
	}
	*t = h - k;
	return (size_t)k;
}

double stats_percentile(int64_t *v, size_t n, double p)
{
	double t;
	size_t k = stats_rank(n, p, &t);
	select_kth(v, n, k);
	if (t <= 0)
		return (double)v[k];
	/* The next rank is the smallest of the values after v[k]. */
	return stats_lerp((double)v[k], (double)min_of(v + k + 1, n - k - 1), t);
}

void stats_of(int64_t *v, size_t n, struct dstats *s)
{
	size_t i;
	s->n = (int64_t)n;
	s->total = 0;
	s->min = s->max = n ? v[0] : 0;
	s->mean = s->median = s->stddev = 0;
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		s->total += v[i];
		if (v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
	}
	s->mean = (double)s->total / (double)n;
	s->stddev = stats_stddev(v, n, s->total);
	s->median = stats_median(v, n);
}
