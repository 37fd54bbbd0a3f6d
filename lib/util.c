#include "util.h"
#include "utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>

static const char *progname = "gpuprof";
static int quiet;
static void (*divert)(void *arg, const char *line);	/* util_divert_messages */
static void *divert_arg;
static pthread_mutex_t stderr_lock = PTHREAD_MUTEX_INITIALIZER;	/* messages and the progress line */
static int progress_shown;	/* a progress line is on stderr's last line */
static volatile sig_atomic_t stop_signal;	/* util_stop_set */

void util_stop_set(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
}

int util_stop_signal(void)
{
	return stop_signal;
}

void util_progress(const char *text)
{
	pthread_mutex_lock(&stderr_lock);
	if (text && stop_signal)
		text = NULL;	/* stopping: the line goes, and comes no more */
	if (text)
		fprintf(stderr, "\r%s\033[K", text);
	else if (progress_shown)
		fputs("\r\033[K", stderr);
	progress_shown = text != NULL;
	fflush(stderr);
	pthread_mutex_unlock(&stderr_lock);
}

void util_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	progname = slash ? slash + 1 : argv0;
}

const char *util_progname(void)
{
	return progname;
}

void util_set_quiet(int q)
{
	quiet = q;
}

void util_divert_messages(void (*fn)(void *arg, const char *line), void *arg)
{
	divert = fn;
	divert_arg = arg;
}

/*
 * msg with each control character but a line break, and each invalid UTF-8 byte, shown as "\x1b"
 * (utf8_visible): a message names what it read (a file, a session id, a name), which must not move the
 * terminal's cursor or set its title.
 */
static void visible_message(char *msg, size_t size)
{
	struct buf b;
	char *p, *nl;
	if (!utf8_needs_escape(msg, strlen(msg)))
		return;
	buf_init(&b);
	for (p = msg;; p = nl + 1) {
		nl = strchr(p, '\n');
		utf8_visible(&b, p, nl ? (size_t)(nl - p) : strlen(p));
		if (!nl)
			break;
		buf_addch(&b, '\n');
	}
	if (!b.failed)
		snprintf(msg, size, "%s", b.s);
	buf_release(&b);
}

static void vreport(const char *level, const char *fmt, va_list ap)
{
	char msg[4096];
	if (quiet > 1 || stop_signal)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	visible_message(msg, sizeof(msg));
	if (divert) {
		char line[4200];
		if (level)
			snprintf(line, sizeof(line), "%s: %s: %s", progname, level, msg);
		else
			snprintf(line, sizeof(line), "%s: %s", progname, msg);
		divert(divert_arg, line);
		return;
	}
	pthread_mutex_lock(&stderr_lock);
	if (progress_shown)
		fputs("\r\033[K", stderr);
	progress_shown = 0;
	if (level)
		fprintf(stderr, "%s: %s: %s\n", progname, level, msg);
	else
		fprintf(stderr, "%s: %s\n", progname, msg);
	pthread_mutex_unlock(&stderr_lock);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning", fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	va_start(ap, fmt);
	vreport(NULL, fmt, ap);
	va_end(ap);
}

int is_nsys_report(const char *path)
{
	return ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep");
}

int error_nsys_report(const char *path)
{
	int base = (int)(strlen(path) - strlen(ends_with(path, ".qdrep") ? ".qdrep" : ".nsys-rep"));
	return error("%s: an Nsight Systems report; gpuprof reads its SQLite export: run "
		     "'nsys export --type sqlite %s', then 'gpuprof-ingest %.*s.sqlite -o session.db'", path, path,
		     base, path);
}

int usage_error(const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("%s (try '%s --help')", msg, progname);
	return EXIT_USAGE;
}

int usage_bad_option(int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	int len;
	if (!strncmp(arg, "--", 2) && (c == ':' || !optopt)) {	/* a long option */
		len = (int)strcspn(arg, "=");
		if (c == ':')
			return usage_error("option '%.*s' needs a value", len, arg);
		return usage_error("unknown option '%.*s'", len, arg);
	}
	if (!strncmp(arg, "--", 2))	/* "--wide=1": a value given to an option that takes none */
		return usage_error("option '%.*s' takes no value", (int)strcspn(arg, "="), arg);
	if (c == ':')
		return usage_error("option '-%c' needs a value", optopt);
	return usage_error("unknown option '-%c'", optopt);
}

static void (*oom_hooks[4])(void);	/* util_at_oom */

void util_at_oom(void (*fn)(void))
{
	size_t i;
	for (i = 0; i < sizeof(oom_hooks) / sizeof(oom_hooks[0]); i++)
		if (!oom_hooks[i] || oom_hooks[i] == fn) {
			oom_hooks[i] = fn;
			return;
		}
}

static int oom_said;	/* error_oom printed its line */

int error_oom(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	if (__atomic_exchange_n(&oom_said, 1, __ATOMIC_SEQ_CST))
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error("%s", msg);
}

void out_of_memory(size_t n)
{
	static int exiting;
	size_t i;
	/* One thread says it and cleans up; another that runs out meanwhile waits for the end. */
	if (__atomic_exchange_n(&exiting, 1, __ATOMIC_SEQ_CST))
		for (;;)
			pause();
	for (i = sizeof(oom_hooks) / sizeof(oom_hooks[0]); i-- > 0;)
		if (oom_hooks[i])
			oom_hooks[i]();
	error_oom("out of memory allocating %zu bytes", n);
	exit(EXIT_SYSTEM);
}

static void *oom(size_t n)
{
	out_of_memory(n);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom(n);
}

/*
 * Mappings freed by xunmap wait in a small pool for the next xmap that fits: clearing memory already
 * faulted in is several times cheaper than faulting in fresh pages (an analysis over 5M kernels frees
 * and asks again for arrays of the same size). `live` remembers each handed-out mapping's real size.
 */
struct region {
	void *p;
	size_t bytes;		/* mapped size, a whole number of pages */
};
#define POOL_SLOTS 8
static struct region pool[POOL_SLOTS], *live;
static size_t npool, nlive, alive;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

void *xmap(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), want = (bytes + page - 1) / page * page, i, best = SIZE_MAX;
	void *p;
	if (!want)
		want = page;
	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < npool; i++)
		if (pool[i].bytes >= want && (best == SIZE_MAX || pool[i].bytes < pool[best].bytes))
			best = i;
	if (best != SIZE_MAX) {
		p = pool[best].p;
		want = pool[best].bytes;
		pool[best] = pool[--npool];
		memset(p, 0, bytes);
	} else {
		p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			pthread_mutex_unlock(&pool_lock);
			return oom(bytes);
		}
		if (want >= (2u << 20))	/* smaller ones would get a whole 2 MiB page to clear */
			madvise(p, want, MADV_HUGEPAGE);
	}
	ALLOC_GROW(live, nlive + 1, alive);
	live[nlive].p = p;
	live[nlive].bytes = want;
	nlive++;
	pthread_mutex_unlock(&pool_lock);
	return p;
}

void xunmap(void *p, size_t bytes)
{
	size_t i;
	struct region r = { p, bytes };
	if (!p)
		return;
	pthread_mutex_lock(&pool_lock);
	for (i = nlive; i-- > 0 && live[i].p != p;)
		;
	if (i == SIZE_MAX) {
		munmap(p, bytes);	/* not from xmap */
		pthread_mutex_unlock(&pool_lock);
		return;
	}
	r = live[i];
	live[i] = live[--nlive];
	if (npool == POOL_SLOTS) {
		/* Full: give back the smallest of the pool and the newcomer. */
		size_t small = 0;
		for (i = 1; i < npool; i++)
			if (pool[i].bytes < pool[small].bytes)
				small = i;
		if (pool[small].bytes < r.bytes) {
			struct region t = pool[small];
			pool[small] = r;
			r = t;
		}
		munmap(r.p, r.bytes);
	} else {
		pool[npool++] = r;
	}
	pthread_mutex_unlock(&pool_lock);
}

void xmap_trim(void)
{
	pthread_mutex_lock(&pool_lock);
	while (npool) {
		npool--;
		munmap(pool[npool].p, pool[npool].bytes);
	}
	pthread_mutex_unlock(&pool_lock);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	return p ? p : oom(n * size);
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom(n);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void grow_array(void **p, size_t *alloc, size_t need, size_t size)
{
	if (grow_array_soft(p, alloc, need, size))
		out_of_memory(need <= SIZE_MAX / size ? need * size : SIZE_MAX);
}

int grow_array_soft(void **p, size_t *alloc, size_t need, size_t size)
{
	size_t n;
	void *q;
	if (need <= *alloc)
		return 0;
	n = *alloc ? *alloc : 16;
	while (n < need && n < SIZE_MAX / 2)
		n = n / 2 * 3 + 16;
	if (n < need || n > SIZE_MAX / size || !(q = realloc(*p, n * size)))
		return -1;
	*p = q;
	*alloc = n;
	return 0;
}

/* An empty buffer points here until it first grows, so init and release never allocate (git's slopbuf). */
static char empty_buf[1];

void buf_init(struct buf *b)
{
	b->alloc = 0;
	b->s = empty_buf;
	b->len = 0;
	b->failed = 0;
}

void buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->s);
	buf_init(b);
}

uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->failed = 0;
	if (b->alloc)
		b->s[0] = '\0';
}

/*
 * Room for extra more bytes and the NUL: 0, or, built with GPUPROF_NEVER_ABORT (libgpuprof.so), -1 with
 * b->failed set and nothing changed; elsewhere no memory aborts, as the x* allocators do.
 */
/* Room for extra more bytes; -1 when there is no memory, which aborts unless soft or GPUPROF_NEVER_ABORT. */
static int buf_grow(struct buf *b, size_t extra, int soft)
{
	size_t need = b->len + extra + 1;
	if (b->failed)
		return -1;	/* later appends would leave a hole in what is there */
	if (need > b->alloc) {
		size_t n = b->alloc ? b->alloc * 2 : 64;
		char *s;
		while (n < need && n < SIZE_MAX / 2)
			n *= 2;
		s = n < need ? NULL : b->alloc ? realloc(b->s, n) : malloc(n);
		if (!s) {
#ifndef GPUPROF_NEVER_ABORT
			if (!soft)
				out_of_memory(need);
#endif
			b->failed = !soft;
			return -1;
		}
		b->s = s;
		if (!b->alloc)
			b->s[0] = '\0';
		b->alloc = n;
	}
	return 0;
}

static int buf_need(struct buf *b, size_t extra)
{
	return buf_grow(b, extra, 0);
}

int buf_reserve(struct buf *b, size_t n)
{
	return buf_need(b, n);
}

int buf_add_soft(struct buf *b, const void *data, size_t n)
{
	if (buf_grow(b, n, 1))
		return -1;
	buf_add(b, data, n);
	return 0;
}

void buf_add(struct buf *b, const void *data, size_t n)
{
	if (buf_need(b, n))
		return;
	memcpy(b->s + b->len, data, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void buf_addstr(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addch(struct buf *b, char c)
{
	if (buf_need(b, 1))
		return;
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	if (buf_need(b, 64))
		return;
	va_copy(cp, ap);
	n = vsnprintf(b->s + b->len, b->alloc - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= b->alloc - b->len) {
		if (buf_need(b, (size_t)n)) {
			b->s[b->len] = '\0';	/* vsnprintf wrote a cut-off part */
			return;
		}
		vsnprintf(b->s + b->len, b->alloc - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void buf_addi64(struct buf *b, int64_t v)
{
	char tmp[24];
	int i = (int)sizeof(tmp);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[--i] = '-';
	buf_add(b, tmp + i, sizeof(tmp) - (size_t)i);
}

int parse_i64(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	uint64_t u = 0, limit;
	if (n && s[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (i == n)
		return -1;
	if (n - i <= 18) {
		/* Up to 18 digits cannot overflow: no checks per digit. */
		for (; i < n; i++) {
			unsigned d = (unsigned char)s[i] - '0';
			if (d > 9)
				return -1;
			u = u * 10 + d;
		}
		*out = neg ? -(int64_t)u : (int64_t)u;
		return 0;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9)
			return -1;
		if (u > (limit - d) / 10)
			return -1;
		u = u * 10 + d;
	}
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

struct unit {
	const char *suffix;
	double scale;
};

/* A number (no sign) and one of n units, the suffix matched in any case when nocase; 0 and *out, or -1. */
static int parse_scaled(const char *s, const struct unit *units, size_t n, int nocase, int64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	size_t i;
	if (end == s || !((*s >= '0' && *s <= '9') || *s == '.') || v < 0 || !isfinite(v))
		return -1;
	for (i = 0; i < n; i++)
		if (!(nocase ? strcasecmp : strcmp)(end, units[i].suffix) && v * units[i].scale < 9e18) {
			*out = (int64_t)llround(v * units[i].scale);
			return 0;
		}
	return -1;
}

int parse_duration(const char *s, int64_t *out)
{
	static const struct unit units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 }, { "m", 60e9 },
		{ "h", 3600e9 },
	};
	return parse_scaled(s, units, sizeof(units) / sizeof(units[0]), 0, out);
}

int parse_size(const char *s, int64_t *out)
{
	static const struct unit units[] = {
		{ "", 1 }, { "b", 1 }, { "k", 1024.0 }, { "kib", 1024.0 }, { "kb", 1e3 }, { "m", 1048576.0 },
		{ "mib", 1048576.0 }, { "mb", 1e6 }, { "g", 1073741824.0 }, { "gib", 1073741824.0 }, { "gb", 1e9 },
		{ "t", 1099511627776.0 }, { "tib", 1099511627776.0 }, { "tb", 1e12 },
	};
	return parse_scaled(s, units, sizeof(units) / sizeof(units[0]), 1, out);
}

/* One side of a trace window: a duration with its unit (a bare number is refused: ns would be a surprise). */
static int window_part(const char *s, size_t n, int64_t *out)
{
	char part[64];
	if (!n || n >= sizeof(part) || !((*s >= '0' && *s <= '9') || *s == '.') || s[n - 1] < 'a' || s[n - 1] > 'z')
		return -1;
	memcpy(part, s, n);
	part[n] = '\0';
	return parse_duration(part, out);
}

int parse_trace_window(const char *s, int64_t *on_ns, int64_t *every_ns, const char **why)
{
	const char *slash = strchr(s, '/');
	int64_t on, every;
	if (!slash || window_part(s, (size_t)(slash - s), &on) || window_part(slash + 1, strlen(slash + 1), &every)) {
		*why = "not ON/EVERY, each with a unit (ns, us, ms, s, min, h): e.g. 2s/60s";
		return -1;
	}
	if (on < 1000000) {
		*why = "ON is under 1 ms";
		return -1;
	}
	if (on > every) {
		*why = "ON is longer than EVERY";
		return -1;
	}
	*on_ns = on;
	*every_ns = every;
	return 0;
}

int parse_i64_range(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t v;
	if (parse_i64(s, strlen(s), &v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int64_t clock_of(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t now_ns(void)
{
	return clock_of(CLOCK_MONOTONIC);
}

int64_t realtime_ns(void)
{
	return clock_of(CLOCK_REALTIME);
}

size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !memcmp(s + a - b, suffix, b);
}

size_t util_read_chunk(const char *path, size_t max)
{
	struct stat st;
	size_t want;
	if (stat(path, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size >= max)
		return max;
	want = ((size_t)st.st_size + 1 + 4095) & ~(size_t)4095;
	return want < max ? want : max;
}

int env_flag(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0");
}

size_t cxx_params_at(const char *s, size_t len)
{
	int depth = 0;
	size_t i;
	while (len && s[len - 1] == ' ')
		len--;
	if (!len || s[len - 1] != ')')
		return len;
	for (i = len; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return len;
}

void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}
