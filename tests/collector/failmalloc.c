/*
 * failmalloc.so: an LD_PRELOAD shim that makes one library's allocations fail, to show that the library
 * fails soft. malloc, calloc, realloc, strdup and strndup called from code of the library named by
 * FAILMALLOC_LIB (a substring of its path; default "libgpuprof.so", told by the caller's return address
 * through dladdr) are counted; FAILMALLOC_N=N makes the Nth of them return NULL (ENOMEM), and with
 * FAILMALLOC_AFTER=1 every one from the Nth on. N = 0 only counts. At exit the process that loaded the
 * shim writes "COUNTED FAILED\n" to FAILMALLOC_REPORT when set. Calls from elsewhere (the program, libc
 * on the library's behalf) always succeed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static int ready;		/* the settings are read (the loader allocates before that) */
static long fail_at;		/* FAILMALLOC_N */
static int after;		/* FAILMALLOC_AFTER */
static const char *lib = "libgpuprof.so";
static const char *report;
static pid_t owner;
static long counted, failed;
static __thread int busy;	/* inside dladdr, which may allocate */

__attribute__((constructor)) static void failmalloc_init(void)
{
	const char *s = getenv("FAILMALLOC_N"), *l = getenv("FAILMALLOC_LIB"), *a = getenv("FAILMALLOC_AFTER");
	fail_at = s ? atol(s) : 0;
	after = a && *a == '1';
	if (l && *l)
		lib = l;
	report = getenv("FAILMALLOC_REPORT");
	owner = getpid();
	ready = 1;
}

__attribute__((destructor)) static void failmalloc_report(void)
{
	char line[64];
	int fd, n;
	if (!report || getpid() != owner)
		return;
	n = snprintf(line, sizeof(line), "%ld %ld\n", __atomic_load_n(&counted, __ATOMIC_RELAXED),
		     __atomic_load_n(&failed, __ATOMIC_RELAXED));
	if ((fd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) >= 0) {
		if (write(fd, line, (size_t)n) != n)
			n = 0;
		close(fd);
	}
}

/* Whether this call, made from ret, is to fail: counts the calls from the library. */
static int fail(void *ret)
{
	Dl_info info;
	long n;
	int mine;
	if (!ready || busy)
		return 0;
	busy = 1;
	mine = dladdr(ret, &info) && info.dli_fname && strstr(info.dli_fname, lib);
	busy = 0;
	if (!mine)
		return 0;
	n = __atomic_add_fetch(&counted, 1, __ATOMIC_RELAXED);
	if (!fail_at || n < fail_at || (n > fail_at && !after))
		return 0;
	__atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = fail(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *p = fail(__builtin_return_address(0)) ? NULL : __libc_malloc(n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}
