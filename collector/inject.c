/*
 * inject: libgpuprof.so, loaded into an unmodified CUDA program by the driver (CUDA_INJECTION64_PATH),
 * which calls InitializeInjection() during cuInit.
 *
 * Threads: CUPTI hands completed activity buffers to buffer_completed() on its own thread, which only
 * queues them. One writer thread (writer_main) owns the output: it converts buffers (activity.c),
 * samples host and NVML metrics when no launcher does, reads PC samples (pcsampling.c) every 100 ms,
 * flushes a batch line per type at least once a second and counts dropped records. At exit (registered
 * here, not in a constructor) PC sampling is disabled first, then everything is flushed with CUPTI's
 * forced flush and the session-end record is written. A device allocation that fails for want of memory
 * (oom.c) is written and flushed at once, on the failing thread (record_oom).
 *
 * The library must never crash, block or print into the host program: failures become `error` records
 * in the session and the program runs on. Only the two injection entry points are exported
 * (-fvisibility=hidden): InitializeInjection for the driver and InitializeInjectionNvtx2 for NVTX.
 */
#include "activity.h"
#include "oom.h"
#include "pcsampling.h"
#include "sampler.h"
#include "util.h"
#include "wire.h"

#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define PCS_POLL_NS 100000000LL	/* how often the writer reads PC samples */
#define POOL_MAX 4		/* activity buffers kept for reuse */
#define POOL_BYTES (32 << 20)	/* below this, two buffers are kept ready; above, one */

struct pending_buf {
	uint8_t *buf;
	size_t valid;
};

static struct {
	int initialized;	/* InitializeInjection ran (it may be called twice) */
	int active;		/* writing a session */
	pid_t pid;		/* the process that initialised; a forked child is not it */
	int cupti;		/* activity tracing is on */
	int pcs;		/* the pcsampling engine was asked for (pcsampling.c knows whether it runs) */
	struct pcs_options pcs_opts;
	struct wire *w;
	struct act act;
	struct sampler *sampler;	/* our own, when no launcher samples from outside */
	int interval_ms;
	size_t buffer_bytes;
	int all_api;		/* every API call is recorded, queries too (GPUPROF_API=all) */
	int api_domains;	/* GPUPROF_API core: 1 runtime, 2 driver, 3 both (runtime, driver, core) */
	char attrs[160];	/* GPUPROF_CUPTI_ATTRS as applied, for the header's options */
	int writer_cpu;		/* GPUPROF_WRITER_CPU: the writer thread's CPU, -1 unpinned */
	struct cupti_attr {
		CUpti_ActivityAttribute attr;
		int byte;	/* a uint8_t, else a size_t */
		size_t value;
	} attr[8];
	int nattr;
	char attr_error[256];	/* the first bad GPUPROF_CUPTI_ATTRS item, recorded once the session is open */
	int64_t win_on, win_every;	/* --trace-window ON/EVERY in ns; win_every 0: traced throughout */
	char win_text[64];		/* as given, for the header's options */
	int win_ready;		/* start_cupti is done: the writer may open windows (under qlock) */
	int tracing;		/* the windowed activity kinds are on, since open_start (writer thread) */
	int64_t open_start;
	int64_t last_start, last_end, last_cut;	/* the last closed window (last_start 0: none yet) */
	int forked;		/* this process is a forked child of one that initialised */

	pthread_t writer;
	pthread_mutex_t wlock;	/* the wire and act state */
	pthread_mutex_t dlock;	/* held through a drain: buffers are converted in the order they were queued */
	pthread_mutex_t qlock;	/* the queue below */
	pthread_cond_t qcond;
	struct pending_buf *queue;
	size_t qn, qalloc;
	uint8_t *pool[POOL_MAX];	/* zeroed buffers with their pages in, under qlock */
	int npool, pool_ready;		/* how many there are; how many the writer keeps */
	int stop;
	int64_t lost_records;	/* records of buffers the queue could not take (out of memory), under qlock */
	CUpti_SubscriberHandle subscriber;
	int hooks;		/* the exit and fork handlers are registered (once per process image) */
	char dir[4096];		/* the session directory, kept for forked children ("" until the first file) */
	char sid[256];		/* the session id */
	int64_t origin;		/* the session's time origin */
} C = { .wlock = PTHREAD_MUTEX_INITIALIZER, .dlock = PTHREAD_MUTEX_INITIALIZER, .qlock = PTHREAD_MUTEX_INITIALIZER,
	.qcond = PTHREAD_COND_INITIALIZER };

/* Record a failure in the session; the program is not told. */
static void note_error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_error(const char *what, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&C.wlock);
	if (C.w)
		wire_error(C.w, realtime_ns(), what, reason);
	pthread_mutex_unlock(&C.wlock);
}

/*
 * CUPTI asks for a buffer on the program's own thread whenever one fills. A fresh buffer would cost that
 * thread a page fault per page, and CUPTI would clear it there too; so the writer keeps zeroed buffers
 * with their pages already in (refill_pool) and recycles converted ones, and CUPTI is told they come
 * zeroed (start_cupti). calloc is the fallback when the pool is empty.
 */
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;
	if (getpid() == C.pid) {
		pthread_mutex_lock(&C.qlock);
		if (C.npool)
			b = C.pool[--C.npool];
		if (C.npool < C.pool_ready)
			pthread_cond_signal(&C.qcond);
		pthread_mutex_unlock(&C.qlock);
	}
	if (!b)
		b = calloc(1, C.buffer_bytes);
	*buffer = b;
	*size = b ? C.buffer_bytes : 0;
	*max_records = 0;
}

/* Keep a zeroed buffer for CUPTI's next request, or free it when enough are kept. */
static void pool_put(uint8_t *b)
{
	pthread_mutex_lock(&C.qlock);
	if (C.npool < POOL_MAX) {
		C.pool[C.npool++] = b;
		b = NULL;
	}
	pthread_mutex_unlock(&C.qlock);
	free(b);
}

/* Top the pool up to pool_ready buffers, each page touched here rather than on the program's thread. */
static void refill_pool(void)
{
	for (;;) {
		uint8_t *b;
		size_t i;
		int need;
		pthread_mutex_lock(&C.qlock);
		need = C.npool < C.pool_ready;
		pthread_mutex_unlock(&C.qlock);
		if (!need || !(b = calloc(1, C.buffer_bytes)))
			return;
		for (i = 0; i < C.buffer_bytes; i += 4096)
			((volatile uint8_t *)b)[i] = 0;
		pool_put(b);
	}
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)size;
	if (!C.active || getpid() != C.pid) {
		act_release(buffer, valid);
		free(buffer);
		return;
	}
	pthread_mutex_lock(&C.qlock);
	if (C.qn == C.qalloc) {
		size_t n = C.qalloc ? C.qalloc * 2 : 16;
		struct pending_buf *q = realloc(C.queue, n * sizeof(*q));
		if (!q) {
			/* Out of memory: the records are lost; count them so the session says so. */
			CUpti_Activity *r = NULL;
			while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS)
				C.lost_records++;
			pthread_mutex_unlock(&C.qlock);
			act_release(buffer, valid);
			free(buffer);
			return;
		}
		C.queue = q;
		C.qalloc = n;
	}
	C.queue[C.qn].buf = buffer;
	C.queue[C.qn].valid = valid;
	C.qn++;
	pthread_cond_signal(&C.qcond);
	pthread_mutex_unlock(&C.qlock);
}

static void drain(void);

/*
 * A device allocation failed for want of memory: have CUPTI hand over every record it has finished and
 * convert them (the STARTs of the NVTX ranges open on the failing thread among them), write the failure
 * with the path of those ranges (act_alloc_fail: a range is written only at its END, which a program
 * that dies of the failure never reaches), and write every buffered row, here on the failing thread
 * before the call returns, so that the program's death leaves them in the session. It waits for a drain
 * the writer has begun (dlock), never for the writer's sleep.
 */
static void record_oom(const struct oom_event *e)
{
	pthread_mutex_lock(&C.wlock);
	if (!C.active || !C.w) {
		pthread_mutex_unlock(&C.wlock);
		return;
	}
	pthread_mutex_unlock(&C.wlock);
	if (C.cupti)
		cuptiActivityFlushAll(0);
	drain();
	pthread_mutex_lock(&C.wlock);
	if (C.active && C.w) {
		act_alloc_fail(&C.act, e);
		wire_flush(C.w);
	}
	pthread_mutex_unlock(&C.wlock);
}

/*
 * PC sampling's callbacks; a failed allocation (record_oom); then flush what CUPTI holds when a context
 * goes away (after PC sampling has let go of it: armed sampling can hold back activity records) or the
 * device is reset.
 */
static void CUPTIAPI on_callback(void *data, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *info)
{
	struct oom_event e;
	(void)data;
	if (getpid() != C.pid)
		return;
	if (C.pcs)
		pcs_callback(domain, cbid, info);
	if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) &&
	    oom_from_callback(domain, cbid, info, &e))
		record_oom(&e);
	if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && C.cupti)
		cuptiActivityFlushAll(0);
	else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
		 cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 &&
		 ((const CUpti_CallbackData *)info)->callbackSite == CUPTI_API_ENTER)
		cuptiActivityFlushAll(0);
}

/*
 * Convert every queued buffer. The writer drains, and so does a thread whose allocation failed
 * (record_oom): dlock keeps the buffers in order (an NVTX range's END must follow its START).
 */
static void drain(void)
{
	pthread_mutex_lock(&C.dlock);
	for (;;) {
		struct pending_buf *q;
		size_t n, i;
		pthread_mutex_lock(&C.qlock);
		q = C.queue;
		n = C.qn;
		C.queue = NULL;
		C.qn = C.qalloc = 0;
		pthread_mutex_unlock(&C.qlock);
		if (!n) {
			free(q);
			pthread_mutex_unlock(&C.dlock);
			return;
		}
		pthread_mutex_lock(&C.wlock);
		for (i = 0; i < n; i++) {
			if (C.w)
				act_buffer(&C.act, q[i].buf, q[i].valid);
			else
				act_release(q[i].buf, q[i].valid);	/* the session ended (a failure raced exit) */
		}
		pthread_mutex_unlock(&C.wlock);
		for (i = 0; i < n; i++) {
			memset(q[i].buf, 0, C.buffer_bytes);
			pool_put(q[i].buf);
		}
		free(q);
	}
}

/* Records CUPTI dropped for lack of buffers since the last call (it resets on read). */
static void count_drops(void)
{
	size_t dropped = 0;
	int64_t lost;
	pthread_mutex_lock(&C.qlock);
	lost = C.lost_records;
	C.lost_records = 0;
	pthread_mutex_unlock(&C.qlock);
	if (lost) {
		pthread_mutex_lock(&C.wlock);
		wire_drops(C.w, realtime_ns(), "ring", "records", lost);
		pthread_mutex_unlock(&C.wlock);
	}
	if (!C.cupti || cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) != CUPTI_SUCCESS || !dropped)
		return;
	pthread_mutex_lock(&C.wlock);
	wire_drops(C.w, realtime_ns(), "cupti", "records", (int64_t)dropped);
	pthread_mutex_unlock(&C.wlock);
}

/* A host sample and one per NVML device, when this library samples (no launcher does). */
static void sample(void)
{
	struct host_sample h;
	struct gpu_sample g;
	int i;
	if (!C.sampler)
		return;
	pthread_mutex_lock(&C.wlock);
	if (!sampler_host(C.sampler, &h))
		sampler_write_host(C.sampler, C.w, &h);
	for (i = 0; i < sampler_gpus(C.sampler); i++)
		if (!sampler_gpu(C.sampler, i, &g))
			sampler_write_gpu(C.sampler, C.w, &g);
	pthread_mutex_unlock(&C.wlock);
}

/* Trace windows (below, with the activity kinds they turn on and off). */
static void window_step(void);
static void window_follow(void);
static void window_finish(void);
static int64_t window_wait(int64_t max_ns);

static void *writer_main(void *arg)
{
	int64_t last_flush = now_ns(), last_sample = 0, last_pcs = 0;
	(void)arg;
	for (;;) {
		struct timespec until;
		int stop, windows;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)window_wait(50 * 1000000LL);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&C.qlock);
		if (!C.qn && !C.stop && C.npool >= C.pool_ready)
			pthread_cond_timedwait(&C.qcond, &C.qlock, &until);
		stop = C.stop;
		windows = C.win_ready;
		pthread_mutex_unlock(&C.qlock);
		if (windows && !stop)
			window_step();
		drain();
		if (windows) {
			pthread_mutex_lock(&C.wlock);
			window_follow();
			pthread_mutex_unlock(&C.wlock);
		}
		if (C.cupti && !stop)
			refill_pool();
		if (C.pcs && !stop && now_ns() - last_pcs >= PCS_POLL_NS) {
			last_pcs = now_ns();
			pcs_poll();
		}
		if (now_ns() - last_sample >= (int64_t)C.interval_ms * 1000000) {
			last_sample = now_ns();
			sample();
		}
		if (now_ns() - last_flush >= 1000000000LL || stop) {
			last_flush = now_ns();
			count_drops();
			pthread_mutex_lock(&C.wlock);
			wire_flush(C.w);
			pthread_mutex_unlock(&C.wlock);
		}
		if (stop)
			return NULL;
	}
}

/* At exit: forced flush, last conversion, drops, the session-end record. */
static void finish(void)
{
	if (!C.active || getpid() != C.pid)
		return;
	if (C.pcs)
		pcs_finish();
	if (C.cupti)
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&C.qlock);
	C.stop = 1;
	pthread_cond_signal(&C.qcond);
	pthread_mutex_unlock(&C.qlock);
	pthread_join(C.writer, NULL);
	drain();
	count_drops();
	pthread_mutex_lock(&C.qlock);
	while (C.npool)
		free(C.pool[--C.npool]);
	C.pool_ready = 0;
	pthread_mutex_unlock(&C.qlock);
	pthread_mutex_lock(&C.wlock);
	window_finish();
	act_finish(&C.act);
	if (C.act.incomplete)
		wire_drops(C.w, realtime_ns(), "cupti", "unfinished records", C.act.incomplete);
	wire_close(C.w, realtime_ns(), 1);
	C.w = NULL;
	C.active = 0;
	pthread_mutex_unlock(&C.wlock);
	if (C.pcs)
		pcs_release();	/* CUPTI's function names, which activity records may have shared */
	sampler_close(C.sampler);
	C.sampler = NULL;
}

/*
 * A forked child inherits our state but must never touch it: the parent's file, queue and threads are not
 * its own, and a lock the parent's writer held at the fork would never be let go. The child starts
 * afresh: should its driver initialise again (InitializeInjection), it writes its own file into the same
 * session, with the same time origin. Only the child's own thread runs here, so freeing is safe.
 */
static void after_fork_child(void)
{
	size_t i;
	pthread_mutex_init(&C.wlock, NULL);
	pthread_mutex_init(&C.dlock, NULL);
	pthread_mutex_init(&C.qlock, NULL);
	pthread_cond_init(&C.qcond, NULL);
	if (C.w)
		wire_discard(C.w);
	C.w = NULL;
	for (i = 0; i < C.qn; i++)
		free(C.queue[i].buf);
	free(C.queue);
	C.queue = NULL;
	C.qn = C.qalloc = 0;
	while (C.npool)
		free(C.pool[--C.npool]);
	C.pool_ready = 0;
	C.stop = 0;
	C.lost_records = 0;
	C.sampler = NULL;	/* the parent's NVML handles: left alone */
	C.initialized = C.active = C.cupti = 0;
	C.win_ready = C.tracing = 0;
	C.last_start = 0;
	C.forked = 1;
}

/* An integer setting in lo..hi from the environment, or def when it is missing or not one. */
static int64_t env_int(const char *name, int64_t def, int64_t lo, int64_t hi)
{
	const char *s = getenv(name);
	int64_t v;
	if (!s || parse_i64_range(s, lo, hi, &v))
		return def;
	return v;
}

/* mkdir -p; 0 or -1. */
static int make_dirs(const char *path)
{
	char tmp[4096];
	size_t i, n = strlen(path);
	if (n >= sizeof(tmp))
		return -1;
	memcpy(tmp, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (tmp[i] == '/' || tmp[i] == '\0') {
			char c = tmp[i];
			tmp[i] = '\0';
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -1;
			tmp[i] = c;
		}
	}
	return 0;
}

/* This process's command line from /proc/self/cmdline: argv[0] and a NULL-terminated args array. */
static char **command_line(char **program)
{
	static char data[8192];
	static char *argv[256];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, data, sizeof(data) - 1) : -1;
	size_t i, argc = 0;
	if (fd >= 0)
		close(fd);
	*program = NULL;
	argv[0] = NULL;
	if (n <= 0)
		return argv;
	data[n] = '\0';
	for (i = 0; i < (size_t)n && argc < 255; i += strlen(data + i) + 1)
		argv[argc++] = data + i;
	argv[argc] = NULL;
	*program = argv[0];
	return argv + (argc ? 1 : 0);
}

/*
 * Open our file in the session directory and write its header. A forked child keeps its parent's session
 * (C.dir, C.sid, C.origin). The file is <pid>.ndjson, or <pid>-K.ndjson when a file of this pid is there
 * already: the program this one exec'd from wrote it.
 */
static int open_output(const char *engine)
{
	char path[4200], host[256] = "", opts[1024], pcs[384] = "";
	const char *exact = getenv("GPUPROF_SESSION_DIR"), *out = getenv("GPUPROF_OUTPUT");
	const char *sid = getenv("GPUPROF_SESSION");
	struct wire_header h;
	char *program;
	char **args = command_line(&program);
	int k;

	if (!C.dir[0]) {
		C.origin = env_int("GPUPROF_ORIGIN_NS", 0, 1, INT64_MAX);
		if (!C.origin)
			C.origin = realtime_ns();
		if (sid)
			snprintf(C.sid, sizeof(C.sid), "%s", sid);
		else
			snprintf(C.sid, sizeof(C.sid), "%lld-%d", (long long)C.origin, (int)getpid());
		if (exact && *exact)
			snprintf(C.dir, sizeof(C.dir), "%s", exact);	/* chosen by the launcher */
		else
			snprintf(C.dir, sizeof(C.dir), "%s/%s", out && *out ? out : "gpuprof-sessions", C.sid);
	}
	if (make_dirs(C.dir))
		return -1;
	gethostname(host, sizeof(host) - 1);
	if (C.pcs) {
		pcs[0] = ',';
		pcs_options_json(&C.pcs_opts, pcs + 1, sizeof(pcs) - 1);
	}
	snprintf(opts, sizeof(opts), "{\"interval_ms\":%d,\"buffer_mb\":%zu,\"api\":\"%s\",\"launcher\":%s%s%s%s%s%s%s%s}",
		 C.interval_ms, C.buffer_bytes >> 20,
		 C.all_api ? "all" : C.api_domains == 1 ? "runtime" : C.api_domains == 2 ? "driver" : "core",
		 getenv("GPUPROF_LAUNCHER") ? "true" : "false", pcs, C.win_every ? ",\"trace_window\":\"" : "",
		 C.win_text, C.win_every ? "\"" : "", C.attrs[0] ? ",\"cupti_attrs\":\"" : "", C.attrs,
		 C.attrs[0] ? "\"" : "");
	memset(&h, 0, sizeof(h));
	h.session = C.sid;
	h.collector = "gpuprof " GPUPROF_VERSION;
	h.program = program;
	h.args = (const char *const *)args;
	h.pid = getpid();
	h.ppid = getppid();
	h.hostname = host;
	h.engine = engine;
	h.options_json = opts;
	h.origin_ns = C.origin;
	for (k = 1; !C.w && k < 100; k++) {
		if (k == 1)
			snprintf(path, sizeof(path), "%s/%d.ndjson", C.dir, (int)getpid());
		else
			snprintf(path, sizeof(path), "%s/%d-%d.ndjson", C.dir, (int)getpid(), k);
		if (!(C.w = wire_open(path, &h)) && errno != EEXIST)
			break;
	}
	if (!C.w)
		rmdir(C.dir);	/* when it is empty: no session is better than one without a file */
	return C.w ? 0 : -1;
}

/* Enable one activity kind, recording a failure (once: a window that opens again does not repeat it). 0 or -1. */
static int enable(CUpti_ActivityKind kind, const char *name, int *failed)
{
	CUptiResult rc = cuptiActivityEnable(kind);
	if (rc == CUPTI_SUCCESS)
		return 0;
	if (!*failed)
		note_error("cupti", "cuptiActivityEnable(%s): %s", name, cupti_error(rc));
	*failed = 1;
	return -1;
}

/*
 * Whether an API call only reads state: cudaGetDevice, cuKernelGetName, cudaStreamIsCapturing,
 * cudaPeekAtLastError, the occupancy calculators. Frameworks make these by the hundred thousand (PyTorch:
 * 20 such calls per kernel launched), and none of them moves work or waits for it.
 */
static int query_api(const char *name)
{
	const char *p;
	if (strstr(name, "Get") || strstr(name, "Peek") || strstr(name, "Occupancy"))
		return 1;
	for (p = name; (p = strstr(p, "Is")); p += 2)
		if (p[2] >= 'A' && p[2] <= 'Z')
			return 1;
	return 0;
}

/* Turn API records on or off for every call of one domain but the queries (query_api). The number set. */
static int enable_api(CUpti_CallbackDomain domain, uint8_t on)
{
	CUpti_CallbackId id, size = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_RUNTIME_TRACE_CBID_SIZE :
				    CUPTI_DRIVER_TRACE_CBID_SIZE;
	int n = 0;
	for (id = 1; id < size; id++) {
		const char *name = NULL;
		if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || !name || query_api(name))
			continue;
		if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API ? cuptiActivityEnableRuntimeApi(id, on) :
		     cuptiActivityEnableDriverApi(id, on)) == CUPTI_SUCCESS)
			n++;
	}
	return n;
}

/*
 * The activity kinds. DEVICE and MEMORY2 stay on throughout: a device record comes once, when its
 * context is made, and a leak or a peak needs every allocation and free (they cost per allocation, not
 * per launch). The others are what a trace window turns on and off.
 */
static struct {
	CUpti_ActivityKind kind;
	const char *name;
	int windowed, api, failed;	/* api: the RUNTIME and DRIVER kinds, on only for GPUPROF_API=all */
} kinds[] = {
	{ CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", 0, 0, 0 },
	{ CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2", 0, 0, 0 },
	{ CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", 1, 0, 0 },
	{ CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", 1, 0, 0 },
	{ CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", 1, 0, 0 },
	{ CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", 1, 0, 0 },
	{ CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", 1, 0, 0 },
	{ CUPTI_ACTIVITY_KIND_MARKER, "MARKER", 1, 0, 0 },
	{ CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", 1, 0, 0 },
	{ CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", 1, 1, 0 },
	{ CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", 1, 1, 0 },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/*
 * Turn activity kinds on (those with windowed == which, and the API records with the windowed ones) or
 * the windowed ones off. The number of kinds (and API domains) turned on, or 0 when turning off.
 */
static int set_kinds(int which, int on)
{
	size_t i;
	int n = 0;
	for (i = 0; i < NKINDS; i++) {
		if (kinds[i].windowed != which || (kinds[i].api && !C.all_api))
			continue;
		if (!on)
			cuptiActivityDisable(kinds[i].kind);
		else
			n += enable(kinds[i].kind, kinds[i].name, &kinds[i].failed) == 0;
	}
	if (which && !C.all_api) {
		int k = (C.api_domains & 1 ? enable_api(CUPTI_CB_DOMAIN_RUNTIME_API, (uint8_t)on) : 0) +
			(C.api_domains & 2 ? enable_api(CUPTI_CB_DOMAIN_DRIVER_API, (uint8_t)on) : 0);
		if (on && !k && !C.last_start)
			note_error("cupti", "no API call could be enabled: kernels will lack their launching thread");
		n += on && k > 0;
	}
	return n;
}

/* ---- trace windows (--trace-window ON/EVERY): activity tracing on for ON of every EVERY ---- */

/*
 * Whether time t (realtime ns) is inside a window, and the time of the next edge after t. Windows are
 * aligned on the session's origin, which every process of a session shares: all trace at once.
 */
static int window_at(int64_t t, int64_t *next_edge)
{
	int64_t off = (t - C.origin) % C.win_every;
	if (off < 0)
		off += C.win_every;
	if (off < C.win_on) {
		*next_edge = t - off + C.win_on;
		return 1;
	}
	*next_edge = t - off + C.win_every;
	return 0;
}

/*
 * Open or close the window, on the writer thread, as the clock says. A window opens when the windowed
 * kinds go on. It closes at a clean point: the kinds go off (a kernel launched before stays recorded:
 * CUPTI delivers it when it ends), what CUPTI holds is flushed and converted, ranges still open are cut,
 * and its end is the later of now and the last recorded end of the work that started in it. Records of
 * that work that arrive later move the end on (window_follow), even while the next window is open.
 */
static void window_step(void)
{
	int64_t next, t = realtime_ns();
	int due = window_at(t, &next);
	if (due == C.tracing)
		return;
	if (due) {
		C.tracing = 1;
		set_kinds(1, 1);
		pthread_mutex_lock(&C.wlock);
		C.open_start = C.act.split = t;
		C.act.end_after = INT64_MIN;
		wire_window(C.w, t, -1, 0);
		pthread_mutex_unlock(&C.wlock);
		return;
	}
	set_kinds(1, 0);
	C.tracing = 0;
	cuptiActivityFlushAll(0);
	drain();
	pthread_mutex_lock(&C.wlock);
	C.last_start = C.open_start;
	C.last_end = C.act.end_after > t ? C.act.end_after : t;
	C.last_cut = act_cut_ranges(&C.act);
	if (C.act.end_after > C.act.end_before)
		C.act.end_before = C.act.end_after;
	C.act.split = INT64_MAX;
	wire_window(C.w, C.last_start, C.last_end, C.last_cut);
	pthread_mutex_unlock(&C.wlock);
}

/* The last closed window, when records of its work ended after its end as written: that end moves on (under wlock). */
static void window_follow(void)
{
	if (C.last_start && C.act.end_before > C.last_end) {
		C.last_end = C.act.end_before;
		wire_window(C.w, C.last_start, C.last_end, C.last_cut);
	}
}

/* At exit: the last closed window followed, and the window still open ends now (under wlock). */
static void window_finish(void)
{
	int64_t t = realtime_ns();
	window_follow();
	if (C.tracing)
		wire_window(C.w, C.open_start, C.act.end_after > t ? C.act.end_after : t, 0);
}

/* How long the writer may sleep before the next window edge: at most max_ns. */
static int64_t window_wait(int64_t max_ns)
{
	int64_t next, t = realtime_ns();
	if (!C.win_every)
		return max_ns;
	window_at(t, &next);
	return next - t < max_ns ? (next - t > 0 ? next - t : 0) : max_ns;
}

/*
 * Set up activity tracing and, for the pcsampling engine, PC sampling; each failure is recorded and the
 * session goes on with whatever works. With trace windows the windowed kinds wait for the writer to
 * open the first window.
 */
static void start_cupti(void)
{
	uint8_t zeroed = 1;
	size_t zsize = sizeof(zeroed);
	uint32_t version = 0;
	CUptiResult rc;
	int enabled = 0, i;

	if (cuptiGetVersion(&version) == CUPTI_SUCCESS && version < CUPTI_API_VERSION)
		note_error("cupti", "libcupti API version %u is older than the %u this collector was built for",
			   version, (unsigned)CUPTI_API_VERSION);
	/* Our buffers come zeroed (buffer_requested): CUPTI need not clear them on the program's thread. */
	pthread_mutex_lock(&C.qlock);
	C.pool_ready = C.buffer_bytes <= POOL_BYTES ? 2 : 1;
	pthread_mutex_unlock(&C.qlock);
	if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zsize, &zeroed) != CUPTI_SUCCESS)
		note_error("cupti", "CUPTI clears activity buffers itself, on the program's threads");
	for (i = 0; i < C.nattr; i++) {
		uint8_t b = (uint8_t)C.attr[i].value;
		size_t z = C.attr[i].value, size = C.attr[i].byte ? sizeof(b) : sizeof(z);
		if ((rc = cuptiActivitySetAttribute(C.attr[i].attr, &size, C.attr[i].byte ? (void *)&b : (void *)&z)) !=
		    CUPTI_SUCCESS)
			note_error("cupti", "GPUPROF_CUPTI_ATTRS: cuptiActivitySetAttribute(%d): %s", (int)C.attr[i].attr,
				   cupti_error(rc));
	}
	rc = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (rc != CUPTI_SUCCESS)
		note_error("cupti", "cuptiActivityRegisterCallbacks: %s", cupti_error(rc));
	if (rc == CUPTI_SUCCESS) {
		enabled = set_kinds(0, 1);
		if (!C.win_every)
			enabled += set_kinds(1, 1);
		else
			enabled++;	/* the windows will turn the rest on */
	}
	if (enabled) {
		C.cupti = 1;
		cuptiActivityFlushPeriod(1000);
	} else if (rc == CUPTI_SUCCESS) {
		note_error("cupti", "no activity kind could be enabled; the session holds no activity records");
	}
	if (C.cupti && C.win_every) {
		pthread_mutex_lock(&C.qlock);
		C.win_ready = 1;
		pthread_cond_signal(&C.qcond);
		pthread_mutex_unlock(&C.qlock);
	}
	if (!C.cupti && !C.pcs)
		return;
	rc = cuptiSubscribe(&C.subscriber, on_callback, NULL);
	if (rc != CUPTI_SUCCESS) {
		/* Another profiler (Nsight, the PyTorch profiler) holds the subscription: trace without it. */
		note_error("cupti", "cuptiSubscribe: %s (flushes at context destroy and device reset are off)",
			   cupti_error(rc));
		if (C.pcs)
			note_error("pcsampling", "PC sampling needs CUPTI's callbacks (cuptiSubscribe: %s): it is off",
				   cupti_error(rc));
		return;
	}
	cuptiEnableCallback(1, C.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
	cuptiEnableCallback(1, C.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
			    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
	if (!oom_enable(C.subscriber))
		note_error("cupti", "no allocation call's callback could be enabled: failed allocations are not recorded");
	if (C.pcs)
		pcs_start(C.subscriber, &C.pcs_opts, C.w, &C.wlock, note_error, C.cupti);
}

/*
 * GPUPROF_CUPTI_ATTRS, for measuring what CUPTI's buffer settings cost (tests/gpu/peers.sh): comma-separated
 * KEY=VALUE items, each a cuptiActivitySetAttribute made before tracing starts. per_thread=0|1 (per-thread
 * activity buffers, CUPTI's default 1), device_buffer_mb=N (1..4096, default 8), prealloc=N (device buffers
 * made at context creation, 0..64, default 3), pool_limit=N (0..1024), pinned=0|1 (pinned host memory for
 * device records, default 0). Accepted items go into C.attr and C.attrs; the first bad one into C.attr_error.
 */
static void parse_attrs(const char *spec)
{
	static const struct {
		const char *key;
		CUpti_ActivityAttribute attr;
		int byte;
		int64_t lo, hi, scale;
	} known[] = {
		{ "per_thread", CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, 1, 0, 1, 1 },
		{ "device_buffer_mb", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, 0, 1, 4096, 1 << 20 },
		{ "prealloc", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, 0, 0, 64, 1 },
		{ "pool_limit", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, 0, 0, 1024, 1 },
		{ "pinned", CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, 1, 0, 1, 1 },
	};
	char item[64];
	const char *p = spec;
	while (p && *p) {
		const char *comma = strchr(p, ','), *eq;
		size_t n = comma ? (size_t)(comma - p) : strlen(p), k;
		int64_t v = 0;
		snprintf(item, sizeof(item), "%.*s", (int)(n < sizeof(item) ? n : sizeof(item) - 1), p);
		p = comma ? comma + 1 : NULL;
		eq = strchr(item, '=');
		for (k = 0; eq && k < sizeof(known) / sizeof(known[0]); k++)
			if (strlen(known[k].key) == (size_t)(eq - item) && !strncmp(item, known[k].key, (size_t)(eq - item)))
				break;
		if (!eq || k == sizeof(known) / sizeof(known[0]) || parse_i64_range(eq + 1, known[k].lo, known[k].hi, &v) ||
		    C.nattr == (int)(sizeof(C.attr) / sizeof(C.attr[0]))) {
			if (!C.attr_error[0])
				snprintf(C.attr_error, sizeof(C.attr_error), "GPUPROF_CUPTI_ATTRS: '%s' is not one of per_thread=0|1, "
					 "device_buffer_mb=1..4096, prealloc=0..64, pool_limit=0..1024, pinned=0|1; left out", item);
			continue;
		}
		C.attr[C.nattr].attr = known[k].attr;
		C.attr[C.nattr].byte = known[k].byte;
		C.attr[C.nattr].value = (size_t)(v * known[k].scale);
		C.nattr++;
		snprintf(C.attrs + strlen(C.attrs), sizeof(C.attrs) - strlen(C.attrs), "%s%s", C.attrs[0] ? "," : "", item);
	}
}

/* The writer thread on CPU C.writer_cpu (GPUPROF_WRITER_CPU), recording a failure. */
static void pin_writer(void)
{
	cpu_set_t set;
	int rc;
	if (C.writer_cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(C.writer_cpu, &set);
	if ((rc = pthread_setaffinity_np(C.writer, sizeof(set), &set)))
		note_error("writer", "GPUPROF_WRITER_CPU: cannot pin the writer to CPU %d: %s", C.writer_cpu, strerror(rc));
}

/* Called by the CUDA driver during cuInit; returns 1 (success) whatever happens inside. */
EXPORT int InitializeInjection(void);
int InitializeInjection(void)
{
	const char *engine = getenv("GPUPROF_ENGINE"), *api, *window = getenv("GPUPROF_TRACE_WINDOW"), *why = NULL;
	int i;
	if (C.initialized)
		return 1;
	C.initialized = 1;
	util_init("libgpuprof");
	util_set_quiet(2);	/* never print into the host program */
	if (env_flag("GPUPROF_DISABLED"))
		return 1;
	if (!engine || (strcmp(engine, "monitor") && strcmp(engine, "trace") && strcmp(engine, "pcsampling")))
		engine = "trace";
	C.interval_ms = (int)env_int("GPUPROF_INTERVAL_MS", 100, 1, 60000);
	C.pcs = !strcmp(engine, "pcsampling");
	if (C.pcs && C.forked) {
		C.pcs = 0;	/* PC sampling's state is the parent's */
		engine = "trace";
	}
	if (C.pcs)
		pcs_options_from_env(&C.pcs_opts);
	C.buffer_bytes = (size_t)env_int("GPUPROF_BUFFER_MB", 8, 1, 1024) << 20;
	api = getenv("GPUPROF_API");
	C.all_api = api && !strcmp(api, "all");
	C.api_domains = api && !strcmp(api, "runtime") ? 1 : api && !strcmp(api, "driver") ? 2 : 3;
	C.nattr = 0;
	C.attrs[0] = C.attr_error[0] = '\0';
	parse_attrs(getenv("GPUPROF_CUPTI_ATTRS"));
	C.writer_cpu = (int)env_int("GPUPROF_WRITER_CPU", -1, 0, CPU_SETSIZE - 1);
	C.pid = getpid();
	C.win_on = C.win_every = 0;
	if (window && *window && strcmp(engine, "monitor") &&
	    parse_trace_window(window, &C.win_on, &C.win_every, &why) == 0 && C.win_on < C.win_every)
		snprintf(C.win_text, sizeof(C.win_text), "%s", window);
	else
		C.win_on = C.win_every = 0;	/* ON = EVERY: traced throughout */
	if (open_output(engine))
		return 1;
	if (why)
		note_error("cupti", "GPUPROF_TRACE_WINDOW: '%s': %s; traced throughout", window, why);
	for (i = 0; i < C.pcs_opts.nnotes; i++)
		note_error("pcsampling", "%s", C.pcs_opts.notes[i]);
	if (api && *api && strcmp(api, "all") && strcmp(api, "core") && strcmp(api, "runtime") && strcmp(api, "driver"))
		note_error("cupti", "GPUPROF_API: unknown API-call selection '%s': core used", api);
	if (C.attr_error[0])
		note_error("cupti", "%s", C.attr_error);
	act_init(&C.act, C.w);
	if (!getenv("GPUPROF_LAUNCHER")) {
		C.sampler = sampler_open(getpid(), 0);
		if (C.sampler && sampler_gpu_error(C.sampler))
			note_error("nvml", "%s", sampler_gpu_error(C.sampler));
	}
	C.active = 1;
	if (pthread_create(&C.writer, NULL, writer_main, NULL)) {
		C.active = 0;
		wire_close(C.w, realtime_ns(), 0);
		C.w = NULL;
		return 1;
	}
	pin_writer();
	if (strcmp(engine, "monitor"))
		start_cupti();
	if (!C.hooks) {
		C.hooks = 1;
		pthread_atfork(NULL, NULL, after_fork_child);
		atexit(finish);
	}
	return 1;
}

/*
 * Called by NVTX at the program's first NVTX call (the launcher names this library in
 * NVTX_INJECTION64_PATH): hand over to the libcupti this library is bound to, so ranges reach the
 * CUPTI that records our activity. Naming libcupti's own path there breaks programs that bring their
 * own libcupti: PyTorch loads the one of its wheel at import, this library binds to it by soname, and
 * NVTX would load a second copy that nobody reads (no ranges at all). Returns 0 (NVTX stays inert) when
 * disabled or when libcupti has no NVTX entry point.
 */
EXPORT int InitializeInjectionNvtx2(void *get_export_table);
int InitializeInjectionNvtx2(void *get_export_table)
{
	int (*init)(void *) = NULL;
	Dl_info info;
	void *lib;
	if (env_flag("GPUPROF_DISABLED"))
		return 0;
	if (!dladdr((void *)cuptiGetVersion, &info) || !info.dli_fname ||
	    !(lib = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)))
		return 0;
	*(void **)&init = dlsym(lib, "InitializeInjectionNvtx2");
	dlclose(lib);	/* still loaded: this library needs it */
	return init ? init(get_export_table) : 0;
}
