/*
 * check: a 20-line test harness. CHECK(cond) counts a pass or prints the failure with its line;
 * check_done() prints "NAME: N passed, M failed" and returns the exit status for main.
 */
#ifndef GPUPROF_CHECK_H
#define GPUPROF_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond) do { \
	if (cond) check_passed++; \
	else { check_failed++; fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)
#define CHECK_EQ_I64(a, b) do { \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ == b_) check_passed++; \
	else { check_failed++; fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_); } \
} while (0)
#define CHECK_EQ_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (a_ && b_ && !strcmp(a_, b_)) check_passed++; \
	else { check_failed++; fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
		a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } \
} while (0)

static inline int check_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
