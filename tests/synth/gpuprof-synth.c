/*
 * gpuprof-synth: writes a deterministic, realistic synthetic session in wire format v2
 * (schemas/wire-format.md) and, next to it, the exact answers it planted (expected.json).
 *
 *   gpuprof-synth --kernels N --seed S -o DIR [--leaks K] [--batch ROWS] [--drops N]
 *                 [--expected FILE] [--session ID] [--no-expected]
 *
 * The workload is a two-GPU training loop: per step a data-loader wait, allocations, input copies,
 * forward (with attention), backward (with NCCL collectives and a peer copy), optimizer, device
 * syncs and frees, with NVTX ranges around each phase; and what CUPTI itself cost (overhead records: set-up,
 * lazy loading of each kernel, a full command buffer now and then, buffer flushes, one untimed request). Same arguments give byte-identical output:
 * all randomness comes from xoshiro256** seeded by splitmix64, and no libm function whose result may
 * differ between machines is used on the data path (exp and log are computed here with + - * /).
 *
 * Ownership: everything is owned by the one `synth` struct built in main and freed at its end;
 * out-of-memory aborts the program (as lib/util's xmalloc does).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define SYNTH_NAME "gpuprof-synth"
#define SYNTH_VERSION "0.1.0"
#define FAKE_PID 4242
#define FAKE_PPID 4200
#define TID_MAIN 4242		/* the training loop's thread */
#define TID_LOADER 4243		/* the data-loader thread (start/end ranges) */
#define TID_CUPTI 4250		/* CUPTI's own thread, which flushes activity buffers */
#define TID_AUTOGRAD 4244	/* autograd's thread: backward ops and their launches (--ops) */
#define NDEV 2
#define NLANE 4			/* streams per device: main, side, comm, copy */
#define LANE_MAIN 0
#define LANE_SIDE 1
#define LANE_COMM 2
#define LANE_COPY 3
#define NKLANE 3		/* lanes that run kernels */
#define ORIGIN_BASE 1763822038000000000ULL
#define METRIC_PERIOD_NS 100000000LL
#define KERNELS_PER_STEP 400
#define FLUSH_EVERY_STEPS 16	/* every so many steps all partial batches are written */
#define OUT_FLUSH_AT ((size_t)4 << 20)
#define MAX_BATCH 1000000
#define MAX_KERNELS 2000000000ULL
#define MAX_LEAKS 100000
#define PCS_FUNCS_PER_DRAIN 12
#define NULLV INT64_MIN		/* a null in an int?/num? column */
/* CUPTI overhead kinds (CUpti_ActivityOverheadKind) and object kinds written here. */
#define OVH_BUFFER_FLUSH (1 << 16)
#define OVH_RESOURCE (3 << 16)
#define OVH_LAZY_LOADING (5 << 16)
#define OVH_COMMAND_BUFFER_FULL (6 << 16)
#define OVH_BUFFER_REQUEST (7 << 16)
#define NOVH 9			/* kinds up to 8 << 16 */
#define OBJ_PROCESS 1
#define OBJ_THREAD 2
#define OBJ_CONTEXT 4
#define OBJ_STREAM 5
#define CMDBUF_EVERY 997	/* launches with a correlation id divisible by this find the command buffer full */
#define MIB (1024LL * 1024LL)

__extension__ typedef unsigned __int128 u128;

enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_SYSTEM = 4 };

/* ------------------------------------------------------------------------------------------------ */
/* memory */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fputs(SYNTH_NAME ": error: out of memory\n", stderr);
		abort();
	}
	return q;
}

static void *xcalloc(size_t n, size_t size)
{
	void *q = calloc(n ? n : 1, size ? size : 1);

	if (!q) {
		fputs(SYNTH_NAME ": error: out of memory\n", stderr);
		abort();
	}
	return q;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = xrealloc(NULL, n);

	memcpy(d, s, n);
	return d;
}

/* Grow *p (holding *cap elements of `size` bytes) so that it holds at least `need` elements. */
static void grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return;
	while (c < need)
		c *= 2;
	*p = xrealloc(*p, c * size);
	*cap = c;
}

/* ------------------------------------------------------------------------------------------------ */
/* deterministic random numbers and math */

typedef struct {
	uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Seed a generator from the user's seed and a stream number, so independent parts draw apart. */
static void rng_seed(rng_t *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(rng_t *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return res;
}

static inline double rng_u01(rng_t *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [lo, hi]. */
static inline int64_t rr(rng_t *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Approximately standard normal (Irwin-Hall of four uniforms, bounded by +-3.46). */
static inline double rng_normal(rng_t *r)
{
	return (rng_u01(r) + rng_u01(r) + rng_u01(r) + rng_u01(r) - 2.0) * 1.7320508075688772;
}

/* e^x with basic IEEE operations only (and exact ldexp), so every machine gets the same bits. */
static double det_exp(double x)
{
	double kf = x * 1.4426950408889634;
	long k = (long)(kf + (kf >= 0 ? 0.5 : -0.5));
	double r = x - (double)k * 6.93147180369123816490e-01 - (double)k * 1.90821492927058770002e-10;
	double p = 1.0 / 479001600.0;
	static const double inv_fact[] = {
		1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0,
		1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0
	};
	size_t i;

	for (i = 0; i < sizeof(inv_fact) / sizeof(inv_fact[0]); i++)
		p = p * r + inv_fact[i];
	return ldexp(p, (int)k);
}

/* Natural logarithm of x > 0 by Halley iterations on det_exp (deterministic, used at start-up only). */
static double det_log(double x)
{
	int e;
	double m = frexp(x, &e), y = m - 1.0;
	int i;

	for (i = 0; i < 8; i++) {
		double ey = det_exp(y);

		y += 2.0 * (m - ey) / (m + ey);
	}
	return y + (double)e * 0.69314718055994530942;
}

static uint32_t hash32(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* ------------------------------------------------------------------------------------------------ */
/* output buffer: whole lines are handed to write(), never a partial line */

typedef struct {
	char *p;		/* bytes not yet written */
	size_t len, cap;	/* bytes used, allocated */
	int fd;			/* destination */
	int err;		/* errno of the first failed write, 0 if none */
	uint64_t written;	/* bytes written so far */
} obuf;

static void ob_reserve(obuf *b, size_t extra)
{
	if (b->cap - b->len < extra)
		grow((void **)&b->p, &b->cap, b->len + extra, 1);
}

/* Write everything buffered; returns -1 (and remembers errno) on failure. */
static int ob_flush(obuf *b)
{
	size_t off = 0;

	while (off < b->len && !b->err) {
		ssize_t w = write(b->fd, b->p + off, b->len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			b->err = errno;
			break;
		}
		off += (size_t)w;
	}
	b->written += off;
	b->len = 0;
	return b->err ? -1 : 0;
}

static void ob_mem(obuf *b, const char *s, size_t n)
{
	ob_reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void ob_str(obuf *b, const char *s)
{
	ob_mem(b, s, strlen(s));
}

/* End a line; when enough whole lines are buffered they go out in one write(). */
static void ob_endline(obuf *b)
{
	ob_mem(b, "\n", 1);
	if (b->len >= OUT_FLUSH_AT)
		ob_flush(b);
}

static const char digits2[201] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v at p (at most 20 bytes); returns the end. */
static inline char *put_u64(char *p, uint64_t v)
{
	char tmp[20], *t = tmp + sizeof(tmp);
	size_t n;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100);

		v /= 100;
		t -= 2;
		memcpy(t, digits2 + 2 * d, 2);
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, digits2 + 2 * v, 2);
	} else {
		*--t = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - t);
	memcpy(p, t, n);
	return p + n;
}

static inline char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

static void ob_u64(obuf *b, uint64_t v)
{
	ob_reserve(b, 24);
	b->len = (size_t)(put_u64(b->p + b->len, v) - b->p);
}

static void ob_i64(obuf *b, int64_t v)
{
	ob_reserve(b, 24);
	b->len = (size_t)(put_i64(b->p + b->len, v) - b->p);
}

/* JSON string body of s at p (room for 6 bytes per input byte needed); returns the end. */
static char *put_json_body(char *p, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20) {
			memcpy(p, "\\u00", 4);
			p[4] = hex[c >> 4];
			p[5] = hex[c & 15];
			p += 6;
		} else {
			*p++ = (char)c;
		}
	}
	return p;
}

/* A quoted, escaped JSON string. */
static void ob_jstr(obuf *b, const char *s)
{
	ob_reserve(b, 6 * strlen(s) + 2);
	b->p[b->len++] = '"';
	b->len = (size_t)(put_json_body(b->p + b->len, s) - b->p);
	b->p[b->len++] = '"';
}

/* ------------------------------------------------------------------------------------------------ */
/* string table: ids are handed out in order of first use and declared just before the batch using them */

typedef struct {
	char **v;		/* the strings, owned */
	uint32_t *id;		/* wire id of each, 0 until first used */
	size_t n, cap;
	uint32_t next_id;	/* last id handed out */
	uint32_t *pending;	/* indices used but not yet declared */
	size_t npending, pcap;
	char **dyn;		/* strings used once (--ops' range texts), owned, declared and freed at the flush */
	uint32_t *dyn_id;
	size_t ndyn, dcap, dicap;
} strtab;

/* Add s (unique) and return its index. Strings are few (hundreds), so a linear duplicate check is fine. */
static size_t st_add(strtab *st, const char *s)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->v[i], s))
			return i;
	grow((void **)&st->v, &st->cap, st->n + 1, sizeof(*st->v));
	st->v[st->n] = xstrdup(s);
	return st->n++;
}

/* The wire id of string index i, declaring it (pending) on first use. */
static inline int64_t sid(strtab *st, size_t i)
{
	if (!st->id[i]) {
		st->id[i] = ++st->next_id;
		grow((void **)&st->pending, &st->pcap, st->npending + 1, sizeof(*st->pending));
		st->pending[st->npending++] = (uint32_t)i;
	}
	return st->id[i];
}

/* The wire id of a string used once (owned: freed when declared), no duplicate check. */
static int64_t sid_once(strtab *st, char *owned)
{
	grow((void **)&st->dyn, &st->dcap, st->ndyn + 1, sizeof(*st->dyn));
	grow((void **)&st->dyn_id, &st->dicap, st->ndyn + 1, sizeof(*st->dyn_id));
	st->dyn[st->ndyn] = owned;
	st->dyn_id[st->ndyn] = ++st->next_id;
	return st->dyn_id[st->ndyn++];
}

static void st_flush(strtab *st, obuf *b)
{
	size_t i, j, chunk = 512;

	for (i = 0; i < st->ndyn; i += chunk) {
		size_t end = i + chunk < st->ndyn ? i + chunk : st->ndyn;

		ob_str(b, "{\"type\":\"strings\",\"v\":2,\"ids\":[");
		for (j = i; j < end; j++) {
			if (j > i)
				ob_mem(b, ",", 1);
			ob_u64(b, st->dyn_id[j]);
		}
		ob_str(b, "],\"values\":[");
		for (j = i; j < end; j++) {
			if (j > i)
				ob_mem(b, ",", 1);
			ob_jstr(b, st->dyn[j]);
			free(st->dyn[j]);
		}
		ob_str(b, "]}");
		ob_endline(b);
	}
	st->ndyn = 0;

	for (i = 0; i < st->npending; i += chunk) {
		size_t end = i + chunk < st->npending ? i + chunk : st->npending;

		ob_str(b, "{\"type\":\"strings\",\"v\":2,\"ids\":[");
		for (j = i; j < end; j++) {
			if (j > i)
				ob_mem(b, ",", 1);
			ob_u64(b, st->id[st->pending[j]]);
		}
		ob_str(b, "],\"values\":[");
		for (j = i; j < end; j++) {
			if (j > i)
				ob_mem(b, ",", 1);
			ob_jstr(b, st->v[st->pending[j]]);
		}
		ob_str(b, "]}");
		ob_endline(b);
	}
	st->npending = 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* columnar batches */

enum colkind { C_INT, C_INTN, C_NUM2, C_STR, C_TEXT };

typedef struct {
	const char *key;
	enum colkind kind;
} coldef;

#define MAXCOLS 24

typedef struct {
	const char *type;
	const coldef *cols;
	int ncols;
	int64_t *col[MAXCOLS];	/* one array per column; C_TEXT holds indices into synth.texts */
	size_t n, cap;		/* rows held, rows allocated */
	uint64_t seq;		/* batch lines written = next seq */
	uint64_t total;		/* rows written */
} batch;

static const coldef cols_device[] = {
	{"id", C_INT}, {"name", C_TEXT}, {"uuid", C_TEXT}, {"cc_major", C_INT}, {"cc_minor", C_INT},
	{"sms", C_INT}, {"memory_bytes", C_INT}, {"core_clock_khz", C_INT}, {"mem_bandwidth_kbs", C_INT},
	{"max_threads_per_sm", C_INT}, {"max_regs_per_sm", C_INT}, {"max_smem_per_sm", C_INT},
};
static const coldef cols_stall[] = {
	{"device", C_INT}, {"id", C_INT}, {"name", C_STR},
};
static const coldef cols_kernel[] = {
	{"start", C_INT}, {"end", C_INT}, {"device", C_INT}, {"context", C_INT}, {"stream", C_INT},
	{"correlation", C_INT}, {"name", C_STR}, {"mangled", C_STR},
	{"grid_x", C_INT}, {"grid_y", C_INT}, {"grid_z", C_INT},
	{"block_x", C_INT}, {"block_y", C_INT}, {"block_z", C_INT},
	{"cluster_x", C_INT}, {"cluster_y", C_INT}, {"cluster_z", C_INT},
	{"registers", C_INT}, {"static_smem", C_INT}, {"dynamic_smem", C_INT}, {"local_mem", C_INT},
	{"graph_id", C_INT}, {"graph_node", C_INT},
};
static const coldef cols_api[] = {
	{"start", C_INT}, {"end", C_INT}, {"thread", C_INT}, {"correlation", C_INT}, {"name", C_STR},
	{"cbid", C_INT}, {"domain", C_INT},
};
static const coldef cols_memcpy[] = {
	{"start", C_INT}, {"end", C_INT}, {"device", C_INT}, {"context", C_INT}, {"stream", C_INT},
	{"correlation", C_INT}, {"kind", C_INT}, {"src_kind", C_INT}, {"dst_kind", C_INT}, {"bytes", C_INT},
	{"src_device", C_INT}, {"dst_device", C_INT}, {"async", C_INT},
};
static const coldef cols_memset[] = {
	{"start", C_INT}, {"end", C_INT}, {"device", C_INT}, {"context", C_INT}, {"stream", C_INT},
	{"correlation", C_INT}, {"bytes", C_INT}, {"value", C_INT}, {"mem_kind", C_INT},
};
static const coldef cols_sync[] = {
	{"start", C_INT}, {"end", C_INT}, {"device", C_INT}, {"context", C_INT}, {"stream", C_INT},
	{"correlation", C_INT}, {"kind", C_INT}, {"event", C_INT}, {"thread", C_INT},
};
static const coldef cols_memory[] = {
	{"ts", C_INT}, {"device", C_INT}, {"context", C_INT}, {"stream", C_INT}, {"correlation", C_INT},
	{"op", C_INT}, {"mem_kind", C_INT}, {"address", C_INT}, {"bytes", C_INT}, {"pc", C_INT},
	{"site", C_STR}, {"thread", C_INT}, {"async", C_INT},
};
static const coldef cols_range[] = {
	{"start", C_INT}, {"end", C_INTN}, {"thread", C_INT}, {"name", C_STR}, {"domain", C_STR},
	{"kind", C_INT}, {"depth", C_INTN}, {"id", C_INT},
};
static const coldef cols_marker[] = {
	{"ts", C_INT}, {"thread", C_INT}, {"name", C_STR}, {"domain", C_STR},
};
static const coldef cols_pcs[] = {
	{"ts", C_INT}, {"device", C_INT}, {"function", C_STR}, {"cubin_crc", C_INT}, {"pc_offset", C_INT},
	{"reason", C_INT}, {"samples", C_INT}, {"correlation", C_INT}, {"file", C_STR}, {"line", C_INT},
};
static const coldef cols_dmet[] = {
	{"ts", C_INT}, {"device", C_INT}, {"gpu_util", C_INTN}, {"mem_util", C_INTN}, {"mem_used", C_INTN},
	{"mem_total", C_INTN}, {"temp_c", C_INTN}, {"power_mw", C_INTN}, {"sm_clock_mhz", C_INTN},
	{"energy_mj", C_INTN},
};
static const coldef cols_ovh[] = {
	{"start", C_INTN}, {"end", C_INTN}, {"kind", C_INT}, {"object_kind", C_INT}, {"thread", C_INT},
	{"device", C_INT}, {"context", C_INT}, {"stream", C_INT}, {"correlation", C_INT},
};
static const coldef cols_hmet[] = {
	{"ts", C_INT}, {"cpu_pct", C_NUM2}, {"rss_bytes", C_INTN}, {"sys_mem_used", C_INTN},
	{"sys_mem_total", C_INTN},
};

enum { T_DEVICE, T_STALL, T_KERNEL, T_API, T_MEMCPY, T_MEMSET, T_SYNC, T_MEMORY, T_RANGE, T_MARKER,
	T_PCS, T_DMET, T_HMET, T_OVH, NTYPES };

#define COLS(a) a, (int)(sizeof(a) / sizeof(a[0]))
static const struct {
	const char *type;
	const coldef *cols;
	int ncols;
} type_table[NTYPES] = {
	{"device", COLS(cols_device)}, {"stall_reason", COLS(cols_stall)}, {"kernel", COLS(cols_kernel)},
	{"api", COLS(cols_api)}, {"memcpy", COLS(cols_memcpy)}, {"memset", COLS(cols_memset)},
	{"sync", COLS(cols_sync)}, {"memory", COLS(cols_memory)}, {"range", COLS(cols_range)},
	{"marker", COLS(cols_marker)}, {"pc_sample", COLS(cols_pcs)}, {"device_metric", COLS(cols_dmet)},
	{"host_metric", COLS(cols_hmet)}, {"overhead", COLS(cols_ovh)},
};

/* ------------------------------------------------------------------------------------------------ */
/* the workload's vocabulary */

enum { FAM_CUTLASS, FAM_CUBLAS, FAM_NCCL, FAM_ELEMWISE, FAM_REDUCE, FAM_SOFTMAX, FAM_LAYERNORM,
	FAM_FLASH, FAM_OPTIM, FAM_MISC };
enum { PROF_MEMORY, PROF_MATH, PROF_COMM, PROF_ATTN, NPROF };
enum { PH_FWD, PH_ATTN, PH_BWD, PH_OPT, NPHASE };
#define PF (1u << PH_FWD)
#define PA (1u << PH_ATTN)
#define PB (1u << PH_BWD)
#define PO (1u << PH_OPT)

typedef struct {
	size_t name_str;	/* strtab index of the demangled name */
	long mangled_str;	/* strtab index of the mangled name, -1 for none */
	int fam, prof;		/* template family, stall profile */
	unsigned phases;	/* PF|PA|PB|PO: where the training step launches it */
	double base;		/* typical duration, ns */
	double sigma;		/* log-normal jitter */
	double key;		/* popularity sort key (short kernels tend to be popular) */
	double weight;		/* Zipf-like popularity weight */
	int64_t grid[3], block[3], cluster[3], regs, ssmem, dsmem, lmem;
	uint32_t crc;		/* fake cubin CRC */
	long file_str;		/* strtab index of its source file, -1 for none */
	int64_t line0;		/* first source line for PC samples */
} kname;

typedef struct {
	uint64_t calls, total;	/* calls, summed duration */
	uint32_t min, max;	/* shortest, longest call */
	u128 sumsq;		/* sum of squared durations, exact */
	uint32_t *d;		/* every duration (for the median) */
	size_t nd, cap;
} nstat;

typedef struct {
	int64_t *iv;		/* start,end pairs in start order */
	size_t n, cap;		/* pairs held, int64 slots allocated */
} lanebuf;

enum { API_LAUNCH, API_MEMCPY_ASYNC, API_MEMCPY_PEER, API_MEMSET_ASYNC, API_WAIT_EVENT, API_STREAM_SYNC,
	API_EVENT_SYNC, API_DEVICE_SYNC, API_MALLOC, API_FREE, NAPI };
static const struct {
	const char *name;
	int cbid;
} api_table[NAPI] = {
	{"cudaLaunchKernel", 211}, {"cudaMemcpyAsync", 41}, {"cudaMemcpyPeerAsync", 161},
	{"cudaMemsetAsync", 51}, {"cudaStreamWaitEvent", 147}, {"cudaStreamSynchronize", 131},
	{"cudaEventSynchronize", 137}, {"cudaDeviceSynchronize", 165}, {"cudaMalloc", 20}, {"cudaFree", 22},
};

enum { RG_STEP, RG_FORWARD, RG_ATTENTION, RG_BACKWARD, RG_OPTIMIZER, RG_DATA_WAIT, NRANGE };
static const char *const range_names[NRANGE] = {
	"step", "forward", "attention", "backward", "optimizer", "data_wait",
};

enum { MK_TRAIN_START, MK_LOG_METRICS, MK_TRAIN_END, NMARK };
static const char *const marker_names[NMARK] = { "train_start", "log_metrics", "train_end" };

static const char *const leak_sites[] = {
	"leaky_cache_alloc", "leaky_kv_cache_grow", "leaky_debug_buffer", "leaky_profiler_scratch",
	"leaky_tokenizer_table", "leaky_graph_pool", "leaky_nccl_staging", "leaky_autotune_workspace",
};
static const char *const alloc_sites[] = {
	"c10::cuda::CUDACachingAllocator::malloc", "at::native::empty_cuda",
};

static const char *const stall_base[] = {
	"barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
	"long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instructions",
	"not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait",
};
#define NSTALL_BASE (sizeof(stall_base) / sizeof(stall_base[0]))
#define NSTALL (2 * NSTALL_BASE)	/* each base reason and its _not_issued twin */

/* Relative weight of each base stall reason per profile (same order as stall_base). */
static const int stall_weight[NPROF][NSTALL_BASE] = {
	/* memory-bound: long scoreboard dominates */
	{ 1, 2, 2, 3, 1, 10, 50, 2, 1, 2, 1, 4, 5, 8, 6, 0, 1, 8 },
	/* math-bound: the math pipe dominates */
	{ 3, 1, 2, 1, 0, 1, 4, 35, 0, 6, 1, 1, 12, 20, 8, 0, 0, 10 },
	/* communication: waiting on memory and peers */
	{ 10, 5, 1, 2, 0, 10, 20, 0, 20, 1, 1, 1, 2, 5, 1, 15, 0, 15 },
	/* attention: math, shared memory and barriers */
	{ 15, 1, 2, 1, 0, 2, 10, 20, 0, 15, 1, 1, 8, 12, 12, 0, 0, 8 },
};

/* ------------------------------------------------------------------------------------------------ */

typedef struct {
	/* options */
	uint64_t kernels, seed, leaks, drops;
	size_t batch_rows;
	int want_expected;
	int ops;		/* --ops: PyTorch ops as emit_nvtx ranges around the forward and backward launches */
	int64_t api_tid;	/* the thread launch calls are made on (TID_MAIN, or TID_AUTOGRAD in backward) */
	int64_t op_id, op_seq;	/* the last RecordFunction handle and autograd sequence number given */
	int64_t *fwd_seq;	/* this step's forward ops with a seq (stack: backward takes them in reverse) */
	uint8_t *fwd_kind;	/* ... and which op each was (OPK_ADDMM or OPK_FLASH) */
	size_t nfwd, fwd_cap, fwdk_cap;
	uint64_t d_last;	/* the duration of the last kernel launched */
	struct opstat {
		uint64_t count, total_ns, kernels, kernel_ns, self_kernels, self_kernel_ns;
	} opst[16];		/* per op kind (OPK_*) */
	uint64_t op_outside;	/* kernel launches made outside any op */
	uint64_t op_pairs;	/* backward ops whose seq is a forward op's */
	const char *dir, *expected_path, *session;

	rng_t r;		/* the timeline */
	rng_t mr;		/* metrics */
	rng_t pr;		/* PC samples */
	rng_t lr;		/* leaks */
	rng_t ovr;		/* CUPTI's overheads (a stream of their own: the rest stays as it was) */
	rng_t opr;		/* --ops' gaps and shapes (likewise) */
	obuf out;
	strtab st;
	batch b[NTYPES];
	const char *texts[3];	/* device name and uuids for C_TEXT columns */
	char uuid[NDEV][48];

	kname *names;
	size_t nnames, names_cap;
	size_t *ph_idx[NPHASE];	/* names eligible per phase */
	double *ph_cdf[NPHASE];	/* cumulative weights */
	size_t ph_n[NPHASE];

	/* string indices */
	size_t s_api[NAPI], s_range[NRANGE], s_marker[NMARK], s_dom_loader, s_alloc_site[2];
	size_t s_stall[NSTALL];
	size_t *s_leak;

	int64_t stall_id[NDEV][NSTALL];	/* each device's own index of each reason */

	/* timeline state */
	uint64_t steps;
	int64_t t;		/* host time of the main thread */
	int64_t corr, range_id, event_id;
	int64_t lane_free[NDEV][NLANE];
	int64_t next_metric;
	int64_t dev_mem[NDEV];	/* bytes allocated now */
	int64_t energy[NDEV];
	int64_t host_rss;
	uint64_t dmet_rows[NDEV];

	/* PC-sampling drain state */
	uint32_t *seen_mark[NDEV];
	size_t seen[NDEV][PCS_FUNCS_PER_DRAIN];
	size_t nseen[NDEV];
	uint32_t drain_no;

	uint8_t *loaded[NDEV];	/* per kernel name: its function was loaded on the device (lazy loading) */

	/* ground truth */
	nstat *ns;
	lanebuf lanes[NDEV][NKLANE];
	uint64_t k_count[NDEV], k_total[NDEV];
	int64_t k_first[NDEV], k_last[NDEV];
	uint64_t cp_count[11], cp_bytes[11], cp_ns[11];
	uint64_t ms_count, ms_bytes, ms_ns;
	uint64_t sy_count[5], sy_ns[5];
	uint64_t api_count[NAPI];
	uint64_t rg_count[NRANGE], rg_ns[NRANGE];
	uint64_t mk_count[NMARK];
	uint64_t allocs, frees;
	struct leak {
		int dev;
		int64_t addr, bytes;
		size_t site;
	} *leak;
	uint64_t stall_samples[NSTALL];
	uint64_t pcs_samples;
	uint64_t ov_count[NOVH], ov_untimed[NOVH], ov_ns[NOVH];	/* by CUPTI overhead kind >> 16 */
	int64_t end_ts;
} synth;

static const int64_t stream_ids[NDEV][NLANE] = { { 7, 13, 14, 20 }, { 21, 27, 28, 34 } };
static const int64_t dev_base_addr[NDEV] = { 0x7f3a40000000LL, 0x7f2c00000000LL };

/* ------------------------------------------------------------------------------------------------ */
/* batch writing */

static void batch_init(batch *b, int type)
{
	memset(b, 0, sizeof(*b));
	b->type = type_table[type].type;
	b->cols = type_table[type].cols;
	b->ncols = type_table[type].ncols;
}

/* Write one column of a batch line into reserved space: ,"key":[v,...]. */
static void write_column(synth *s, const batch *b, int c)
{
	const coldef *cd = &b->cols[c];
	const int64_t *v = b->col[c];
	size_t i, need = strlen(cd->key) + 8 + b->n * 25;
	obuf *o = &s->out;
	char *p;

	if (cd->kind == C_TEXT)
		for (i = 0; i < b->n; i++)
			need += 6 * strlen(s->texts[v[i]]) + 3;
	ob_reserve(o, need);
	p = o->p + o->len;
	*p++ = ',';
	*p++ = '"';
	memcpy(p, cd->key, strlen(cd->key));
	p += strlen(cd->key);
	*p++ = '"';
	*p++ = ':';
	*p++ = '[';
	for (i = 0; i < b->n; i++) {
		if (i)
			*p++ = ',';
		switch (cd->kind) {
		case C_INT:
		case C_STR:
			p = put_i64(p, v[i]);
			break;
		case C_INTN:
			if (v[i] == NULLV) {
				memcpy(p, "null", 4);
				p += 4;
			} else {
				p = put_i64(p, v[i]);
			}
			break;
		case C_NUM2:	/* hundredths, printed as a decimal with a fraction */
			if (v[i] == NULLV) {
				memcpy(p, "null", 4);
				p += 4;
			} else {
				int64_t a = v[i] < 0 ? -v[i] : v[i];

				if (v[i] < 0)
					*p++ = '-';
				p = put_u64(p, (uint64_t)(a / 100));
				*p++ = '.';
				*p++ = (char)('0' + (a / 10) % 10);
				if (a % 10)
					*p++ = (char)('0' + a % 10);
			}
			break;
		case C_TEXT:
			*p++ = '"';
			p = put_json_body(p, s->texts[v[i]]);
			*p++ = '"';
			break;
		}
	}
	*p++ = ']';
	o->len = (size_t)(p - o->p);
}

/* Write the held rows of b as one batch line (declaring new strings first). */
static void batch_flush(synth *s, batch *b)
{
	obuf *o = &s->out;
	int c;

	if (!b->n)
		return;
	if (s->st.npending || s->st.ndyn)
		st_flush(&s->st, o);
	ob_str(o, "{\"type\":\"");
	ob_str(o, b->type);
	ob_str(o, "\",\"v\":2,\"seq\":");
	ob_u64(o, b->seq);
	ob_str(o, ",\"n\":");
	ob_u64(o, b->n);
	for (c = 0; c < b->ncols; c++)
		write_column(s, b, c);
	ob_mem(o, "}", 1);
	ob_endline(o);
	b->seq++;
	b->n = 0;
}

/* Append one row (values in column order); a full batch is written first. */
static void batch_push(synth *s, int type, const int64_t *v)
{
	batch *b = &s->b[type];
	int c;

	if (b->n == s->batch_rows)
		batch_flush(s, b);
	if (b->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 64;

		if (ncap > s->batch_rows)
			ncap = s->batch_rows;
		for (c = 0; c < b->ncols; c++)
			b->col[c] = xrealloc(b->col[c], ncap * sizeof(int64_t));
		b->cap = ncap;
	}
	for (c = 0; c < b->ncols; c++)
		b->col[c][b->n] = v[c];
	b->n++;
	b->total++;
}

static void flush_all(synth *s)
{
	int t;

	for (t = 0; t < NTYPES; t++)
		batch_flush(s, &s->b[t]);
}

/* ------------------------------------------------------------------------------------------------ */
/* kernel names: template families expanded with parameters */

/* Copy tpl into out, replacing $0..$9 by vars[0..9]; returns out. */
static char *expand(char *out, size_t cap, const char *tpl, const char *const *vars)
{
	size_t n = 0;

	for (; *tpl && n + 1 < cap; tpl++) {
		if (tpl[0] == '$' && tpl[1] >= '0' && tpl[1] <= '9') {
			const char *v = vars[tpl[1] - '0'];

			while (*v && n + 1 < cap)
				out[n++] = *v++;
			tpl++;
		} else {
			out[n++] = *tpl;
		}
	}
	out[n] = '\0';
	return out;
}

static void u64s(char *buf, size_t cap, uint64_t v)
{
	snprintf(buf, cap, "%" PRIu64, v);
}

/* Launch shape, resources and timing for a new name of family fam. */
static void shape_name(kname *k, rng_t *r, double lo_us, double hi_us)
{
	static const int64_t ew_grid[] = { 132, 528, 1056, 2048, 8192, 32768, 65535 };
	double u = rng_u01(r);

	k->base = lo_us * 1000.0 * det_exp(u * det_log(hi_us / lo_us));
	k->sigma = 0.04 + 0.30 * rng_u01(r);
	k->key = k->base * (1.0 + 3.0 * rng_u01(r));
	k->grid[1] = k->grid[2] = 1;
	k->block[1] = k->block[2] = 1;
	switch (k->fam) {
	case FAM_CUTLASS:
	case FAM_CUBLAS:
		k->grid[0] = rr(r, 4, 96);
		k->grid[1] = rr(r, 2, 64);
		k->grid[2] = rr(r, 1, 4);
		k->block[0] = 128 * rr(r, 1, 3);
		k->regs = rr(r, 64, 127) * 2;
		if (k->fam == FAM_CUTLASS)
			k->dsmem = rr(r, 48, 222) * 1024;
		else
			k->ssmem = rr(r, 16, 48) * 1024;
		break;
	case FAM_NCCL:
		k->grid[0] = rr(r, 2, 32);
		k->block[0] = rr(r, 0, 1) ? 512 : 640;
		k->regs = 96;
		k->ssmem = 8 * 1024 + 16 * rr(r, 0, 64);
		break;
	case FAM_FLASH:
		k->grid[0] = rr(r, 4, 32);
		k->grid[1] = 32 * rr(r, 1, 8);
		k->block[0] = rr(r, 0, 1) ? 128 : 256;
		k->regs = 255;
		k->dsmem = rr(r, 48, 192) * 1024;
		break;
	case FAM_REDUCE:
	case FAM_SOFTMAX:
	case FAM_LAYERNORM:
		k->grid[0] = rr(r, 1, 16384);
		k->grid[1] = rr(r, 0, 3) ? 1 : rr(r, 2, 8);
		k->block[0] = rr(r, 0, 1) ? 32 : 128;
		k->block[1] = k->block[0] == 32 ? 4 * rr(r, 1, 4) : 1;
		k->regs = 32 + 2 * rr(r, 0, 16);
		k->ssmem = 16 * rr(r, 0, 64);
		k->dsmem = rr(r, 0, 1) ? 0 : 16 * rr(r, 1, 256);
		break;
	default:
		k->grid[0] = ew_grid[rr(r, 0, (int64_t)(sizeof(ew_grid) / sizeof(ew_grid[0])) - 1)];
		k->block[0] = 128 << rr(r, 0, 2);
		k->regs = 16 + 2 * rr(r, 0, 12);
		break;
	}
	if (rr(r, 0, 19) == 0)
		k->lmem = 8 * rr(r, 1, 16);
}

/* Add a kernel name of family fam; mangled may be NULL. */
static void add_kname(synth *s, rng_t *r, int fam, unsigned phases, double lo_us, double hi_us,
		      const char *name, const char *mangled)
{
	kname *k;
	size_t i;
	size_t idx = st_add(&s->st, name);

	for (i = 0; i < s->nnames; i++)
		if (s->names[i].name_str == idx)
			return;		/* a duplicate from the templates: keep the first */
	grow((void **)&s->names, &s->names_cap, s->nnames + 1, sizeof(*s->names));
	k = &s->names[s->nnames++];
	memset(k, 0, sizeof(*k));
	k->name_str = idx;
	k->mangled_str = mangled ? (long)st_add(&s->st, mangled) : -1;
	k->fam = fam;
	k->phases = phases;
	k->crc = hash32(name);
	k->file_str = -1;
	switch (fam) {
	case FAM_CUTLASS:
	case FAM_CUBLAS:
		k->prof = PROF_MATH;
		break;
	case FAM_NCCL:
		k->prof = PROF_COMM;
		break;
	case FAM_FLASH:
		k->prof = PROF_ATTN;
		break;
	default:
		k->prof = PROF_MEMORY;
		break;
	}
	shape_name(k, r, lo_us, hi_us);
}

static void build_names(synth *s)
{
	static const char *const dtypes[] = { "float", "c10::Half", "c10::BFloat16" };
	static const char *const layouts[] = { "nn", "nt", "tn", "tt" };
	static const char *const cl_types[][3] = {	/* type, k x stages, align */
		{ "s1688gemm", "32x3", "4" }, { "h16816gemm", "64x3", "8" }, { "bf16_s16816gemm_bf16", "32x5", "8" },
	};
	static const char *const cl_tiles[] = { "64x64", "128x64", "128x128", "256x128" };
	static const char *const c3_tiles[] = { "128x128x64", "128x256x64", "256x128x64" };
	static const char *const c3_clusters[][4] = { { "1x2x1", "1", "2", "1" }, { "2x1x1", "2", "1", "1" } };
	static const char *const c3_layouts[] = { "tnn", "ntn" };
	static const char *const sg_tiles[] = {
		"32x32_sliced1x4", "32x128", "64x32_sliced1x4", "64x64", "128x32", "128x64", "128x128",
	};
	static const char *const xm_layouts[] = { "tn", "nt", "nn" };
	static const char *const xm_tiles[] = { "128x128x64", "128x256x64", "64x256x64" };
	static const char *const xm_wg[] = { "1x1x1", "2x1x1" };
	static const char *const nccl_types[] = { "f32", "f16", "bf16" };
	static const char *const nccl_algos[] = { "RING", "TREE" };
	static const char *const nccl_protos[] = { "LL", "LL128", "SIMPLE" };
	static const char *const ew_functors[][2] = {	/* functor ($0 = T), arrays (outputs + inputs) */
		{ "at::native::CUDAFunctor_add<$0>", "3" },
		{ "at::native::BinaryFunctor<$0, $0, $0, at::native::binary_internal::MulFunctor<$0> >", "3" },
		{ "at::native::BinaryFunctor<$0, $0, $0, at::native::binary_internal::DivFunctor<$0> >", "3" },
		{ "at::native::AUnaryFunctor<$0, $0, $0, at::native::binary_internal::MulFunctor<$0> >", "2" },
		{ "at::native::FillFunctor<$0>", "1" },
		{ "at::native::(anonymous namespace)::masked_fill_kernel(at::TensorIterator&, c10::Scalar const&)"
		  "::{lambda()#1}::operator()() const::{lambda()#10}::operator()() const::{lambda($0, bool)#1}", "3" },
		{ "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}"
		  "::operator()() const::{lambda()#2}::operator()() const::{lambda($0)#1}", "2" },
		{ "at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}"
		  "::operator()() const::{lambda()#4}::operator()() const::{lambda($0)#1}", "2" },
		{ "at::native::tanh_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const"
		  "::{lambda()#2}::operator()() const::{lambda($0)#1}", "2" },
		{ "at::native::sqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const"
		  "::{lambda()#2}::operator()() const::{lambda($0)#1}", "2" },
	};
	static const char *const ew_templates[] = {
		"void at::native::vectorized_elementwise_kernel<$0, $1, at::detail::Array<char*, $2> >"
		"(int, $1, at::detail::Array<char*, $2>)",
		"void at::native::unrolled_elementwise_kernel<$1, at::detail::Array<char*, $2>, "
		"TrivialOffsetCalculator<$3, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
		"at::native::memory::LoadWithCast<$3>, at::native::memory::StoreWithCast<1> >(int, $1, "
		"at::detail::Array<char*, $2>, TrivialOffsetCalculator<$3, unsigned int>, "
		"TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<$3>, "
		"at::native::memory::StoreWithCast<1>)",
		"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<$1>"
		"(at::TensorIteratorBase&, $1 const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<$1>"
		"(at::TensorIteratorBase&, $1 const&)::{lambda(int)#1})",
	};
	static const char *const red_ops[][2] = {	/* ops ($0 = T), output type */
		{ "at::native::MeanOps<$0, float, float, $0>", "$0" },
		{ "at::native::func_wrapper_t<float, at::native::sum_functor<$0, float, $0>::operator()"
		  "(at::TensorIterator&)::{lambda(float, float)#1}>", "$0" },
		{ "at::native::NormTwoOps<$0, float, float>", "float" },
		{ "at::native::MaxOps<float>", "float" },
	};
	static const char *const red_cfg[][2] = { { "512", "1" }, { "256", "4" } };
	static const char *const flash_dt[] = { "cutlass::half_t", "cutlass::bfloat16_t" };
	static const char *const flash_hd[][3] = { { "64", "128", "128" }, { "128", "128", "64" }, { "256", "64", "64" } };
	static const char *const bools[] = { "true", "false" };
	static const char *const opt_tpl[] = {
		"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)"
		"::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<$0, 4, "
		"(at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, double*, "
		"double*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)"
		"::FusedAdamMathFunctor<$0, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, "
		"double, double, bool, double*, double*)",
		"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)"
		"::TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<$0, 1, 1, 0>, "
		"at::native::Zero<$0> >(at::native::(anonymous namespace)::TensorListMetadata<1>, "
		"at::native::(anonymous namespace)::UnaryOpFunctor<$0, 1, 1, 0>, at::native::Zero<$0>)",
		"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)"
		"::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<$0, (at::native::"
		"(anonymous namespace)::NormType)1, float, float>, float*, int>(at::native::(anonymous namespace)"
		"::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<$0, (at::native::"
		"(anonymous namespace)::NormType)1, float, float>, float*, int)",
		"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)"
		"::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpScalarTensorFunctor<$0, 2, 1, 1>, "
		"std::multiplies<float>, float*>(at::native::(anonymous namespace)::TensorListMetadata<2>, "
		"at::native::(anonymous namespace)::BinaryOpScalarTensorFunctor<$0, 2, 1, 1>, std::multiplies<float>, "
		"float*)",
	};
	static const struct {
		const char *tpl;
		unsigned phases;
	} misc_tpl[] = {
		{ "void at::native::(anonymous namespace)::indexSelectLargeIndex<$0, long, unsigned int, 2, 2, -2, true>"
		  "(at::cuda::detail::TensorInfo<$0, unsigned int>, at::cuda::detail::TensorInfo<$0 const, unsigned int>, "
		  "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)", PF },
		{ "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<$0, float, long>"
		  "(long const*, $0 const*, $0*, int, long, int, int)", PB },
		{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)"
		  "::OpaqueType<$1>, unsigned int, 3, 128, 1>(at::native::(anonymous namespace)::OpaqueType<$1>*, "
		  "at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)"
		  "::OpaqueType<$1>, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride"
		  "<unsigned int, 4u>, int, unsigned int)", PF | PB },
		{ "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<$0, float, unsigned int, 1, 4, bool>"
		  "(at::cuda::detail::TensorInfo<$0 const, unsigned int>, at::cuda::detail::TensorInfo<$0, unsigned int>, "
		  "at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)", PF | PA },
		{ "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<$0, float, long>"
		  "($0*, $0*, $0 const*, long const*, $0 const*, bool, long, long, long, long)", PF },
		{ "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<$0, long>"
		  "($0*, $0 const*, long const*, $0 const*, $0 const*, bool, int, int, long, long)", PB },
	};
	char name[4096], mangled[1024], base[512], len[24], functor[1024], ops[512], outt[64];
	size_t a, b, c;
	rng_t r;
	size_t elementwise_file, reduce_file, fwd_file, bwd_file;

	rng_seed(&r, s->seed, 1);
	elementwise_file = st_add(&s->st, "/pytorch/aten/src/ATen/native/cuda/CUDALoops.cuh");
	reduce_file = st_add(&s->st, "/pytorch/aten/src/ATen/native/cuda/Reduce.cuh");
	fwd_file = st_add(&s->st, "csrc/flash_attn/src/flash_fwd_kernel.h");
	bwd_file = st_add(&s->st, "csrc/flash_attn/src/flash_bwd_kernel.h");

	/* cutlass 2.x (sm80) through cuBLAS: void cutlass::Kernel2<X>(X::Params) */
	for (a = 0; a < 3; a++)
		for (b = 0; b < 4; b++)
			for (c = 0; c < 4; c++) {
				const char *v[] = { cl_types[a][0], cl_tiles[b], cl_types[a][1], layouts[c], cl_types[a][2] };
				const char *w[2];

				expand(base, sizeof(base), "cutlass_80_tensorop_$0_$1_$2_$3_align$4", v);
				w[0] = base;
				expand(name, sizeof(name), "void cutlass::Kernel2<$0>($0::Params)", w);
				u64s(len, sizeof(len), strlen(base));
				w[0] = len;
				w[1] = base;
				expand(mangled, sizeof(mangled), "_ZN7cutlass7Kernel2I$0$1EEvNT_6ParamsE", w);
				add_kname(s, &r, FAM_CUTLASS, PF | PA | PB, 15, 5000, name, mangled);
			}
	/* cutlass 3.x (sm90) with thread-block clusters */
	for (a = 0; a < 3; a++)
		for (b = 0; b < 2; b++)
			for (c = 0; c < 2; c++) {
				const char *v[] = { c3_tiles[a], c3_clusters[b][0], c3_layouts[c] };
				const char *w[2];
				kname *k;

				expand(base, sizeof(base), "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_$0_$1_0_$2"
				       "_align8_warpspecialized_cooperative_epi_tma", v);
				w[0] = base;
				expand(name, sizeof(name), "void cutlass::device_kernel<$0>($0::Params)", w);
				u64s(len, sizeof(len), strlen(base));
				w[0] = len;
				w[1] = base;
				expand(mangled, sizeof(mangled), "_ZN7cutlass13device_kernelI$0$1EEvNT_6ParamsE", w);
				add_kname(s, &r, FAM_CUTLASS, PF | PA | PB, 15, 5000, name, mangled);
				k = &s->names[s->nnames - 1];
				k->cluster[0] = c3_clusters[b][1][0] - '0';
				k->cluster[1] = c3_clusters[b][2][0] - '0';
				k->cluster[2] = c3_clusters[b][3][0] - '0';
				k->grid[0] = (k->grid[0] + 1) & ~(int64_t)1;
				k->grid[1] = (k->grid[1] + 1) & ~(int64_t)1;
			}
	/* cuBLAS SIMT and Hopper xmma kernels (extern "C": no mangled name) */
	for (a = 0; a < sizeof(sg_tiles) / sizeof(sg_tiles[0]); a++)
		for (b = 0; b < 3; b++) {
			const char *v[] = { sg_tiles[a], layouts[b] };

			expand(name, sizeof(name), "ampere_sgemm_$0_$1", v);
			add_kname(s, &r, FAM_CUBLAS, PF | PA | PB, 15, 4000, name, NULL);
		}
	for (a = 0; a < 3; a++)
		for (b = 0; b < 3; b++)
			for (c = 0; c < 2; c++) {
				const char *v[] = { xm_layouts[a], xm_tiles[b], xm_wg[c] };

				expand(name, sizeof(name), "sm90_xmma_gemm_bf16bf16_bf16f32_f32_$0_n_tilesize$1_warpgroupsize$2"
				       "_execute_segment_k_off_kernel__5x_cublas", v);
				add_kname(s, &r, FAM_CUBLAS, PF | PA | PB, 15, 5000, name, NULL);
			}
	add_kname(s, &r, FAM_CUBLAS, PF | PB, 3, 80,
		  "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, "
		  "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched"
		  "<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParamsEx<int, "
		  "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
		  "cublasGemvTensorStridedBatched<float>, float>, float, float)", NULL);
	add_kname(s, &r, FAM_CUBLAS, PF | PB, 3, 80,
		  "void gemv2N_kernel<int, int, float, float, float, float, 128, 32, 4, 4, 1, false, "
		  "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched"
		  "<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParamsEx<int, "
		  "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
		  "cublasGemvTensorStridedBatched<float>, float>)", NULL);

	/* NCCL collectives */
	for (a = 0; a < 3; a++)
		for (b = 0; b < 2; b++)
			for (c = 0; c < 3; c++) {
				const char *v[] = { nccl_types[a], nccl_algos[b], nccl_protos[c] };

				const char *w[2];

				expand(base, sizeof(base), "ncclDevKernel_AllReduce_Sum_$0_$1_$2", v);
				w[0] = base;
				expand(name, sizeof(name), "$0(ncclDevKernelArgsStorage<4096ul>)", w);
				u64s(len, sizeof(len), strlen(base));
				w[0] = len;
				w[1] = base;
				expand(mangled, sizeof(mangled), "_Z$0$124ncclDevKernelArgsStorageILm4096EE", w);
				add_kname(s, &r, FAM_NCCL, PB, 30, 5000, name, mangled);
			}
	for (a = 0; a < 7; a++) {
		static const char *const others[] = {
			"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", "ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE",
			"ncclDevKernel_AllGather_RING_LL", "ncclDevKernel_AllGather_RING_LL128",
			"ncclDevKernel_AllGather_RING_SIMPLE", "ncclDevKernel_Broadcast_RING_LL", "ncclDevKernel_SendRecv",
		};
		const char *w[2] = { others[a], NULL };

		expand(name, sizeof(name), "$0(ncclDevKernelArgsStorage<4096ul>)", w);
		u64s(len, sizeof(len), strlen(others[a]));
		w[0] = len;
		w[1] = others[a];
		expand(mangled, sizeof(mangled), "_Z$0$124ncclDevKernelArgsStorageILm4096EE", w);
		add_kname(s, &r, FAM_NCCL, PB, 30, 5000, name, mangled);
	}

	/* PyTorch elementwise kernels */
	for (a = 0; a < sizeof(ew_functors) / sizeof(ew_functors[0]); a++)
		for (b = 0; b < 3; b++)
			for (c = 0; c < 3; c++) {
				char inputs[8];
				const char *v1[] = { dtypes[b] };
				const char *v2[4];
				kname *k;

				if (c == 1 && b == 0)
					continue;	/* float runs vectorized, never unrolled with casts */
				expand(functor, sizeof(functor), ew_functors[a][0], v1);
				u64s(inputs, sizeof(inputs), (uint64_t)(ew_functors[a][1][0] - '1'));
				v2[0] = b == 0 ? "4" : "8";
				v2[1] = functor;
				v2[2] = ew_functors[a][1];
				v2[3] = inputs;
				expand(name, sizeof(name), ew_templates[c], v2);
				add_kname(s, &r, FAM_ELEMWISE, PF | PA | PB | PO, 2, 60, name, NULL);
				k = &s->names[s->nnames - 1];
				k->file_str = (long)elementwise_file;
				k->line0 = 100 + 20 * (int64_t)c;
			}

	/* reductions */
	for (a = 0; a < 4; a++)
		for (b = 0; b < 2; b++)
			for (c = 0; c < 2; c++) {
				const char *t = b == 0 ? "float" : "c10::BFloat16";
				const char *v1[] = { t };
				const char *v2[5];
				kname *k;

				expand(ops, sizeof(ops), red_ops[a][0], v1);
				expand(outt, sizeof(outt), red_ops[a][1], v1);
				v2[0] = red_cfg[c][0];
				v2[1] = red_cfg[c][1];
				v2[2] = t;
				v2[3] = ops;
				v2[4] = outt;
				expand(name, sizeof(name), "void at::native::reduce_kernel<$0, $1, at::native::ReduceOp<$2, $3, "
				       "unsigned int, $4, 4> >(at::native::ReduceOp<$2, $3, unsigned int, $4, 4>)", v2);
				add_kname(s, &r, FAM_REDUCE, PF | PB | PO, 4, 200, name, NULL);
				k = &s->names[s->nnames - 1];
				k->file_str = (long)reduce_file;
				k->line0 = 220;
			}

	/* softmax */
	for (b = 0; b < 3; b++) {
		for (c = 0; c < 2; c++) {
			const char *v[] = { c == 0 ? "4" : "8", dtypes[b] };

			expand(name, sizeof(name), "void at::native::(anonymous namespace)::cunn_SoftMaxForward<$0, $1, float, $1, "
			       "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>($1*, $1 const*, int)", v);
			add_kname(s, &r, FAM_SOFTMAX, PA, 4, 300, name, NULL);
			expand(name, sizeof(name), "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<$0, $1, float, $1, "
			       "at::native::(anonymous namespace)::SoftMaxBackwardEpilogue>($1*, $1 const*, $1 const*, long)", v);
			add_kname(s, &r, FAM_SOFTMAX, PB, 4, 300, name, NULL);
		}
		for (c = 9; c <= 11; c++) {
			char l2[8];
			const char *v[2];

			u64s(l2, sizeof(l2), c);
			v[0] = l2;
			v[1] = dtypes[b];
			expand(name, sizeof(name), "void (anonymous namespace)::softmax_warp_forward<$1, $1, float, $0, false, false>"
			       "($1*, $1 const*, int, int, int, bool const*, int, bool)", v);
			add_kname(s, &r, FAM_SOFTMAX, PA, 4, 200, name, NULL);
			expand(name, sizeof(name), "void (anonymous namespace)::softmax_warp_backward<$1, $1, float, $0, false, false>"
			       "($1*, $1 const*, $1 const*, int, int, int, bool const*)", v);
			add_kname(s, &r, FAM_SOFTMAX, PB, 4, 200, name, NULL);
		}
	}

	/* layer norm */
	for (b = 0; b < 3; b++) {
		const char *v[] = { dtypes[b] };

		expand(name, sizeof(name), "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<$0, float>"
		       "(int, float, $0 const*, $0 const*, $0 const*, float*, float*, $0*)", v);
		add_kname(s, &r, FAM_LAYERNORM, PF | PA, 4, 150, name, NULL);
		expand(name, sizeof(name), "void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<$0, float>"
		       "(long, float, $0 const*, float*, float*)", v);
		add_kname(s, &r, FAM_LAYERNORM, PF, 4, 150, name, NULL);
		expand(name, sizeof(name), "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized"
		       "<$0, float>($0 const*, $0 const*, float const*, float const*, $0 const*, $0*, int)", v);
		add_kname(s, &r, FAM_LAYERNORM, PB, 4, 150, name, NULL);
		expand(name, sizeof(name), "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<$0, "
		       "float, 32, 1, 32, false, true>(long, long, $0 const*, $0 const*, float const*, float const*, $0*, $0*)", v);
		add_kname(s, &r, FAM_LAYERNORM, PB, 4, 150, name, NULL);
	}

	/* flash attention */
	for (a = 0; a < 3; a++)
		for (b = 0; b < 2; b++) {
			for (c = 0; c < 2; c++) {
				const char *v[] = { flash_hd[a][0], flash_hd[a][1], flash_hd[a][2], flash_dt[b], bools[c] };
				kname *k;

				expand(name, sizeof(name), "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<$0, $1, $2, 4, false, "
				       "false, $3, Flash_kernel_traits<$0, $1, $2, 4, $3> >, $4, false, false, false, true, true, false, "
				       "false>(flash::Flash_fwd_params)", v);
				add_kname(s, &r, FAM_FLASH, PA, 40, 3000, name, NULL);
				k = &s->names[s->nnames - 1];
				k->file_str = (long)fwd_file;
				k->line0 = 300;
				expand(name, sizeof(name), "void flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits"
				       "<$0, 64, 128, 8, 2, 4, 2, false, false, $3, Flash_kernel_traits<$0, 64, 128, 8, $3> >, $4, false, "
				       "false, false, false, true, true, false>(flash::Flash_bwd_params)", v);
				add_kname(s, &r, FAM_FLASH, PB, 60, 4000, name, NULL);
				k = &s->names[s->nnames - 1];
				k->file_str = (long)bwd_file;
				k->line0 = 450;
			}
			{
				const char *v[] = { flash_hd[a][0], NULL, NULL, flash_dt[b] };

				expand(name, sizeof(name), "void flash::flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<$0, 64, 128, "
				       "8, 2, 4, 2, false, false, $3, Flash_kernel_traits<$0, 64, 128, 8, $3> > >(flash::Flash_bwd_params)", v);
				add_kname(s, &r, FAM_FLASH, PB, 5, 200, name, NULL);
				expand(name, sizeof(name), "void flash::flash_bwd_convert_dq_kernel<Flash_bwd_kernel_traits<$0, 64, 128, 8, "
				       "2, 4, 2, false, false, $3, Flash_kernel_traits<$0, 64, 128, 8, $3> > >(flash::Flash_bwd_params, int)", v);
				add_kname(s, &r, FAM_FLASH, PB, 5, 200, name, NULL);
			}
		}

	/* optimizer */
	for (a = 0; a < sizeof(opt_tpl) / sizeof(opt_tpl[0]); a++)
		for (b = 0; b < 2; b++) {
			const char *v[] = { b == 0 ? "float" : "c10::BFloat16" };

			expand(name, sizeof(name), opt_tpl[a], v);
			add_kname(s, &r, FAM_OPTIM, PO, 20, 800, name, NULL);
		}
	add_kname(s, &r, FAM_OPTIM, PO, 3, 20,
		  "void at::native::lpnorm_cleanup<float, (at::native::(anonymous namespace)::NormType)1, float, float>"
		  "(float const*, at::native::TensorListAddresses, int)", NULL);

	/* embedding, concatenation, dropout, loss */
	for (a = 0; a < sizeof(misc_tpl) / sizeof(misc_tpl[0]); a++)
		for (b = 0; b < 2; b++) {
			const char *v[] = { b == 0 ? "float" : "c10::BFloat16", b == 0 ? "4" : "2" };

			expand(name, sizeof(name), misc_tpl[a].tpl, v);
			add_kname(s, &r, FAM_MISC, misc_tpl[a].phases, 3, 300, name, NULL);
		}
}

static int cmp_key(const void *pa, const void *pb)
{
	const kname *a = *(const kname *const *)pa, *b = *(const kname *const *)pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->name_str < b->name_str ? -1 : a->name_str > b->name_str;
}

/* Popularity: rank names by key (short kernels tend to be popular), weight 1/rank per family factor,
 * and build a cumulative table per phase. */
static void build_popularity(synth *s)
{
	kname **order = xcalloc(s->nnames, sizeof(*order));
	size_t i, ph;

	for (i = 0; i < s->nnames; i++)
		order[i] = &s->names[i];
	qsort(order, s->nnames, sizeof(*order), cmp_key);
	for (i = 0; i < s->nnames; i++) {
		double f = 1.0;

		if (order[i]->fam == FAM_NCCL)
			f = 0.12;
		else if (order[i]->fam == FAM_OPTIM)
			f = 0.6;
		order[i]->weight = f / (double)(i + 1);
	}
	free(order);
	for (ph = 0; ph < NPHASE; ph++) {
		double acc = 0;

		s->ph_idx[ph] = xcalloc(s->nnames, sizeof(size_t));
		s->ph_cdf[ph] = xcalloc(s->nnames, sizeof(double));
		for (i = 0; i < s->nnames; i++) {
			if (!(s->names[i].phases & (1u << ph)))
				continue;
			acc += s->names[i].weight;
			s->ph_idx[ph][s->ph_n[ph]] = i;
			s->ph_cdf[ph][s->ph_n[ph]++] = acc;
		}
	}
}

static size_t pick_name(synth *s, int ph)
{
	size_t n = s->ph_n[ph], lo = 0, hi = n - 1;
	double u = rng_u01(&s->r) * s->ph_cdf[ph][n - 1];

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->ph_cdf[ph][mid] <= u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return s->ph_idx[ph][lo];
}

/* ------------------------------------------------------------------------------------------------ */
/* records */

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static void emit_api(synth *s, int api, int64_t start, int64_t end, int64_t corr)
{
	int64_t v[] = { start, end, s->api_tid, corr, sid(&s->st, s->s_api[api]), api_table[api].cbid, 1 };

	batch_push(s, T_API, v);
	s->api_count[api]++;
}

static void emit_range(synth *s, int rg, int64_t start, int64_t end, int64_t id, int64_t depth)
{
	int64_t v[] = {
		start, end, rg == RG_DATA_WAIT ? TID_LOADER : TID_MAIN, sid(&s->st, s->s_range[rg]),
		rg == RG_DATA_WAIT ? sid(&s->st, s->s_dom_loader) : 0, rg == RG_DATA_WAIT ? 2 : 1, depth, id,
	};

	batch_push(s, T_RANGE, v);
	s->rg_count[rg]++;
	s->rg_ns[rg] += (uint64_t)(end - start);
}

static void emit_marker(synth *s, int mk, int64_t ts)
{
	int64_t v[] = { ts, TID_MAIN, sid(&s->st, s->s_marker[mk]), 0 };

	batch_push(s, T_MARKER, v);
	s->mk_count[mk]++;
}

/*
 * One of CUPTI's overheads: start NULLV for one it could not time. thread, device, context, stream as
 * the object kind has them, -1 for the rest.
 */
static void emit_overhead(synth *s, int kind, int object, int64_t start, int64_t dur, int64_t thread, int dev,
			  int64_t stream, int64_t corr)
{
	int64_t v[] = {
		start, start == NULLV ? NULLV : start + dur, kind, object, thread,
		object >= OBJ_CONTEXT ? dev : -1, object >= OBJ_CONTEXT ? dev + 1 : -1, stream, corr,
	};

	batch_push(s, T_OVH, v);
	s->ov_count[kind >> 16]++;
	if (start == NULLV)
		s->ov_untimed[kind >> 16]++;
	else
		s->ov_ns[kind >> 16] += (uint64_t)dur;
}

static void lane_add(lanebuf *l, int64_t start, int64_t end)
{
	grow((void **)&l->iv, &l->cap, 2 * (l->n + 1), sizeof(int64_t));
	l->iv[2 * l->n] = start;
	l->iv[2 * l->n + 1] = end;
	l->n++;
}

/* Launch one kernel of phase ph: the cudaLaunchKernel call on the host, the kernel on a stream. */
static void launch(synth *s, int ph)
{
	rng_t *r = &s->r;
	size_t ni = pick_name(s, ph);
	const kname *k = &s->names[ni];
	int dev = (int)(rng_next(r) >> 63);
	int lane = k->fam == FAM_NCCL ? LANE_COMM : (rng_u01(r) < 0.78 ? LANE_MAIN : LANE_SIDE);
	int64_t corr = ++s->corr;
	int64_t api_start = s->t;
	int64_t api_end = api_start + rr(r, 2500, 6500);
	int64_t start, end;
	double dur;
	uint64_t d;

	if (rr(r, 0, 99) == 0)
		api_end += rr(r, 20000, 120000);	/* an occasional slow launch */
	start = max64(api_start + rr(r, 3000, 9000), s->lane_free[dev][lane] + rr(r, 400, 2000));
	dur = k->base * det_exp(k->sigma * rng_normal(r));
	if (rr(r, 0, 199) == 0)
		dur *= 2.0 + 4.0 * rng_u01(r);		/* outliers */
	if (dur > 4.0e9)
		dur = 4.0e9;
	d = (uint64_t)(dur + 0.5);
	if (d < 1)
		d = 1;
	s->d_last = d;
	end = start + (int64_t)d;
	s->lane_free[dev][lane] = end;
	emit_api(s, API_LAUNCH, api_start, api_end, corr);
	if (!s->loaded[dev][ni]) {
		s->loaded[dev][ni] = 1;
		emit_overhead(s, OVH_LAZY_LOADING, OBJ_CONTEXT, api_start + rr(&s->ovr, 50, 300),
			      rr(&s->ovr, 5000, 80000), -1, dev, -1, corr);
	}
	if (corr % CMDBUF_EVERY == 0)
		emit_overhead(s, OVH_COMMAND_BUFFER_FULL, OBJ_STREAM, api_start + rr(&s->ovr, 50, 300),
			      rr(&s->ovr, 2000, 30000), -1, dev, stream_ids[dev][lane], corr);
	{
		int64_t v[] = {
			start, end, dev, dev + 1, stream_ids[dev][lane], corr, sid(&s->st, k->name_str),
			k->mangled_str >= 0 ? sid(&s->st, (size_t)k->mangled_str) : 0,
			k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
			k->cluster[0], k->cluster[1], k->cluster[2], k->regs, k->ssmem, k->dsmem, k->lmem, 0, 0,
		};

		batch_push(s, T_KERNEL, v);
	}
	if (s->seen_mark[dev][ni] != s->drain_no + 1 && s->nseen[dev] < PCS_FUNCS_PER_DRAIN) {
		s->seen_mark[dev][ni] = s->drain_no + 1;
		s->seen[dev][s->nseen[dev]++] = ni;
	}
	if (!s->k_count[dev] || start < s->k_first[dev])
		s->k_first[dev] = start;
	if (!s->k_count[dev] || end > s->k_last[dev])
		s->k_last[dev] = end;
	s->k_count[dev]++;
	s->k_total[dev] += d;
	if (s->want_expected) {
		nstat *st = &s->ns[ni];

		if (!st->calls || d < st->min)
			st->min = (uint32_t)d;
		if (d > st->max)
			st->max = (uint32_t)d;
		st->calls++;
		st->total += d;
		st->sumsq += (u128)d * d;
		grow((void **)&st->d, &st->cap, st->nd + 1, sizeof(uint32_t));
		st->d[st->nd++] = (uint32_t)d;
		lane_add(&s->lanes[dev][lane], start, end);
	}
	s->t = api_end + rr(r, 300, 2500);
}


/* ------------------------------------------------------------------------------------------------ */
/*
 * --ops: PyTorch ops around the launches, as torch.autograd.profiler.emit_nvtx(record_shapes=True) names
 * their NVTX push/pop ranges ("NAME[, seq = N], op_id = M, sizes = [[...]][, input_op_ids = [(id,out)]]",
 * torch/csrc/profiler/util.cpp getNvtxStr). Each forward launch sits in aten::linear > aten::addmm (or, in
 * attention, aten::scaled_dot_product_attention > aten::_scaled_dot_product_flash_attention), the inner op
 * with an autograd seq; each backward launch, on autograd's thread, in evaluate_function > the backward
 * node of the forward op of that seq (this step's forward ops in reverse) > aten::mm (or the flash
 * backward), or AccumulateGrad > aten::add_ once the forward ops are used up. Optimizer launches, copies,
 * memsets and syncs are made outside any op. The answers (expected.json "ops") are counted as they are
 * written: per op name its count, summed duration, and the kernels launched inside it and of them those
 * whose innermost op it is (every op here holds one launch; the leaf is its innermost).
 */
enum { OPK_LINEAR, OPK_ADDMM, OPK_SDPA, OPK_FLASH, OPK_EVAL_ADDMM, OPK_ADDMM_BWD, OPK_MM, OPK_EVAL_FLASH,
       OPK_FLASH_BWD, OPK_FLASH_BWD_OP, OPK_EVAL_ACC, OPK_ACC, OPK_ADD_, NOPK };
static const char *const op_names[NOPK] = {
	"aten::linear", "aten::addmm", "aten::scaled_dot_product_attention",
	"aten::_scaled_dot_product_flash_attention", "autograd::engine::evaluate_function: AddmmBackward0",
	"AddmmBackward0", "aten::mm", "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0",
	"ScaledDotProductFlashAttentionBackward0", "aten::_scaled_dot_product_flash_attention_backward",
	"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad",
	"aten::add_",
};

/* One op's range: text is its emit_nvtx text; it holds the last launch (its innermost op when leaf). */
static void emit_op(synth *s, int k, int64_t start, int64_t end, int64_t tid, int64_t depth, const char *text,
		    int leaf)
{
	int64_t v[] = { start, end, tid, sid_once(&s->st, xstrdup(text)), 0, 1, depth, ++s->range_id };
	struct opstat *o = &s->opst[k];

	batch_push(s, T_RANGE, v);
	o->count++;
	o->total_ns += (uint64_t)(end - start);
	o->kernels++;
	o->kernel_ns += s->d_last;
	if (leaf) {
		o->self_kernels++;
		o->self_kernel_ns += s->d_last;
	}
}

/* A launch of phase ph inside its ops (--ops; a plain launch without). */
static void op_launch(synth *s, int ph)
{
	rng_t *r = &s->opr;
	char outer[512], mid[512], inner[512];
	int64_t t0, t1, t2 = 0, e2 = 0, e1, e0, tid = ph == PH_BWD ? TID_AUTOGRAD : TID_MAIN;
	int64_t depth = ph == PH_BWD ? 0 : ph == PH_ATTN ? 3 : 2, id = s->op_id;
	int ko, km, ki = -1, three = ph == PH_BWD;
	int64_t b = 4096, k = 1024 * rr(r, 1, 4), n = 1024 * rr(r, 1, 4), h = 16, l = 2048, hd = 128;

	if (!s->ops) {
		launch(s, ph);
		return;
	}
	s->op_id += 3;
	if (ph == PH_FWD || ph == PH_ATTN) {
		int64_t seq = ++s->op_seq;

		ko = ph == PH_FWD ? OPK_LINEAR : OPK_SDPA;
		km = ph == PH_FWD ? OPK_ADDMM : OPK_FLASH;
		if (ph == PH_FWD) {
			snprintf(outer, sizeof(outer), "%s, op_id = %" PRId64 ", sizes = [[%" PRId64 ", %" PRId64 "], [%"
				 PRId64 ", %" PRId64 "], [%" PRId64 "]]", op_names[ko], id + 1, b, k, n, k, n);
			snprintf(mid, sizeof(mid), "%s, seq = %" PRId64 ", op_id = %" PRId64 ", sizes = [[%" PRId64 "], [%"
				 PRId64 ", %" PRId64 "], [%" PRId64 ", %" PRId64 "], [], []], input_op_ids = [(%" PRId64
				 ",0)]", op_names[km], seq, id + 2, n, b, k, k, n, id > 0 ? id : 1);
		} else {
			snprintf(outer, sizeof(outer), "%s, op_id = %" PRId64 ", sizes = [[4, %" PRId64 ", %" PRId64 ", %"
				 PRId64 "], [4, %" PRId64 ", %" PRId64 ", %" PRId64 "], [4, %" PRId64 ", %" PRId64 ", %"
				 PRId64 "], [], [], [], []]", op_names[ko], id + 1, h, l, hd, h, l, hd, h, l, hd);
			snprintf(mid, sizeof(mid), "%s, seq = %" PRId64 ", op_id = %" PRId64 ", sizes = [[4, %" PRId64
				 ", %" PRId64 ", %" PRId64 "], [4, %" PRId64 ", %" PRId64 ", %" PRId64 "], [4, %" PRId64
				 ", %" PRId64 ", %" PRId64 "], [], [], [], []]", op_names[km], seq, id + 2, h, l, hd, h, l,
				 hd, h, l, hd);
		}
		grow((void **)&s->fwd_seq, &s->fwd_cap, s->nfwd + 1, sizeof(*s->fwd_seq));
		grow((void **)&s->fwd_kind, &s->fwdk_cap, s->nfwd + 1, sizeof(*s->fwd_kind));
		s->fwd_seq[s->nfwd] = seq;
		s->fwd_kind[s->nfwd++] = (uint8_t)km;
	} else if (s->nfwd) {
		int flash = s->fwd_kind[--s->nfwd] == OPK_FLASH;
		int64_t seq = s->fwd_seq[s->nfwd];

		ko = flash ? OPK_EVAL_FLASH : OPK_EVAL_ADDMM;
		km = flash ? OPK_FLASH_BWD : OPK_ADDMM_BWD;
		ki = flash ? OPK_FLASH_BWD_OP : OPK_MM;
		snprintf(outer, sizeof(outer), "%s, op_id = %" PRId64, op_names[ko], id + 1);
		snprintf(mid, sizeof(mid), "%s, seq = %" PRId64 ", op_id = %" PRId64, op_names[km], seq, id + 2);
		if (flash)
			snprintf(inner, sizeof(inner), "%s, op_id = %" PRId64 ", sizes = [[4, %" PRId64 ", %" PRId64 ", %"
				 PRId64 "], [4, %" PRId64 ", %" PRId64 ", %" PRId64 "], [], [], [], []]", op_names[ki],
				 id + 3, h, l, hd, h, l, hd);
		else
			snprintf(inner, sizeof(inner), "%s, op_id = %" PRId64 ", sizes = [[%" PRId64 ", %" PRId64 "], [%"
				 PRId64 ", %" PRId64 "]]", op_names[ki], id + 3, b, n, n, k);
		s->op_pairs++;
	} else {
		ko = OPK_EVAL_ACC;
		km = OPK_ACC;
		ki = OPK_ADD_;
		snprintf(outer, sizeof(outer), "%s, op_id = %" PRId64, op_names[ko], id + 1);
		snprintf(mid, sizeof(mid), "%s, op_id = %" PRId64, op_names[km], id + 2);
		snprintf(inner, sizeof(inner), "%s, op_id = %" PRId64 ", sizes = [[%" PRId64 ", %" PRId64 "], [%" PRId64
			 ", %" PRId64 "], []]", op_names[ki], id + 3, n, k, n, k);
	}
	t0 = s->t;
	t1 = t0 + rr(r, 400, 1500);
	s->t = t1 + rr(r, 300, 1200);
	if (three) {
		t2 = s->t;
		s->t = t2 + rr(r, 300, 1200);
	}
	s->api_tid = tid;
	launch(s, ph);
	s->api_tid = TID_MAIN;
	if (three) {
		e2 = s->t + rr(r, 100, 600);
		s->t = e2;
	}
	e1 = s->t + rr(r, 100, 600);
	e0 = e1 + rr(r, 100, 600);
	s->t = e0 + rr(r, 200, 800);
	emit_op(s, ko, t0, e0, tid, depth, outer, 0);
	emit_op(s, km, t1, e1, tid, depth + 1, mid, !three);
	if (three)
		emit_op(s, ki, t2, e2, tid, depth + 2, inner, 1);
}

/* An asynchronous copy on a stream; returns when the copy ends on the GPU. */
static int64_t do_copy(synth *s, int dev, int lane, int kind, int srck, int dstk, int64_t bytes, int peer,
		       int64_t bytes_per_us)
{
	rng_t *r = &s->r;
	int api = peer ? API_MEMCPY_PEER : API_MEMCPY_ASYNC;
	int64_t corr = ++s->corr, api_start = s->t, api_end = s->t + rr(r, 3000, 9000);
	int64_t start = max64(api_start + rr(r, 2000, 6000), s->lane_free[dev][lane] + rr(r, 500, 1500));
	int64_t end = start + 1500 + rr(r, 0, 500) + bytes * 1000 / bytes_per_us;
	int64_t v[] = {
		start, end, dev, dev + 1, stream_ids[dev][lane], corr, kind, srck, dstk, bytes,
		peer ? 0 : -1, peer ? 1 : -1, 1,
	};

	s->lane_free[dev][lane] = end;
	emit_api(s, api, api_start, api_end, corr);
	batch_push(s, T_MEMCPY, v);
	s->cp_count[kind]++;
	s->cp_bytes[kind] += (uint64_t)bytes;
	s->cp_ns[kind] += (uint64_t)(end - start);
	s->t = api_end + rr(r, 500, 3000);
	return end;
}

static void do_memset(synth *s, int dev, int64_t bytes, int value)
{
	rng_t *r = &s->r;
	int64_t corr = ++s->corr, api_start = s->t, api_end = s->t + rr(r, 2500, 7000);
	int64_t start = max64(api_start + rr(r, 2000, 6000), s->lane_free[dev][LANE_MAIN] + rr(r, 400, 1500));
	int64_t end = start + 1000 + rr(r, 0, 400) + bytes / 2500;
	int64_t v[] = { start, end, dev, dev + 1, stream_ids[dev][LANE_MAIN], corr, bytes, value, 3 };

	s->lane_free[dev][LANE_MAIN] = end;
	emit_api(s, API_MEMSET_ASYNC, api_start, api_end, corr);
	batch_push(s, T_MEMSET, v);
	s->ms_count++;
	s->ms_bytes += (uint64_t)bytes;
	s->ms_ns += (uint64_t)(end - start);
	s->t = api_end + rr(r, 500, 3000);
}

/* A synchronisation: the host blocks until wait_until (0: not at all). lane -1 = whole context. */
static void do_sync(synth *s, int kind, int dev, int lane, int64_t wait_until, int64_t event)
{
	static const int api_of_kind[5] = { 0, API_EVENT_SYNC, API_WAIT_EVENT, API_STREAM_SYNC, API_DEVICE_SYNC };
	rng_t *r = &s->r;
	int64_t corr = ++s->corr, start = s->t;
	int64_t end = max64(start + rr(r, 800, 2500), wait_until ? wait_until + rr(r, 1000, 4000) : 0);
	int64_t v[] = {
		start, end, dev, dev + 1, lane < 0 ? -1 : stream_ids[dev][lane], corr, kind, event, TID_MAIN,
	};

	emit_api(s, api_of_kind[kind], start, end, corr);
	batch_push(s, T_SYNC, v);
	s->sy_count[kind]++;
	s->sy_ns[kind] += (uint64_t)(end - start);
	s->t = end + rr(r, 500, 3000);
}

/* cudaMalloc (op 1) or cudaFree (op 2) of a device block. */
static void do_mem(synth *s, int dev, int op, int64_t addr, int64_t bytes, size_t site)
{
	rng_t *r = &s->r;
	int64_t corr = ++s->corr, start = s->t;
	int64_t end = start + (op == 1 ? rr(r, 5000, 60000) : rr(r, 3000, 20000));
	int64_t v[] = {
		start + (end - start) / 2, dev, dev + 1, -1, corr, op, 3, addr, bytes,
		op == 1 ? 0x7f5e3c2a1000LL + (int64_t)(site * 0x1c0) + 0x40 * rr(r, 0, 15) : 0,
		sid(&s->st, site), TID_MAIN, 0,
	};

	emit_api(s, op == 1 ? API_MALLOC : API_FREE, start, end, corr);
	batch_push(s, T_MEMORY, v);
	if (op == 1) {
		s->allocs++;
		s->dev_mem[dev] += bytes;
	} else {
		s->frees++;
		s->dev_mem[dev] -= bytes;
	}
	s->t = end + rr(r, 500, 3000);
}

/* Device and host metrics every 100 ms up to tlimit. */
static void metrics_upto(synth *s, int64_t tlimit)
{
	rng_t *r = &s->mr;
	int dev;

	for (; s->next_metric <= tlimit; s->next_metric += METRIC_PERIOD_NS) {
		int64_t ts = s->next_metric;

		for (dev = 0; dev < NDEV; dev++) {
			uint64_t row = s->dmet_rows[dev]++;
			int64_t power = rr(r, 180000, 690000);
			int64_t v[] = {
				ts, dev, rr(r, 55, 100), (dev == 1 && row % 25 == 7) ? NULLV : rr(r, 20, 70),
				2 * 1024 * MIB + s->dev_mem[dev] + rr(r, 0, 64) * MIB, 84929347584LL, rr(r, 38, 72), power,
				(dev == 0 && row == 0) ? NULLV : (rr(r, 0, 9) ? 1980 : 1755), s->energy[dev],
			};

			s->energy[dev] += power / 10;
			batch_push(s, T_DMET, v);
		}
		{
			int64_t v[] = {
				ts, ts == 0 ? NULLV : rr(r, 9000, 13500), s->host_rss, 180LL * 1024 * 1024 * 1024 + rr(r, 0, 4096) * MIB,
				540LL * 1024 * 1024 * 1024,
			};

			s->host_rss += rr(r, 0, 8) * MIB;
			batch_push(s, T_HMET, v);
		}
	}
}

/* One drain of PC samples: for each device, the functions launched since the last drain. */
static void pcs_drain(synth *s, int64_t ts)
{
	rng_t *r = &s->pr;
	int dev;
	size_t i;

	for (dev = 0; dev < NDEV; dev++) {
		for (i = 0; i < s->nseen[dev]; i++) {
			const kname *k = &s->names[s->seen[dev][i]];
			const int *w = stall_weight[k->prof];
			int64_t npc = 2 + (int64_t)(k->crc % 4), pc;
			int wsum = 0;
			size_t j;

			for (j = 0; j < NSTALL_BASE; j++)
				wsum += w[j];
			for (pc = 0; pc < npc; pc++) {
				int used[NSTALL_BASE] = { 0 };
				int nreason = (int)rr(r, 1, 4), q;
				int64_t off = 0x80 * (pc + 1) * (int64_t)(1 + k->crc % 7) + 0x10 * (int64_t)((k->crc >> 8) % 8);

				for (q = 0; q < nreason; q++) {
					int pick = (int)rr(r, 0, wsum - 1), twin, ntwin;
					size_t reason = 0;
					int64_t samples;

					while (pick >= w[reason]) {
						pick -= w[reason];
						reason++;
					}
					if (used[reason])
						continue;
					used[reason] = 1;
					samples = q == 0 ? rr(r, 20, 400) : rr(r, 1, 80);
					/* the primary reason sometimes comes with its _not_issued twin */
					ntwin = q == 0 && rr(r, 0, 9) < 3 ? 2 : 1;
					for (twin = 0; twin < ntwin; twin++) {
						size_t ri = 2 * reason + (size_t)twin;
						int64_t n = twin ? samples / 5 + 1 : samples;
						int64_t v[] = {
							ts, dev, sid(&s->st, k->name_str), k->crc, off, s->stall_id[dev][ri], n, 0,
							k->file_str >= 0 ? sid(&s->st, (size_t)k->file_str) : 0,
							k->file_str >= 0 ? k->line0 + pc * 3 + (int64_t)(k->crc % 5) : 0,
						};

						batch_push(s, T_PCS, v);
						s->stall_samples[ri] += (uint64_t)n;
						s->pcs_samples += (uint64_t)n;
					}
				}
			}
		}
		s->nseen[dev] = 0;
	}
	s->drain_no++;
}

static int64_t lanes_done(const synth *s, int dev)
{
	int64_t m = 0;
	int l;

	for (l = 0; l < NLANE; l++)
		m = max64(m, s->lane_free[dev][l]);
	return m;
}

/* One training step with nk kernels. */
static void run_step(synth *s, uint64_t step, uint64_t nk)
{
	rng_t *r = &s->r;
	uint64_t nf = nk * 40 / 100, nb = nk * 45 / 100, no = nk - nf - nb, a0 = nf * 35 / 100, a1 = nf * 65 / 100, i;
	int64_t dw_start, dw_end, dw_id, step_start, step_id, fwd_start = 0, fwd_id = 0, attn_start = 0, attn_id = 0;
	int64_t bwd_start, bwd_id, opt_start, opt_id, copy_end[NDEV], bytes[NDEV][2];
	int dev, slot;
	uint64_t li;

	/* the data loader hands over a batch (start/end range on its own thread) */
	dw_start = s->t - rr(r, 50000, 300000);
	dw_id = ++s->range_id;
	dw_end = s->t + rr(r, 5000, 40000);
	emit_range(s, RG_DATA_WAIT, dw_start, dw_end, dw_id, NULLV);
	s->t = dw_end + rr(r, 1000, 5000);
	step_start = s->t;
	step_id = ++s->range_id;
	s->t += rr(r, 500, 2000);

	/* per-step buffers, and the planted leaks of this step */
	for (dev = 0; dev < NDEV; dev++)
		for (slot = 0; slot < 2; slot++) {
			bytes[dev][slot] = (slot == 0 ? rr(r, 2, 16) : rr(r, 8, 64)) * 2 * MIB;
			do_mem(s, dev, 1, dev_base_addr[dev] + slot * 0x40000000LL, bytes[dev][slot], s->s_alloc_site[slot]);
		}
	for (li = 0; li < s->leaks; li++) {
		if (li * s->steps / s->leaks != step)
			continue;
		do_mem(s, s->leak[li].dev, 1, s->leak[li].addr, s->leak[li].bytes, s->leak[li].site);
	}

	/* inputs: host-to-device copies on the copy stream, compute waits for them */
	for (dev = 0; dev < NDEV; dev++)
		copy_end[dev] = do_copy(s, dev, LANE_COPY, 1, 2, 3, rr(r, 1024, 8192) * 4096, 0, 24000);
	for (dev = 0; dev < NDEV; dev++) {
		s->lane_free[dev][LANE_MAIN] = max64(s->lane_free[dev][LANE_MAIN], copy_end[dev]);
		do_sync(s, 2, dev, LANE_MAIN, 0, ++s->event_id);
	}

	/* forward, with attention inside */
	s->nfwd = 0;
	fwd_start = s->t;
	fwd_id = ++s->range_id;
	s->t += rr(r, 300, 1500);
	for (i = 0; i <= nf; i++) {
		if (i == a0) {
			attn_start = s->t;
			attn_id = ++s->range_id;
			s->t += rr(r, 300, 1500);
		}
		if (i == a1) {
			s->t += rr(r, 300, 1500);
			emit_range(s, RG_ATTENTION, attn_start, s->t, attn_id, 2);
			s->t += rr(r, 300, 1500);
		}
		if (i < nf)
			op_launch(s, i >= a0 && i < a1 ? PH_ATTN : PH_FWD);
	}
	/* loss.item(): a small device-to-host copy and a stream sync */
	{
		int64_t e = do_copy(s, 0, LANE_MAIN, 2, 3, 1, 4, 0, 9000);

		do_sync(s, 3, 0, LANE_MAIN, e, 0);
	}
	emit_range(s, RG_FORWARD, fwd_start, s->t, fwd_id, 1);
	s->t += rr(r, 1000, 5000);

	/* backward, gradients exchanged over NVLink half way */
	bwd_start = s->t;
	bwd_id = ++s->range_id;
	s->t += rr(r, 300, 1500);
	for (i = 0; i < nb; i++) {
		if (i == nb / 2)
			do_copy(s, 0, LANE_COMM, 10, 3, 3, rr(r, 4, 64) * MIB, 1, 150000);
		op_launch(s, PH_BWD);
	}
	if (nb == 0)
		do_copy(s, 0, LANE_COMM, 10, 3, 3, rr(r, 4, 64) * MIB, 1, 150000);
	s->t += rr(r, 300, 1500);
	emit_range(s, RG_BACKWARD, bwd_start, s->t, bwd_id, 1);
	/* wait for the gradient reduction (event recorded on device 0's comm stream) */
	do_sync(s, 1, 0, LANE_COMM, s->lane_free[0][LANE_COMM], ++s->event_id);

	/* optimizer: zero the gradients, update, copy the master weights */
	opt_start = s->t;
	opt_id = ++s->range_id;
	s->t += rr(r, 300, 1500);
	for (dev = 0; dev < NDEV; dev++)
		do_memset(s, dev, rr(r, 1, 256) * MIB, 0);
	for (i = 0; i < no; i++)
		launch(s, PH_OPT);
	for (dev = 0; dev < NDEV; dev++)
		do_copy(s, dev, LANE_MAIN, 8, 3, 3, rr(r, 1, 128) * MIB, 0, 1300000);
	s->t += rr(r, 300, 1500);
	emit_range(s, RG_OPTIMIZER, opt_start, s->t, opt_id, 1);

	/* end of step: synchronize both devices, release the step's buffers */
	for (dev = 0; dev < NDEV; dev++)
		do_sync(s, 4, dev, -1, lanes_done(s, dev), 0);
	for (dev = 0; dev < NDEV; dev++)
		for (slot = 0; slot < 2; slot++)
			do_mem(s, dev, 2, dev_base_addr[dev] + slot * 0x40000000LL, bytes[dev][slot], s->s_alloc_site[slot]);
	s->t += rr(r, 500, 2000);
	emit_range(s, RG_STEP, step_start, s->t, step_id, 0);
	s->t += rr(r, 10000, 100000);
}

/* ------------------------------------------------------------------------------------------------ */

static void write_header(synth *s, int64_t origin)
{
	obuf *o = &s->out;
	char num[32];

	ob_str(o, "{\"type\":\"header\",\"v\":2,\"session\":");
	ob_jstr(o, s->session);
	ob_str(o, ",\"collector\":\"" SYNTH_NAME " " SYNTH_VERSION "\",\"program\":\"train.py\",\"args\":[\"--steps\",\"");
	ob_u64(o, s->steps);
	ob_str(o, "\",\"--batch-size\",\"32\",\"--amp\"],\"pid\":");
	ob_u64(o, FAKE_PID);
	ob_str(o, ",\"ppid\":");
	ob_u64(o, FAKE_PPID);
	ob_str(o, ",\"hostname\":\"synth-host\",\"engine\":\"synthetic\",\"options\":{\"kernels\":");
	ob_u64(o, s->kernels);
	ob_str(o, ",\"seed\":");
	ob_u64(o, s->seed);
	ob_str(o, ",\"leaks\":");
	ob_u64(o, s->leaks);
	ob_str(o, ",\"drops\":");
	ob_u64(o, s->drops);
	ob_str(o, ",\"batch\":");
	ob_u64(o, s->batch_rows);
	ob_str(o, ",\"steps\":");
	ob_u64(o, s->steps);
	ob_str(o, "},\"origin_ns\":\"");
	snprintf(num, sizeof(num), "%" PRId64, origin);
	ob_str(o, num);
	ob_str(o, "\",\"clock\":\"realtime\"}");
	ob_endline(o);
}

static void write_devices(synth *s)
{
	int dev;
	size_t i;
	uint64_t h = s->seed;

	s->texts[0] = "NVIDIA H100 80GB HBM3";
	for (dev = 0; dev < NDEV; dev++) {
		uint64_t a = splitmix64(&h), b = splitmix64(&h);

		snprintf(s->uuid[dev], sizeof(s->uuid[dev]), "GPU-%08" PRIx32 "-%04" PRIx32 "-%04" PRIx32 "-%04" PRIx32
			 "-%012" PRIx64, (uint32_t)a, (uint32_t)(a >> 32) & 0xffff, (uint32_t)(a >> 48),
			 (uint32_t)b & 0xffff, b >> 16);
		s->texts[1 + dev] = s->uuid[dev];
	}
	for (dev = 0; dev < NDEV; dev++) {
		int64_t v[] = {
			dev, 0, 1 + dev, 9, 0, 132, 84929347584LL, 1980000, 3352320000LL, 2048, 65536, 233472,
		};

		batch_push(s, T_DEVICE, v);
	}
	batch_flush(s, &s->b[T_DEVICE]);
	/* each device's stall-reason table; device 1 numbers them differently */
	for (dev = 0; dev < NDEV; dev++)
		for (i = 0; i < NSTALL; i++) {
			int64_t v[] = { dev, s->stall_id[dev][i], sid(&s->st, s->s_stall[i]) };

			batch_push(s, T_STALL, v);
		}
	batch_flush(s, &s->b[T_STALL]);
}

static void setup_strings(synth *s)
{
	rng_t r;
	size_t i, j;
	char buf[160];

	for (i = 0; i < NAPI; i++)
		s->s_api[i] = st_add(&s->st, api_table[i].name);
	for (i = 0; i < NRANGE; i++)
		s->s_range[i] = st_add(&s->st, range_names[i]);
	for (i = 0; i < NMARK; i++)
		s->s_marker[i] = st_add(&s->st, marker_names[i]);
	s->s_dom_loader = st_add(&s->st, "dataloader");
	for (i = 0; i < 2; i++)
		s->s_alloc_site[i] = st_add(&s->st, alloc_sites[i]);
	for (i = 0; i < NSTALL_BASE; i++) {
		snprintf(buf, sizeof(buf), "smsp__pcsamp_warps_issue_stalled_%s", stall_base[i]);
		s->s_stall[2 * i] = st_add(&s->st, buf);
		snprintf(buf, sizeof(buf), "smsp__pcsamp_warps_issue_stalled_%s_not_issued", stall_base[i]);
		s->s_stall[2 * i + 1] = st_add(&s->st, buf);
	}
	/* device 0 numbers the reasons in table order, device 1 in a shuffled order */
	rng_seed(&r, s->seed, 7);
	for (i = 0; i < NSTALL; i++)
		s->stall_id[0][i] = s->stall_id[1][i] = (int64_t)i;
	for (i = NSTALL - 1; i > 0; i--) {
		int64_t t;

		j = (size_t)rr(&r, 0, (int64_t)i);
		t = s->stall_id[1][i];
		s->stall_id[1][i] = s->stall_id[1][j];
		s->stall_id[1][j] = t;
	}
	for (i = 0; i < NSTALL && s->stall_id[1][i] == (int64_t)i; i++)
		;
	if (i == NSTALL)	/* never the same order as device 0 */
		for (i = 0; i < NSTALL; i++)
			s->stall_id[1][i] = (int64_t)(NSTALL - 1 - i);
	/* leaks: distinct sites, addresses never reused, known sizes */
	s->s_leak = xcalloc(s->leaks ? s->leaks : 1, sizeof(size_t));
	s->leak = xcalloc(s->leaks ? s->leaks : 1, sizeof(*s->leak));
	for (i = 0; i < s->leaks; i++) {
		if (i < sizeof(leak_sites) / sizeof(leak_sites[0]))
			snprintf(buf, sizeof(buf), "%s", leak_sites[i]);
		else
			snprintf(buf, sizeof(buf), "leaky_site_%zu", i);
		s->leak[i].site = st_add(&s->st, buf);
		s->leak[i].dev = (int)(i % NDEV);
		s->leak[i].addr = dev_base_addr[i % NDEV] + 0x1000000000LL + (int64_t)i * 0x40000000LL;
		s->leak[i].bytes = (int64_t)(i % 7 + 1) * MIB + rr(&s->lr, 0, 255) * 4096;
	}
}

/* ------------------------------------------------------------------------------------------------ */
/* ground truth */

/* The k-th smallest of a[0..n) (0-based); reorders a so that a[k+1..n) are all >= the result. */
static uint32_t select_kth(uint32_t *a, size_t n, size_t k)
{
	int64_t lo = 0, hi = (int64_t)n - 1, kk = (int64_t)k;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		uint32_t x = a[lo], y = a[mid], z = a[hi], pivot, t;

		pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		}
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			return a[kk];
	}
	return a[kk];
}

typedef struct {
	uint64_t w[4];
} u256;

static u256 mul_u128_u64(u128 a, uint64_t b)
{
	u128 lo = (u128)(uint64_t)a * b, hi = (u128)(uint64_t)(a >> 64) * b, mid, top;
	u256 r;

	r.w[0] = (uint64_t)lo;
	mid = (lo >> 64) + (uint64_t)hi;
	r.w[1] = (uint64_t)mid;
	top = (mid >> 64) + (hi >> 64);
	r.w[2] = (uint64_t)top;
	r.w[3] = (uint64_t)(top >> 64);
	return r;
}

/* v <<= sh; returns -1 when bits would be lost. */
static int u256_shl(u256 *v, unsigned sh)
{
	u256 r = { { 0, 0, 0, 0 } };
	unsigned ws = sh / 64, bs = sh % 64;
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t lo = bs ? v->w[i] << bs : v->w[i], hi = bs ? v->w[i] >> (64 - bs) : 0;
		unsigned d = (unsigned)i + ws;

		if (d < 4)
			r.w[d] |= lo;
		else if (lo)
			return -1;
		if (d + 1 < 4)
			r.w[d + 1] |= hi;
		else if (hi)
			return -1;
	}
	*v = r;
	return 0;
}

static int u256_cmp(const u256 *a, const u256 *b)
{
	int i;

	for (i = 3; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

/* Sign of (A * 2^F)^2 - num/den, exactly. */
static int cmp_mid_sq(uint64_t A, int F, u128 num, uint64_t den)
{
	u256 L = mul_u128_u64((u128)A * A, den), R = mul_u128_u64(num, 1);

	if (F >= 0) {
		if (u256_shl(&L, (unsigned)(2 * F)) < 0)
			return 1;
	} else if (u256_shl(&R, (unsigned)(-2 * F)) < 0) {
		return -1;
	}
	return u256_cmp(&L, &R);
}

/* sqrt(num/den) correctly rounded to a double (the value Python's statistics.stdev returns). */
static double sqrt_frac(u128 num, uint64_t den)
{
	double r;
	int it;

	if (!num)
		return 0.0;
	r = (double)sqrtl((long double)num / (long double)den);
	for (it = 0; it < 16; it++) {
		int e, c;
		double f = frexp(r, &e);
		uint64_t M = (uint64_t)ldexp(f, 53), A;
		int E = e - 53, F;

		c = cmp_mid_sq(2 * M + 1, E - 1, num, den);
		if (c < 0 || (c == 0 && (M & 1))) {
			r = nextafter(r, INFINITY);
			continue;
		}
		if (M == (1ULL << 52)) {
			A = 4 * M - 1;
			F = E - 2;
		} else {
			A = 2 * M - 1;
			F = E - 1;
		}
		c = cmp_mid_sq(A, F, num, den);
		if (c > 0 || (c == 0 && (M & 1))) {
			r = nextafter(r, 0.0);
			continue;
		}
		break;
	}
	return r;
}

static int cmp_lane_start(const void *pa, const void *pb)
{
	const int64_t *a = pa, *b = pb;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Union length of all kernel intervals of one device: lanes are merged in start order. */
static uint64_t busy_union(synth *s, int dev)
{
	size_t pos[NKLANE] = { 0 };
	int l;
	uint64_t busy = 0;
	int64_t cs = 0, ce = 0;
	int open = 0;

	for (l = 0; l < NKLANE; l++) {
		lanebuf *lb = &s->lanes[dev][l];
		size_t i;

		for (i = 1; i < lb->n; i++)
			if (lb->iv[2 * i] < lb->iv[2 * i - 2])
				break;
		if (i < lb->n)	/* not in start order (cannot happen with back-to-back lanes): sort */
			qsort(lb->iv, lb->n, 2 * sizeof(int64_t), cmp_lane_start);
	}
	for (;;) {
		int best = -1;
		int64_t st, en;

		for (l = 0; l < NKLANE; l++) {
			lanebuf *lb = &s->lanes[dev][l];

			if (pos[l] < lb->n && (best < 0 || lb->iv[2 * pos[l]] < s->lanes[dev][best].iv[2 * pos[best]]))
				best = l;
		}
		if (best < 0)
			break;
		st = s->lanes[dev][best].iv[2 * pos[best]];
		en = s->lanes[dev][best].iv[2 * pos[best] + 1];
		pos[best]++;
		if (open && st <= ce) {
			if (en > ce)
				ce = en;
		} else {
			if (open)
				busy += (uint64_t)(ce - cs);
			cs = st;
			ce = en;
			open = 1;
		}
	}
	if (open)
		busy += (uint64_t)(ce - cs);
	return busy;
}

static const synth *sort_ctx;

static int cmp_by_total(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const nstat *x = &sort_ctx->ns[a], *y = &sort_ctx->ns[b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(sort_ctx->st.v[sort_ctx->names[a].name_str], sort_ctx->st.v[sort_ctx->names[b].name_str]);
}

static int cmp_leak(const void *pa, const void *pb)
{
	const struct leak *a = pa, *b = pb;

	if (a->dev != b->dev)
		return a->dev - b->dev;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

static void ob_key(obuf *o, const char *key)
{
	ob_jstr(o, key);
	ob_mem(o, ":", 1);
}

static void ob_devkey(obuf *o, int dev)
{
	char k[8];

	snprintf(k, sizeof(k), "%d", dev);
	ob_key(o, k);
}

/* Write expected.json; returns -1 with errno set on failure. */
/*
 * The answers of --ops: ops in all, the launches made inside ops and outside any, the backward ops whose
 * seq is a forward op's (on another thread), and per op name (in op_names' order, those written) its
 * count, summed duration, kernels inside it (and their time) and kernels whose innermost op it is.
 */
static void write_ops(synth *s, obuf *o, uint64_t kcount)
{
	uint64_t total = 0, inside = 0;
	int k, first = 1;

	for (k = 0; k < NOPK; k++) {
		total += s->opst[k].count;
		inside += s->opst[k].self_kernels;
	}
	ob_str(o, ",\n \"ops\":{\"count\":");
	ob_u64(o, total);
	ob_str(o, ",\"launches_in_ops\":");
	ob_u64(o, inside);
	ob_str(o, ",\"launches_outside_ops\":");
	ob_u64(o, kcount - inside);
	ob_str(o, ",\"forward_backward_pairs\":");
	ob_u64(o, s->op_pairs);
	ob_str(o, ",\"forward_thread\":");
	ob_u64(o, TID_MAIN);
	ob_str(o, ",\"backward_thread\":");
	ob_u64(o, TID_AUTOGRAD);
	ob_str(o, ",\"by_name\":[");
	for (k = 0; k < NOPK; k++) {
		const struct opstat *st = &s->opst[k];

		if (!st->count)
			continue;
		if (!first)
			ob_mem(o, ",", 1);
		first = 0;
		ob_str(o, "\n  {\"name\":");
		ob_jstr(o, op_names[k]);
		ob_str(o, ",\"count\":");
		ob_u64(o, st->count);
		ob_str(o, ",\"total_ns\":");
		ob_u64(o, st->total_ns);
		ob_str(o, ",\"kernels\":");
		ob_u64(o, st->kernels);
		ob_str(o, ",\"kernel_ns\":");
		ob_u64(o, st->kernel_ns);
		ob_str(o, ",\"self_kernels\":");
		ob_u64(o, st->self_kernels);
		ob_str(o, ",\"self_kernel_ns\":");
		ob_u64(o, st->self_kernel_ns);
		ob_str(o, "}");
	}
	ob_str(o, "]}");
}

static int write_expected(synth *s, int64_t origin)
{
	obuf o = { NULL, 0, 0, -1, 0, 0 };
	size_t *idx = xcalloc(s->nnames, sizeof(size_t)), n = 0, i;
	uint64_t kcount = 0, ktotal = 0, leak_bytes = 0, api_total = 0;
	char num[64];
	int dev, first, t, rc;

	o.fd = open(s->expected_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o.fd < 0) {
		free(idx);
		return -1;
	}
	for (dev = 0; dev < NDEV; dev++) {
		kcount += s->k_count[dev];
		ktotal += s->k_total[dev];
	}
	ob_str(&o, "{\"session\":");
	ob_jstr(&o, s->session);
	ob_str(&o, ",\"file\":\"");
	ob_u64(&o, FAKE_PID);
	ob_str(&o, ".ndjson\",\"seed\":");
	ob_u64(&o, s->seed);
	snprintf(num, sizeof(num), "%" PRId64, origin);
	ob_str(&o, ",\"origin_ns\":\"");
	ob_str(&o, num);
	ob_str(&o, "\",\"steps\":");
	ob_u64(&o, s->steps);
	ob_str(&o, ",\"end_ts\":");
	ob_i64(&o, s->end_ts);

	/* kernels */
	ob_str(&o, ",\n \"kernels\":{\"count\":");
	ob_u64(&o, kcount);
	ob_str(&o, ",\"total_ns\":");
	ob_u64(&o, ktotal);
	ob_str(&o, ",\"busy_ns\":{");
	for (dev = 0; dev < NDEV; dev++) {
		if (dev)
			ob_mem(&o, ",", 1);
		ob_devkey(&o, dev);
		ob_u64(&o, busy_union(s, dev));
	}
	ob_str(&o, "},\"span_ns\":{");
	for (dev = 0; dev < NDEV; dev++) {
		if (dev)
			ob_mem(&o, ",", 1);
		ob_devkey(&o, dev);
		ob_i64(&o, s->k_count[dev] ? s->k_last[dev] - s->k_first[dev] : 0);
	}
	ob_str(&o, "},\"by_device\":{");
	for (dev = 0; dev < NDEV; dev++) {
		if (dev)
			ob_mem(&o, ",", 1);
		ob_devkey(&o, dev);
		ob_str(&o, "{\"count\":");
		ob_u64(&o, s->k_count[dev]);
		ob_str(&o, ",\"total_ns\":");
		ob_u64(&o, s->k_total[dev]);
		ob_str(&o, "}");
	}
	for (i = 0; i < s->nnames; i++)
		if (s->ns[i].calls)
			idx[n++] = i;
	sort_ctx = s;
	qsort(idx, n, sizeof(size_t), cmp_by_total);
	ob_str(&o, "},\"distinct_names\":");
	ob_u64(&o, n);
	ob_str(&o, ",\"by_name\":[");
	for (i = 0; i < n; i++) {
		nstat *st = &s->ns[idx[i]];
		const kname *k = &s->names[idx[i]];
		size_t m = (st->nd - 1) / 2, j;
		uint64_t lo = select_kth(st->d, st->nd, m), hi = lo, sum;
		double sd = 0.0;

		if (st->nd % 2 == 0) {
			hi = UINT64_MAX;
			for (j = m + 1; j < st->nd; j++)
				if (st->d[j] < hi)
					hi = st->d[j];
		}
		if (st->calls > 1) {
			u128 nn = st->calls, num2 = nn * st->sumsq - (u128)st->total * st->total;

			sd = sqrt_frac(num2, st->calls * (st->calls - 1));
		}
		ob_str(&o, i ? ",\n  {\"name\":" : "\n  {\"name\":");
		ob_jstr(&o, s->st.v[k->name_str]);
		ob_str(&o, ",\"calls\":");
		ob_u64(&o, st->calls);
		ob_str(&o, ",\"total_ns\":");
		ob_u64(&o, st->total);
		ob_str(&o, ",\"min_ns\":");
		ob_u64(&o, st->min);
		ob_str(&o, ",\"max_ns\":");
		ob_u64(&o, st->max);
		ob_str(&o, ",\"med_ns\":");
		sum = lo + hi;
		ob_u64(&o, sum / 2);
		if (sum % 2)
			ob_str(&o, ".5");
		ob_str(&o, ",\"stddev_ns\":");
		snprintf(num, sizeof(num), "%.17g", sd);
		ob_str(&o, num);
		ob_str(&o, "}");
	}
	ob_str(&o, "]},\n \"memcpy\":{\"by_kind\":{");
	for (first = 1, i = 0; i < 11; i++) {
		if (!s->cp_count[i])
			continue;
		if (!first)
			ob_mem(&o, ",", 1);
		first = 0;
		snprintf(num, sizeof(num), "%zu", i);
		ob_key(&o, num);
		ob_str(&o, "{\"count\":");
		ob_u64(&o, s->cp_count[i]);
		ob_str(&o, ",\"bytes\":");
		ob_u64(&o, s->cp_bytes[i]);
		ob_str(&o, ",\"total_ns\":");
		ob_u64(&o, s->cp_ns[i]);
		ob_str(&o, "}");
	}
	ob_str(&o, "}},\n \"memset\":{\"count\":");
	ob_u64(&o, s->ms_count);
	ob_str(&o, ",\"bytes\":");
	ob_u64(&o, s->ms_bytes);
	ob_str(&o, ",\"total_ns\":");
	ob_u64(&o, s->ms_ns);
	ob_str(&o, "},\n \"sync\":{\"by_kind\":{");
	for (first = 1, i = 1; i <= 4; i++) {
		if (!s->sy_count[i])
			continue;
		if (!first)
			ob_mem(&o, ",", 1);
		first = 0;
		snprintf(num, sizeof(num), "%zu", i);
		ob_key(&o, num);
		ob_str(&o, "{\"count\":");
		ob_u64(&o, s->sy_count[i]);
		ob_str(&o, ",\"total_ns\":");
		ob_u64(&o, s->sy_ns[i]);
		ob_str(&o, "}");
	}
	for (i = 0; i < NAPI; i++)
		api_total += s->api_count[i];
	ob_str(&o, "}},\n \"api\":{\"count\":");
	ob_u64(&o, api_total);
	ob_str(&o, ",\"by_name\":{");
	for (first = 1, i = 0; i < NAPI; i++) {
		if (!s->api_count[i])
			continue;
		if (!first)
			ob_mem(&o, ",", 1);
		first = 0;
		ob_key(&o, api_table[i].name);
		ob_u64(&o, s->api_count[i]);
	}
	ob_str(&o, "}},\n \"ranges\":{\"by_name\":{");
	for (first = 1, i = 0; i < NRANGE; i++) {
		if (!s->rg_count[i])
			continue;
		if (!first)
			ob_mem(&o, ",", 1);
		first = 0;
		ob_key(&o, range_names[i]);
		ob_str(&o, "{\"count\":");
		ob_u64(&o, s->rg_count[i]);
		ob_str(&o, ",\"total_ns\":");
		ob_u64(&o, s->rg_ns[i]);
		ob_str(&o, "}");
	}
	ob_str(&o, "}},\n \"markers\":{\"count\":");
	{
		uint64_t mc = 0;

		for (i = 0; i < NMARK; i++)
			mc += s->mk_count[i];
		ob_u64(&o, mc);
	}
	ob_str(&o, ",\"by_name\":{");
	for (first = 1, i = 0; i < NMARK; i++) {
		if (!s->mk_count[i])
			continue;
		if (!first)
			ob_mem(&o, ",", 1);
		first = 0;
		ob_key(&o, marker_names[i]);
		ob_u64(&o, s->mk_count[i]);
	}
	ob_str(&o, "}},\n \"memory\":{\"allocs\":");
	ob_u64(&o, s->allocs);
	ob_str(&o, ",\"frees\":");
	ob_u64(&o, s->frees);
	ob_str(&o, ",\"leaks\":[");
	{
		struct leak *sorted = xcalloc(s->leaks ? s->leaks : 1, sizeof(*sorted));

		memcpy(sorted, s->leak, s->leaks * sizeof(*sorted));
		qsort(sorted, s->leaks, sizeof(*sorted), cmp_leak);
		for (i = 0; i < s->leaks; i++) {
			ob_str(&o, i ? ",{\"device\":" : "{\"device\":");
			ob_i64(&o, sorted[i].dev);
			ob_str(&o, ",\"address\":");
			ob_i64(&o, sorted[i].addr);
			ob_str(&o, ",\"bytes\":");
			ob_i64(&o, sorted[i].bytes);
			ob_str(&o, ",\"site\":");
			ob_jstr(&o, s->st.v[sorted[i].site]);
			ob_str(&o, "}");
			leak_bytes += (uint64_t)sorted[i].bytes;
		}
		free(sorted);
	}
	ob_str(&o, "],\"leak_bytes\":");
	ob_u64(&o, leak_bytes);
	ob_str(&o, "},\n \"stalls\":{");
	for (first = 1, i = 0; i < NSTALL; i++) {
		if (!s->stall_samples[i])
			continue;
		if (!first)
			ob_mem(&o, ",", 1);
		first = 0;
		ob_key(&o, s->st.v[s->s_stall[i]]);
		ob_u64(&o, s->stall_samples[i]);
	}
	ob_str(&o, "},\n \"pc_samples\":{\"rows\":");
	ob_u64(&o, s->b[T_PCS].total);
	ob_str(&o, ",\"samples\":");
	ob_u64(&o, s->pcs_samples);
	ob_str(&o, "},\n \"devices\":");
	ob_u64(&o, NDEV);
	ob_str(&o, ",\"device_metrics\":");
	ob_u64(&o, s->b[T_DMET].total);
	ob_str(&o, ",\"host_metrics\":");
	ob_u64(&o, s->b[T_HMET].total);
	ob_str(&o, ",\"overheads\":{\"by_kind\":{");
	for (first = 1, i = 0; i < NOVH; i++) {
		if (!s->ov_count[i])
			continue;
		if (!first)
			ob_mem(&o, ",", 1);
		first = 0;
		snprintf(num, sizeof(num), "%zu", i << 16);
		ob_key(&o, num);
		ob_str(&o, "{\"count\":");
		ob_u64(&o, s->ov_count[i]);
		ob_str(&o, ",\"untimed\":");
		ob_u64(&o, s->ov_untimed[i]);
		ob_str(&o, ",\"total_ns\":");
		ob_u64(&o, s->ov_ns[i]);
		ob_str(&o, "}");
	}
	ob_str(&o, "}},\n \"drops\":{");
	if (s->drops) {
		ob_str(&o, "\"cupti\":");
		ob_u64(&o, s->drops);
	}
	ob_str(&o, "}");
	if (s->ops)
		write_ops(s, &o, kcount);
	ob_str(&o, ",\n \"records\":{");
	for (first = 1, t = 0; t < NTYPES; t++) {
		if (!s->b[t].total)
			continue;
		if (!first)
			ob_mem(&o, ",", 1);
		first = 0;
		ob_key(&o, s->b[t].type);
		ob_u64(&o, s->b[t].total);
	}
	ob_str(&o, "}}\n");
	ob_flush(&o);
	free(o.p);
	free(idx);
	rc = o.err ? -1 : 0;
	if (close(o.fd) < 0 && !rc)
		rc = -1;
	if (o.err)
		errno = o.err;
	return rc;
}

/* ------------------------------------------------------------------------------------------------ */

/* Generate the whole session into s->out. */
static void generate(synth *s, int64_t origin)
{
	uint64_t step;
	uint64_t mark_every, drain_every;
	int dev, t, first;
	obuf *o = &s->out;

	write_header(s, origin);
	write_devices(s);
	s->t = 1500000 + rr(&s->r, 0, 500000);
	s->host_rss = 3LL * 1024 * MIB + rr(&s->mr, 0, 512) * MIB;
	for (dev = 0; dev < NDEV; dev++)
		s->energy[dev] = 900000000LL + rr(&s->mr, 0, 90000000);
	metrics_upto(s, s->t);
	/* CUPTI sets up on each context; one of its buffer requests it could not time */
	emit_overhead(s, OVH_BUFFER_REQUEST, OBJ_PROCESS, NULLV, 0, -1, 0, -1, 0);
	for (dev = 0; dev < NDEV; dev++)
		emit_overhead(s, OVH_RESOURCE, OBJ_CONTEXT, s->t, rr(&s->ovr, 20000, 200000), -1, dev, -1, 0);
	emit_marker(s, MK_TRAIN_START, s->t);
	s->t += rr(&s->r, 2000, 20000);
	mark_every = s->steps >= 4 ? s->steps / 4 : 1;
	drain_every = s->steps >= 20 ? s->steps / 20 : 1;
	for (step = 0; step < s->steps; step++) {
		uint64_t nk = s->kernels / s->steps + (step < s->kernels % s->steps ? 1 : 0);

		run_step(s, step, nk);
		if ((step + 1) % mark_every == 0)
			emit_marker(s, MK_LOG_METRICS, s->t - rr(&s->r, 1000, 8000));
		metrics_upto(s, s->t);
		if ((step + 1) % drain_every == 0 || step + 1 == s->steps)
			pcs_drain(s, s->t);
		if (s->drops && step == s->steps / 2) {
			flush_all(s);
			ob_str(o, "{\"type\":\"drops\",\"v\":2,\"ts\":");
			ob_i64(o, s->t);
			ob_str(o, ",\"source\":\"cupti\",\"what\":\"records\",\"count\":");
			ob_u64(o, s->drops);
			ob_str(o, "}");
			ob_endline(o);
		}
		if ((step + 1) % FLUSH_EVERY_STEPS == 0) {
			flush_all(s);
			emit_overhead(s, OVH_BUFFER_FLUSH, OBJ_THREAD, s->t, rr(&s->ovr, 20000, 400000), TID_CUPTI, 0, -1,
				      0);
		}
	}
	emit_marker(s, MK_TRAIN_END, s->t);
	/* the last flush, at exit (it ends well before the end record) */
	emit_overhead(s, OVH_BUFFER_FLUSH, OBJ_THREAD, s->t, rr(&s->ovr, 20000, 400000), TID_CUPTI, 0, -1, 0);
	s->end_ts = s->t;
	for (dev = 0; dev < NDEV; dev++)
		s->end_ts = max64(s->end_ts, lanes_done(s, dev));
	s->end_ts += 1000000;
	metrics_upto(s, s->end_ts);
	flush_all(s);
	ob_str(o, "{\"type\":\"end\",\"v\":2,\"ts\":");
	ob_i64(o, s->end_ts);
	ob_str(o, ",\"totals\":{");
	for (first = 1, t = 0; t < NTYPES; t++) {
		if (!s->b[t].total)
			continue;
		if (!first)
			ob_mem(o, ",", 1);
		first = 0;
		ob_key(o, s->b[t].type);
		ob_u64(o, s->b[t].total);
	}
	ob_str(o, "},\"batches\":{");
	for (first = 1, t = 0; t < NTYPES; t++) {
		if (!s->b[t].seq)
			continue;
		if (!first)
			ob_mem(o, ",", 1);
		first = 0;
		ob_key(o, s->b[t].type);
		ob_u64(o, s->b[t].seq);
	}
	ob_str(o, "}}");
	ob_endline(o);
}

/* mkdir -p; returns -1 with errno set on failure. */
static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path), i;

	if (n == 0 || n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] == '/' || buf[i] == '\0') {
			char c = buf[i];

			buf[i] = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			buf[i] = c;
		}
	}
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: " SYNTH_NAME " --kernels N --seed S -o DIR [options]\n"
	      "\n"
	      "Writes a deterministic synthetic training session in gpuprof wire format v2 to DIR/4242.ndjson\n"
	      "and the exact answers it planted to DIR/expected.json.\n"
	      "\n"
	      "  --kernels N        kernels to generate (0 ... 2000000000)\n"
	      "  --seed S           random seed (unsigned 64-bit); same arguments give identical bytes\n"
	      "  -o, --output DIR   session directory (created like mkdir -p)\n"
	      "  --leaks K          allocations never freed (default 3)\n"
	      "  --drops N          write one drops line (source cupti) with count N (default 0: none)\n"
	      "  --batch ROWS       rows per batch line at most (default 4096, max 1000000)\n"
	      "  --session ID       session id (default synth-SEED)\n"
	      "  --expected FILE    where to write the answers (default DIR/expected.json)\n"
	      "  --no-expected      do not compute or write the answers (faster, leaner)\n"
	      "  --ops              PyTorch ops around the forward and backward launches, as the NVTX ranges\n"
	      "                     torch.autograd.profiler.emit_nvtx(record_shapes=True) writes (backward on\n"
	      "                     autograd's thread), and their answers (expected.json \"ops\")\n"
	      "  --help, --version\n"
	      "\n"
	      "   or: " SYNTH_NAME " --ranks N --seed S -o DIR [--steps K] [--gpus-per-host G]\n"
	      "\n"
	      "Writes one data-parallel job of N ranks as PyTorch profiler (Kineto) traces, DIR/rank<R>.json (rank R\n"
	      "is device R % G of its host), with NCCL collectives, a planted straggler (rank S % N: slower\n"
	      "compute) and a planted late rank (the next: its host starts each step late), and the answers of\n"
	      "`ranks` and `collectives` to DIR/expected.json.\n"
	      "\n"
	      "  --ranks N          ranks, 1 ... 4096\n"
	      "  --steps K          training steps (default 8)\n"
	      "  --gpus-per-host G  ranks per host (default 8)\n", f);
}

/* Parse an unsigned decimal no larger than max; returns -1 when it is not one. */
static int parse_u64(const char *arg, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!arg || !*arg || *arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, SYNTH_NAME ": error: %s%s%s%s\n", what, arg ? " \"" : "", arg ? arg : "", arg ? "\"" : "");
	fputs("try '" SYNTH_NAME " --help'\n", stderr);
	return EXIT_USAGE;
}

static void synth_release(synth *s)
{
	size_t i;
	int t, c, dev, l;

	for (i = 0; i < s->st.n; i++)
		free(s->st.v[i]);
	free(s->st.v);
	free(s->st.id);
	free(s->st.pending);
	for (i = 0; i < s->st.ndyn; i++)
		free(s->st.dyn[i]);
	free(s->st.dyn);
	free(s->st.dyn_id);
	free(s->fwd_seq);
	free(s->fwd_kind);
	for (t = 0; t < NTYPES; t++)
		for (c = 0; c < s->b[t].ncols; c++)
			free(s->b[t].col[c]);
	if (s->ns)
		for (i = 0; i < s->nnames; i++)
			free(s->ns[i].d);
	free(s->ns);
	for (dev = 0; dev < NDEV; dev++) {
		for (l = 0; l < NKLANE; l++)
			free(s->lanes[dev][l].iv);
		free(s->seen_mark[dev]);
		free(s->loaded[dev]);
	}
	for (i = 0; i < NPHASE; i++) {
		free(s->ph_idx[i]);
		free(s->ph_cdf[i]);
	}
	free(s->names);
	free(s->s_leak);
	free(s->leak);
	free(s->out.p);
}

#include "ranks.c"

int main(int argc, char **argv)
{
	static synth s;
	char path[PATH_MAX], exp_path[PATH_MAX], sess[64];
	int have_kernels = 0, have_seed = 0, i, t, rc = EXIT_OK, dev;
	uint64_t v, ranks = 0, steps = 8, per_host = 8;
	int64_t origin;
	uint64_t h;

	s.leaks = 3;
	s.batch_rows = 4096;
	s.want_expected = 1;
	s.api_tid = TID_MAIN;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--version")) {
			puts(SYNTH_NAME " " SYNTH_VERSION);
			return EXIT_OK;
		} else if (!strcmp(a, "--no-expected")) {
			s.want_expected = 0;
			continue;
		} else if (!strcmp(a, "--ops")) {
			s.ops = 1;
			continue;
		}
		if (!val)
			return usage_error("missing value after", a);
		i++;
		if (!strcmp(a, "--kernels")) {
			if (parse_u64(val, MAX_KERNELS, &s.kernels) < 0)
				return usage_error("--kernels wants 0 ... 2000000000, not", val);
			have_kernels = 1;
		} else if (!strcmp(a, "--seed")) {
			if (parse_u64(val, UINT64_MAX, &s.seed) < 0)
				return usage_error("--seed wants an unsigned 64-bit integer, not", val);
			have_seed = 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			s.dir = val;
		} else if (!strcmp(a, "--leaks")) {
			if (parse_u64(val, MAX_LEAKS, &s.leaks) < 0)
				return usage_error("--leaks wants 0 ... 100000, not", val);
		} else if (!strcmp(a, "--drops")) {
			if (parse_u64(val, INT64_MAX, &s.drops) < 0)
				return usage_error("--drops wants a count, not", val);
		} else if (!strcmp(a, "--batch")) {
			if (parse_u64(val, MAX_BATCH, &v) < 0 || v == 0)
				return usage_error("--batch wants 1 ... 1000000, not", val);
			s.batch_rows = (size_t)v;
		} else if (!strcmp(a, "--session")) {
			if (!*val || strlen(val) > 128)
				return usage_error("--session wants 1 to 128 characters, not", val);
			s.session = val;
		} else if (!strcmp(a, "--expected")) {
			s.expected_path = val;
		} else if (!strcmp(a, "--ranks")) {
			if (parse_u64(val, RK_MAX_RANKS, &ranks) < 0 || !ranks)
				return usage_error("--ranks wants 1 ... 4096, not", val);
		} else if (!strcmp(a, "--steps")) {
			if (parse_u64(val, 100000, &steps) < 0 || !steps)
				return usage_error("--steps wants 1 ... 100000, not", val);
		} else if (!strcmp(a, "--gpus-per-host")) {
			if (parse_u64(val, 64, &per_host) < 0 || !per_host)
				return usage_error("--gpus-per-host wants 1 ... 64, not", val);
		} else {
			return usage_error("unknown option", a);
		}
	}
	if (ranks) {
		if (!have_seed || !s.dir)
			return usage_error("--ranks, --seed and -o are required", NULL);
		if (!s.expected_path) {
			if ((size_t)snprintf(exp_path, sizeof(exp_path), "%s/expected.json", s.dir) >= sizeof(exp_path))
				return usage_error("directory name too long", s.dir);
			s.expected_path = exp_path;
		}
		return synth_ranks(ranks, s.seed, s.dir, steps, per_host, s.expected_path, s.want_expected);
	}
	if (!have_kernels || !have_seed || !s.dir)
		return usage_error("--kernels, --seed and -o are required", NULL);
	if (!s.session) {
		snprintf(sess, sizeof(sess), "synth-%" PRIu64, s.seed);
		s.session = sess;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%d.ndjson", s.dir, FAKE_PID) >= sizeof(path))
		return usage_error("directory name too long", s.dir);
	if (!s.expected_path) {
		if ((size_t)snprintf(exp_path, sizeof(exp_path), "%s/expected.json", s.dir) >= sizeof(exp_path))
			return usage_error("directory name too long", s.dir);
		s.expected_path = exp_path;
	}
	if (mkdir_p(s.dir) < 0) {
		fprintf(stderr, SYNTH_NAME ": error: \"%s\": cannot create directory: %s\n", s.dir, strerror(errno));
		return EXIT_SYSTEM;
	}
	s.out.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s.out.fd < 0) {
		fprintf(stderr, SYNTH_NAME ": error: \"%s\": cannot create: %s\n", path, strerror(errno));
		return EXIT_SYSTEM;
	}
	h = s.seed;
	origin = (int64_t)(ORIGIN_BASE + splitmix64(&h) % 1000000000ULL);
	s.steps = s.kernels ? (s.kernels + KERNELS_PER_STEP - 1) / KERNELS_PER_STEP : 1;
	rng_seed(&s.r, s.seed, 2);
	rng_seed(&s.mr, s.seed, 3);
	rng_seed(&s.pr, s.seed, 4);
	rng_seed(&s.lr, s.seed, 5);
	rng_seed(&s.ovr, s.seed, 6);
	rng_seed(&s.opr, s.seed, 8);
	for (t = 0; t < NTYPES; t++)
		batch_init(&s.b[t], t);
	setup_strings(&s);
	build_names(&s);
	build_popularity(&s);
	s.st.id = xcalloc(s.st.n, sizeof(uint32_t));
	for (dev = 0; dev < NDEV; dev++) {
		s.seen_mark[dev] = xcalloc(s.nnames, sizeof(uint32_t));
		s.loaded[dev] = xcalloc(s.nnames, 1);
	}
	if (s.want_expected)
		s.ns = xcalloc(s.nnames, sizeof(nstat));
	s.out.cap = OUT_FLUSH_AT + (1 << 20);
	s.out.p = xrealloc(NULL, s.out.cap);

	generate(&s, origin);
	ob_flush(&s.out);
	if (s.out.err) {
		fprintf(stderr, SYNTH_NAME ": error: \"%s\": write failed: %s\n", path, strerror(s.out.err));
		rc = EXIT_SYSTEM;
	}
	if (close(s.out.fd) < 0 && rc == EXIT_OK) {
		fprintf(stderr, SYNTH_NAME ": error: \"%s\": close failed: %s\n", path, strerror(errno));
		rc = EXIT_SYSTEM;
	}
	if (rc == EXIT_OK && s.want_expected && write_expected(&s, origin) < 0) {
		fprintf(stderr, SYNTH_NAME ": error: \"%s\": cannot write: %s\n", s.expected_path, strerror(errno));
		rc = EXIT_SYSTEM;
	}
	synth_release(&s);
	return rc;
}
