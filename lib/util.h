/*
 * util: messages, exit codes, memory and a growable byte buffer.
 *
 * Ownership: xmalloc/xrealloc/xstrdup never return NULL (they end the program with exit status 4 on
 * out-of-memory, the one place library code may end it: see out_of_memory). Code that runs inside other programs (libgpuprof.so) must never abort:
 * it uses malloc/calloc and the _soft variants below, which fail with NULL or -1, and is built with
 * GPUPROF_NEVER_ABORT, which makes a struct buf that finds no memory fail soft. A struct buf owns its
 * bytes; buf_release frees them and leaves an empty buffer. Messages go to stderr as "PROGNAME: error: ..."
 * with the program name set by util_init.
 */
#ifndef GPUPROF_UTIL_H
#define GPUPROF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#define GPUPROF_VERSION "0.1.0"

/* Exit codes, the same in every program (see README "Exit codes"). */
enum {
	EXIT_OK = 0,	/* success */
	EXIT_GATE = 1,	/* a gate the user asked for failed */
	EXIT_USAGE = 2,	/* usage error */
	EXIT_DATA = 3,	/* bad input data; all valid data was kept */
	EXIT_SYSTEM = 4	/* system or I/O error */
};

void util_init(const char *argv0);
const char *util_progname(void);

/* Print "prog: error: ..." and return -1, so library code can `return error(...)`. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1: silence info() (warnings and errors still print); 2: silence everything (fuzzing). */
void util_set_quiet(int quiet);
/*
 * Hand every message (the whole line, without its newline) to fn instead of printing it; NULL prints
 * again. gpuprof-ingest -j: a reader's messages go into its spool, printed by the writer in input order.
 */
void util_divert_messages(void (*fn)(void *arg, const char *line), void *arg);
/*
 * A stop asked by a signal (gpuprof-ingest's SIGINT, SIGTERM, SIGHUP: ingest/stop.c). util_stop_set(sig),
 * async-signal-safe, records the first one; util_stop_signal() says which, 0 while none came. From then
 * on no message is printed (what fails because of the stop fails quietly): the program says one line of
 * its own as it ends.
 */
void util_stop_set(int sig);
int util_stop_signal(void);
/*
 * A progress line on stderr (a terminal): util_progress(text) shows text in place of the last one;
 * util_progress(NULL) takes it away. A message printed meanwhile takes it away first, so that it is not
 * written over. Safe from another thread than the one printing messages.
 */
void util_progress(const char *text);
/*
 * A usage error in one line that points at --help: "prog: error: MSG (try 'prog --help')". Returns
 * EXIT_USAGE, for `return usage_error(...)` in main.
 */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * getopt_long's '?' (an unknown option) or ':' (an option without its argument; the option string must
 * begin with ':', after any '+', so that getopt prints nothing itself) as usage_error's one line, naming
 * the option as given. Returns EXIT_USAGE.
 */
int usage_bad_option(int c, char **argv);

/*
 * The end of every x* allocation that fails: the hooks util_at_oom registered run (the latest first:
 * remove temporary files, roll a transaction back), then one line on stderr ("PROG: error: out of memory
 * allocating N bytes") and exit(EXIT_SYSTEM).
 */
void out_of_memory(size_t n) __attribute__((noreturn));
/* Run fn when out_of_memory ends the program (up to 4 hooks; the same fn once). */
void util_at_oom(void (*fn)(void));
/*
 * error() for running out of memory, said once: threads that run out at once (a decoder and SQLite on
 * the writer's thread) print one line between them, the first. Returns -1.
 */
int error_oom(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/*
 * Memory for big arrays, zeroed: an anonymous mapping with transparent huge pages (faulting in hundreds
 * of MB 4 KiB at a time costs more than filling them), reserved but not committed, so sizing an array
 * for the most rows it could hold costs only the rows written. Freed mappings are kept a while for reuse.
 * Free with xunmap and the size asked for.
 */
void *xmap(size_t bytes);
void xunmap(void *p, size_t bytes);
/* Give back the freed mappings kept for reuse (a program between two pieces of work that share none). */
void xmap_trim(void);
/* Grow *p (holding *alloc elements of size `size`) to hold at least `need` elements. */
void grow_array(void **p, size_t *alloc, size_t need, size_t size);
#define ALLOC_GROW(p, need, alloc) grow_array((void **)&(p), &(alloc), (need), sizeof(*(p)))
/* grow_array that fails soft: 0, or -1 with *p and *alloc as they were (out of memory). */
int grow_array_soft(void **p, size_t *alloc, size_t need, size_t size);
#define ALLOC_GROW_SOFT(p, need, alloc) grow_array_soft((void **)&(p), &(alloc), (need), sizeof(*(p)))

struct buf {
	char *s;	/* NUL-terminated bytes, never NULL after buf_init */
	size_t len;	/* bytes used, not counting the NUL */
	size_t alloc;	/* bytes allocated */
	unsigned failed:1;	/* GPUPROF_NEVER_ABORT: an append found no memory and was dropped, until buf_reset */
};

/* FNV-1a: h is FNV1A_INIT, or the hash of what came before p when hashing in pieces. */
#define FNV1A_INIT 1469598103934665603ULL
uint64_t fnv1a(uint64_t h, const void *p, size_t n);

void buf_init(struct buf *b);
/*
 * Built with GPUPROF_NEVER_ABORT, appends never abort: one that finds no memory leaves the buffer as it
 * was and sets b->failed, so the caller can tell that the bytes are incomplete; buf_reset clears it.
 * buf_reserve makes room for n more bytes up front (0, or -1 out of memory), so later appends up to that
 * size cannot fail.
 */
int buf_reserve(struct buf *b, size_t n);
void buf_release(struct buf *b);
void buf_reset(struct buf *b);
void buf_add(struct buf *b, const void *data, size_t n);
void buf_addstr(struct buf *b, const char *s);
/* buf_add that fails soft in every build: 0, or -1 with the buffer as it was (out of memory). */
int buf_add_soft(struct buf *b, const void *data, size_t n);
void buf_addch(struct buf *b, char c);
void buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap);
/* Append a decimal integer (faster than buf_addf). */
void buf_addi64(struct buf *b, int64_t v);

/* qsort that accepts an empty (possibly NULL) array, which qsort itself does not. */
void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Parse a whole decimal int64 from s[0..n): returns 0 and sets *out, or -1 if not exactly an integer. */
int parse_i64(const char *s, size_t n, int64_t *out);
/*
 * "10us", "1.5ms", "2.5s", "500ns", "2min" (or "2m"), "1h" or "500" (ns) as nanoseconds, rounded; 0, or -1
 * when malformed or negative.
 */
int parse_duration(const char *s, int64_t *out);
/*
 * A size: "1500" or "1500b" bytes, "40GiB" or "40G" (K, M, G, T and KiB ... TiB: powers of 1024), "40GB"
 * (kB ... TB: of 1000, as gpuprof prints sizes), any case; rounded. 0, or -1 when malformed or negative.
 */
int parse_size(const char *s, int64_t *out);
/*
 * A trace window, "ON/EVERY" ("2s/60s", "500ms/10s", "1min/1h"): each a number with a unit (ns, us, ms,
 * s, min or m, h), 1 ms <= ON <= EVERY. 0 and both set, or -1 with a reason in why (for a message).
 */
int parse_trace_window(const char *s, int64_t *on_ns, int64_t *every_ns, const char **why);
/* Parse the NUL-terminated s as with parse_i64: 0 and *out set, or -1 if it is not an integer in lo..hi. */
int parse_i64_range(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* Time on the monotonic clock in ns, for progress and benchmarks. */
int64_t now_ns(void);
/* Unix-epoch ns (CLOCK_REALTIME), the clock of every recorded time. */
int64_t realtime_ns(void);

/*
 * Where the top-level parameter list "(...)" at the end of a C++ signature begins (trailing spaces
 * ignored), or len when there is none: "f<int>(a, (b))" gives 6.
 */
size_t cxx_params_at(const char *s, size_t len);

/* The characters of a UTF-8 string: its bytes that do not continue a character (a column each in text). */
size_t utf8_chars(const char *s);

/* Match a glob-free suffix: 1 if s ends with suffix. */
int ends_with(const char *s, const char *suffix);
/*
 * The size of a buffer to read the file at path through: its size rounded up to 4 KiB, at most max (max
 * when it is no regular file). A small file, gzip'd or not, is read whole with little memory.
 */
size_t util_read_chunk(const char *path, size_t max);
/* 1 when path names an Nsight Systems report (.nsys-rep, .qdrep), which gpuprof reads only exported. */
int is_nsys_report(const char *path);
/* Say that path is an Nsight Systems report and the two commands that make it a session; returns -1. */
int error_nsys_report(const char *path);

/* 1 when the environment variable name is set to anything but "" or "0" (GPUPROF_DISABLED). */
int env_flag(const char *name);

#endif
