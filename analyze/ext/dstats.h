/*
 * dstats: statistics of one array of integer values (durations), in plain C (no SQLite), shared by the
 * C tables (kernel_stats in analyze/ext/sqlext_vtab.c, kernel_exec_summary in analyze/ext/sqlext_exec.c) and
 * the SQL aggregates median, stddev_samp and percentile (analyze/ext/sqlext.c), so that both give the same
 * doubles to the bit.
 *
 * Conventions follow Nsight Systems: median is the mean of the two middle values for even counts,
 * stddev the sample standard deviation (n-1), 0 for a single value. Functions that take a non-const v
 * reorder it; they allocate nothing.
 */
#ifndef GPUPROF_DSTATS_H
#define GPUPROF_DSTATS_H

#include <stddef.h>
#include <stdint.h>

struct dstats {
	int64_t key;		/* the group key (first column of the query) */
	int64_t n;		/* values */
	int64_t total;		/* exact sum */
	int64_t min, max;
	double mean, median, stddev;
};

/* Statistics of one array of values (reordered in place). */
void stats_of(int64_t *v, size_t n, struct dstats *s);
/* Median of n > 0 values: the middle one, or the mean of the two middle ones for an even n. */
double stats_median(int64_t *v, size_t n);
/* Sample standard deviation of n > 0 values whose exact sum is total (two passes; 0 for one value). */
double stats_stddev(const int64_t *v, size_t n, int64_t total);
/*
 * The p-th percentile (p in 0..100) of n > 0 values: linear interpolation between the closest ranks,
 * v[k] + (v[k+1] - v[k]) * (h - k) with h = p/100 * (n - 1) and k = floor(h) (numpy's default method,
 * PostgreSQL's percentile_cont).
 */
double stats_percentile(int64_t *v, size_t n, double p);
/* Where the p-th percentile of n > 0 values lies: k = floor(p/100 * (n - 1)) (returned) and *t its fraction. */
size_t stats_rank(size_t n, double p, double *t);
/* The interpolation between ranks k and k + 1 (values a and b): a + (b - a) * t. */
double stats_lerp(double a, double b, double t);

#endif
