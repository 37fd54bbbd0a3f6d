/*
 * holdwrite: stops a program in the middle of writing a file, so that a test can interrupt it there and
 * nowhere else (tests/outputs_atomic.py). Built as build/tests/faults/libholdwrite.so and LD_PRELOADed.
 *
 *   GPUPROF_HOLD=WHAT:SUBSTR[:N]  hold at the Nth (from 1; default 1) WHAT of a file whose path contains
 *                                 SUBSTR: WHAT is `write` (write(2) on a descriptor, as zlib writes, or
 *                                 a flush of a stream fdopen(3) or fopen(3) made, as stdio writes) or
 *                                 `rename` (its new path)
 *   GPUPROF_HOLD_MARK=FILE        made when the program holds; it then waits for a signal
 *
 * Holding, the write or rename has not happened; the bytes before it have. Nothing else changes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long long seen;	/* calls of WHAT on a matching path so far */

/* Whether this call (what, on path) is the one to hold at; counts the matching ones. */
static int is_hold(const char *what, const char *path)
{
	const char *spec = getenv("GPUPROF_HOLD"), *colon;
	char sub[1024];
	size_t wlen = strlen(what), n;
	long long nth = 1;
	if (!spec || !path || strncmp(spec, what, wlen) || spec[wlen] != ':')
		return 0;
	spec += wlen + 1;
	colon = strchr(spec, ':');
	n = colon ? (size_t)(colon - spec) : strlen(spec);
	if (n >= sizeof(sub))
		return 0;
	memcpy(sub, spec, n);
	sub[n] = '\0';
	if (colon)
		nth = atoll(colon + 1);
	if (!strstr(path, sub))
		return 0;
	return ++seen == nth;
}

/* Say so in GPUPROF_HOLD_MARK and wait for the signal that ends the program. */
static void hold(void)
{
	const char *mark = getenv("GPUPROF_HOLD_MARK");
	if (mark) {
		int fd = open(mark, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd >= 0)
			close(fd);
	}
	for (;;)
		pause();
}

/* The path of descriptor fd, into buf; NULL when unknown. */
static const char *fd_path(int fd, char *buf, size_t size)
{
	char link[64];
	ssize_t n;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static ssize_t (*real_write)(int, const void *, size_t);

ssize_t write(int fd, const void *p, size_t n)
{
	char path[4096];
	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (fd > 2 && getenv("GPUPROF_HOLD") && is_hold("write", fd_path(fd, path, sizeof(path))))
		hold();
	return real_write(fd, p, n);
}

/* fdopen's streams write through a cookie, since stdio's own writes do not go through write() above. */
struct cookie {
	int fd;
	char path[4096];
};

static ssize_t cookie_write(void *c, const char *p, size_t n)
{
	struct cookie *k = c;
	size_t done = 0;
	if (is_hold("write", k->path))
		hold();
	while (done < n) {
		ssize_t w = real_write(k->fd, p + done, n - done);
		if (w <= 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int cookie_close(void *c)
{
	struct cookie *k = c;
	int rc = close(k->fd);
	free(k);
	return rc;
}

FILE *fdopen(int fd, const char *mode)
{
	static FILE *(*real)(int, const char *);
	struct cookie *k;
	cookie_io_functions_t io = { NULL, cookie_write, NULL, cookie_close };
	if (!real)
		real = (FILE * (*)(int, const char *)) dlsym(RTLD_NEXT, "fdopen");
	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (!getenv("GPUPROF_HOLD") || strncmp(getenv("GPUPROF_HOLD"), "write:", 6) || mode[0] != 'w' ||
	    !(k = calloc(1, sizeof(*k))))
		return real(fd, mode);
	k->fd = fd;
	if (!fd_path(fd, k->path, sizeof(k->path))) {
		free(k);
		return real(fd, mode);
	}
	return fopencookie(k, mode, io);
}

/* fopen(3) for writing too (libxlsxwriter's and trace.c's files): the same cookie over open(2). */
static FILE *cookie_fopen(const char *path, const char *mode, FILE *(*real)(const char *, const char *))
{
	const char *spec = getenv("GPUPROF_HOLD");
	struct cookie *k;
	cookie_io_functions_t io = { NULL, cookie_write, NULL, cookie_close };
	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (!spec || strncmp(spec, "write:", 6) || mode[0] != 'w' || strchr(mode, '+'))
		return real(path, mode);
	{
		char sub[1024];
		const char *colon = strchr(spec + 6, ':');
		size_t n = colon ? (size_t)(colon - spec - 6) : strlen(spec + 6);
		if (n >= sizeof(sub))
			return real(path, mode);
		memcpy(sub, spec + 6, n);
		sub[n] = '\0';
		if (!strstr(path, sub) || !(k = calloc(1, sizeof(*k))))
			return real(path, mode);
	}
	if ((k->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
		free(k);
		return NULL;
	}
	snprintf(k->path, sizeof(k->path), "%s", path);
	return fopencookie(k, mode, io);
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);
	if (!real)
		real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
	return cookie_fopen(path, mode, real);
}

FILE *fopen64(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);
	if (!real)
		real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen64");
	return cookie_fopen(path, mode, real);
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	if (getenv("GPUPROF_HOLD") && is_hold("rename", to))
		hold();
	return real(from, to);
}
