/*
 * gpuprof-collect: run a program with the collector injected and sample it from outside.
 *
 * The launcher creates the session directory, sets the environment the injected library reads
 * (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH, GPUPROF_*), runs the program, forwards signals to it,
 * and writes host and NVML samples of the program's process tree into its own file,
 * <session dir>/<launcher pid>.ndjson. It never writes to stdout: that belongs to the program.
 */
#include "records.h"
#include "sampler.h"
#include "util.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define COLLECTOR_NAME "gpuprof " GPUPROF_VERSION
#define DEFAULT_DIR "gpuprof-sessions"
#define DEFAULT_INTERVAL_MS 100
#define MAX_INTERVAL_MS 60000
#define MIN_PC_PERIOD 5		/* PC sampling period: 2^N cycles, as CUPTI takes it */
#define MAX_PC_PERIOD 31
#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL

/* Engines, in the order --help lists them. */
static const struct engine {
	const char *name;
	int cupti;		/* 1: the program gets the injected library */
	const char *help;
} engines[] = {
	{ "monitor", 0, "host and NVML metrics only, sampled from outside (no CUPTI)" },
	{ "trace", 1, "plus CUDA activity (kernels, copies, syncs, memory) and NVTX ranges" },
	{ "pcsampling", 1, "plus warp-state PC sampling (slow: large overhead)" },
};
#define NENGINES (sizeof(engines) / sizeof(engines[0]))

/* Signals passed on to the program; the launcher itself waits for the program to end. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

struct opts {
	const char *dir;		/* parent of the session directory */
	const struct engine *engine;
	int interval_ms;
	int pc_period;			/* 0: the collector's default */
	const char *pc_mode;		/* NULL: the collector's default */
	const char *api;		/* API calls recorded: NULL (the collector's default), core, all, runtime, driver */
	const char *window;		/* --trace-window ON/EVERY, checked; NULL: traced throughout */
	int quiet;
	char **argv;			/* the program and its arguments, NULL-terminated */
};

struct collect {
	struct opts o;
	char id[40];			/* session id, UUID shape */
	char dir[PATH_MAX];		/* session directory as shown to the user */
	char abs_dir[PATH_MAX];		/* the same, absolute, for the program's environment */
	char lib[PATH_MAX + 32];	/* libgpuprof.so, absolute, when the engine uses it */
	int64_t origin;			/* CLOCK_REALTIME ns */
	struct wire *w;
	struct sampler *s;
	pid_t child;
	int write_failed;		/* errno of the first failed wire write (warned at the end), or 0 */
	int host_failed;		/* host sampling failed once: recorded once */
};

static void usage(FILE *out)
{
	size_t i;
	fprintf(out,
		"usage: gpuprof-collect [options] -- PROGRAM [ARGS...]\n"
		"\n"
		"Run PROGRAM with the gpuprof collector injected, sample its host and GPU metrics from\n"
		"outside, and write a session directory DIR/<session-id> for gpuprof-ingest.\n"
		"\n"
		"  -o, --output DIR      where session directories go (default ./" DEFAULT_DIR ")\n"
		"  -e, --engine NAME     what to collect (default trace), see below\n"
		"  -i, --interval MS     sampling interval, 1..60000 ms (default 100)\n"
		"      --api WHICH       CUDA API calls recorded: core (default: all but the calls that\n"
		"                        only read state, such as cudaGetDevice), all, or the core calls of\n"
		"                        one domain: runtime or driver\n"
		"      --trace-window ON/EVERY\n"
		"                        trace activity for ON of every EVERY (e.g. 2s/60s), aligned on the\n"
		"                        session's start; NVML and host metrics are sampled throughout\n"
		"      --pc-period N     pcsampling: sample every 2^N cycles, 5..31 (default: CUPTI's)\n"
		"      --pc-mode MODE    pcsampling: continuous (default) or serialized (one kernel at a\n"
		"                        time, samples carry the launch's correlation id)\n"
		"  -q, --quiet           do not print the session directory at the end\n"
		"  -h, --help            show this help\n"
		"      --version         show the version\n"
		"\n"
		"Engines:\n");
	for (i = 0; i < NENGINES; i++)
		fprintf(out, "  %-12s %s\n", engines[i].name, engines[i].help);
	fprintf(out,
		"\n"
		"Environment: GPUPROF_OUTPUT, GPUPROF_ENGINE, GPUPROF_INTERVAL_MS, GPUPROF_API,\n"
		"GPUPROF_TRACE_WINDOW, GPUPROF_PC_PERIOD and GPUPROF_PC_MODE are used when the matching option is not given;\n"
		"GPUPROF_LIBRARY names libgpuprof.so; GPUPROF_DISABLED=1 runs PROGRAM untouched.\n"
		"\n"
		"Exit status: the program's, 128+N when signal N killed it, 127 (126) when it cannot be\n"
		"found (run), 2 usage error, 4 system error.\n");
}

/* The engine called name, or NULL. */
static const struct engine *find_engine(const char *name)
{
	size_t i;
	for (i = 0; i < NENGINES; i++)
		if (!strcmp(engines[i].name, name))
			return &engines[i];
	return NULL;
}

/* parse_i64_range into an int; 0, or -1. */
static int parse_range(const char *s, int lo, int hi, int *out)
{
	int64_t v;
	if (parse_i64_range(s, lo, hi, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* An API-call selection the collector knows, or NULL. */
static const char *api_set(const char *s)
{
	static const char *const sets[] = { "core", "all", "runtime", "driver" };
	size_t i;
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		if (!strcmp(s, sets[i]))
			return sets[i];
	return NULL;
}

/* A PC-sampling collection mode the collector knows, or NULL. */
static const char *pc_mode(const char *s)
{
	return !strcmp(s, "continuous") ? "continuous" : !strcmp(s, "serialized") ? "serialized" : NULL;
}

/* A --trace-window value that parses, or -1 after a message. */
static int check_window(const char *what, const char *s)
{
	int64_t on, every;
	const char *why;
	if (parse_trace_window(s, &on, &every, &why) == 0)
		return 0;
	return error("%s: invalid trace window '%s': %s", what, s, why);
}

/*
 * Parse the command line into o. Returns 0 to go on, 1 when --help or --version was answered,
 * or -1 after a usage message.
 */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "engine", required_argument, NULL, 'e' },
		{ "interval", required_argument, NULL, 'i' },
		{ "pc-period", required_argument, NULL, 'P' },
		{ "pc-mode", required_argument, NULL, 'M' },
		{ "api", required_argument, NULL, 'A' },
		{ "trace-window", required_argument, NULL, 'W' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;
	memset(o, 0, sizeof(*o));
	/* "+": options end at the first non-option, so PROGRAM's own options are left alone. */
	while ((c = getopt_long(argc, argv, "+:o:e:i:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->dir = optarg;
			break;
		case 'e':
			if (!(o->engine = find_engine(optarg))) {
				error("unknown engine '%s' (monitor, trace or pcsampling)", optarg);
				return -1;
			}
			break;
		case 'i':
			if (parse_range(optarg, 1, MAX_INTERVAL_MS, &o->interval_ms)) {
				error("invalid interval '%s' (1..%d ms)", optarg, MAX_INTERVAL_MS);
				return -1;
			}
			break;
		case 'P':
			if (parse_range(optarg, MIN_PC_PERIOD, MAX_PC_PERIOD, &o->pc_period)) {
				error("invalid PC sampling period '%s' (%d..%d: 2^N cycles)", optarg, MIN_PC_PERIOD,
				      MAX_PC_PERIOD);
				return -1;
			}
			break;
		case 'M':
			if (!(o->pc_mode = pc_mode(optarg))) {
				error("unknown PC sampling mode '%s' (continuous or serialized)", optarg);
				return -1;
			}
			break;
		case 'A':
			if (!(o->api = api_set(optarg))) {
				error("unknown API-call selection '%s' (core, all, runtime or driver)", optarg);
				return -1;
			}
			break;
		case 'W':
			if (check_window("--trace-window", optarg))
				return -1;
			o->window = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("gpuprof-collect %s\n", GPUPROF_VERSION);
			return 1;
		default:
			usage_bad_option(c, argv);
			return -1;
		}
	}
	if (optind >= argc || !*argv[optind]) {
		error("no program given (gpuprof-collect [options] -- PROGRAM [ARGS...])");
		return -1;
	}
	o->argv = argv + optind;
	return 0;
}

/* Fill in what the command line left open from inherited GPUPROF_* variables, then defaults. */
static int apply_env(struct opts *o)
{
	const char *v;
	if (!o->dir)
		o->dir = (v = getenv("GPUPROF_OUTPUT")) && *v ? v : DEFAULT_DIR;
	if (!o->engine) {
		v = getenv("GPUPROF_ENGINE");
		if (v && *v && !(o->engine = find_engine(v)))
			return error("GPUPROF_ENGINE: unknown engine '%s' (monitor, trace or pcsampling)", v);
		if (!o->engine)
			o->engine = find_engine("trace");
	}
	if (!o->interval_ms) {
		v = getenv("GPUPROF_INTERVAL_MS");
		if (v && *v && parse_range(v, 1, MAX_INTERVAL_MS, &o->interval_ms))
			return error("GPUPROF_INTERVAL_MS: invalid interval '%s' (1..%d ms)", v, MAX_INTERVAL_MS);
		if (!o->interval_ms)
			o->interval_ms = DEFAULT_INTERVAL_MS;
	}
	v = getenv("GPUPROF_PC_PERIOD");
	if (!o->pc_period && v && *v && parse_range(v, MIN_PC_PERIOD, MAX_PC_PERIOD, &o->pc_period))
		return error("GPUPROF_PC_PERIOD: invalid PC sampling period '%s' (%d..%d: 2^N cycles)", v,
			     MIN_PC_PERIOD, MAX_PC_PERIOD);
	v = getenv("GPUPROF_PC_MODE");
	if (!o->pc_mode && v && *v && !(o->pc_mode = pc_mode(v)))
		return error("GPUPROF_PC_MODE: unknown PC sampling mode '%s' (continuous or serialized)", v);
	v = getenv("GPUPROF_API");
	if (!o->api && v && *v && !(o->api = api_set(v)))
		return error("GPUPROF_API: unknown API-call selection '%s' (core, all, runtime or driver)", v);
	v = getenv("GPUPROF_TRACE_WINDOW");
	if (!o->window && v && *v) {
		if (check_window("GPUPROF_TRACE_WINDOW", v))
			return -1;
		o->window = v;
	}
	if (o->window && !o->engine->cupti)
		warning("--trace-window has no effect with the %s engine (it traces nothing)", o->engine->name);
	if ((o->pc_period || o->pc_mode) && strcmp(o->engine->name, "pcsampling"))
		warning("PC sampling settings have no effect with the %s engine", o->engine->name);
	return 0;
}

/* Exit status of a program that could not be executed, as a shell gives it. */
static int exec_status(int err)
{
	return err == ENOENT || err == ENOTDIR ? 127 : 126;
}

/* Create path and its missing parents, like mkdir -p; 0, or -1 with errno set. */
static int make_dirs(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path), i;
	struct stat st;
	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		buf[i] = path[i];
	}
	if (stat(path, &st))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* A random session id in UUID (version 4) shape, from /dev/urandom or, failing that, the clock. */
static void make_session_id(char *out, size_t size)
{
	unsigned char b[16];
	size_t got = 0, i;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && got < sizeof(b)) {
		ssize_t n = read(fd, b + got, sizeof(b) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (got < sizeof(b)) {
		/* splitmix64 over the clock and the pid: unique enough for one host */
		uint64_t x = (uint64_t)realtime_ns() ^ ((uint64_t)getpid() << 32);
		for (i = 0; i < sizeof(b); i++) {
			uint64_t z;
			if (i % 8 == 0) {
				x += 0x9e3779b97f4a7c15ULL;
				z = x;
				z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
				z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
				z ^= z >> 31;
				memcpy(b + i, &z, 8);
			}
		}
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
		 b[14], b[15]);
}

/*
 * The absolute path of libgpuprof.so into out: GPUPROF_LIBRARY, else <dir of this executable>/
 * ../lib/libgpuprof.so. Returns 0, or -1 when it does not exist (out then holds the path tried).
 */
static int find_library(char *out, size_t size)
{
	const char *env = getenv("GPUPROF_LIBRARY");
	char exe[PATH_MAX], guess[PATH_MAX + 32], *slash;
	ssize_t n;
	if (env && *env) {
		snprintf(guess, sizeof(guess), "%s", env);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		if ((slash = strrchr(exe, '/')))
			*slash = '\0';
		snprintf(guess, sizeof(guess), "%s/../lib/libgpuprof.so", n > 0 ? exe : ".");
	}
	if (size >= PATH_MAX && realpath(guess, out) && access(out, R_OK) == 0)
		return 0;
	snprintf(out, size, "%s", guess);
	return -1;
}

/* setenv that reports failure (only out of memory can make it fail). */
static int set_var(const char *name, const char *value)
{
	if (setenv(name, value, 1))
		return error("cannot set %s: %s", name, strerror(errno));
	return 0;
}

/* Find libgpuprof.so for an engine that needs it; without it fall back to monitor with one warning. */
static void resolve_engine(struct collect *c)
{
	if (c->o.engine->cupti && find_library(c->lib, sizeof(c->lib))) {
		warning("'%s' not found: running in monitor mode (no CUDA tracing)", c->lib);
		c->o.engine = find_engine("monitor");
	}
}

/* Set the program's environment (after resolve_engine and open_session); 0 or -1. */
static int setup_env(struct collect *c)
{
	char num[32];

	/* NVTX's injection too: the library hands it to the libcupti it is bound to (inject.c). */
	if (c->o.engine->cupti &&
	    (set_var("CUDA_INJECTION64_PATH", c->lib) || set_var("NVTX_INJECTION64_PATH", c->lib)))
		return -1;
	if (set_var("GPUPROF_SESSION_DIR", c->abs_dir) || set_var("GPUPROF_SESSION", c->id))
		return -1;
	snprintf(num, sizeof(num), "%lld", (long long)c->origin);
	if (set_var("GPUPROF_ORIGIN_NS", num) || set_var("GPUPROF_ENGINE", c->o.engine->name))
		return -1;
	snprintf(num, sizeof(num), "%d", c->o.interval_ms);
	if (set_var("GPUPROF_INTERVAL_MS", num) || set_var("GPUPROF_LAUNCHER", "1"))
		return -1;
	snprintf(num, sizeof(num), "%d", c->o.pc_period);
	if ((c->o.pc_period && set_var("GPUPROF_PC_PERIOD", num)) ||
	    (c->o.pc_mode && set_var("GPUPROF_PC_MODE", c->o.pc_mode)) ||
	    (c->o.api && set_var("GPUPROF_API", c->o.api)) ||
	    (c->o.window && set_var("GPUPROF_TRACE_WINDOW", c->o.window)))
		return -1;
	return 0;
}

/* Create the session directory and the launcher's wire file with its header; 0, or -1. */
static int open_session(struct collect *c)
{
	char path[PATH_MAX + 32], options[256], host[256];
	struct wire_header h;
	size_t len = strlen(c->o.dir);

	while (len > 1 && c->o.dir[len - 1] == '/')
		len--;
	if (make_dirs(c->o.dir))
		return error("cannot create '%s': %s", c->o.dir, strerror(errno));
	if ((size_t)snprintf(c->dir, sizeof(c->dir), "%.*s/%s", (int)len, c->o.dir, c->id) >= sizeof(c->dir))
		return error("'%s': path too long", c->o.dir);
	if (mkdir(c->dir, 0777))
		return error("cannot create '%s': %s", c->dir, strerror(errno));
	if (!realpath(c->dir, c->abs_dir))
		return error("'%s': %s", c->dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/%ld.ndjson", c->abs_dir, (long)getpid());
	if (gethostname(host, sizeof(host)))
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	snprintf(options, sizeof(options), "{\"interval_ms\":%d,\"engine\":\"%s\"%s%.64s%s}", c->o.interval_ms,
		 c->o.engine->name, c->o.window ? ",\"trace_window\":\"" : "", c->o.window ? c->o.window : "",
		 c->o.window ? "\"" : "");
	memset(&h, 0, sizeof(h));
	h.session = c->id;
	h.collector = COLLECTOR_NAME;
	h.program = c->o.argv[0];
	h.args = (const char *const *)(c->o.argv + 1);
	h.pid = getpid();
	h.ppid = getppid();
	h.hostname = host[0] ? host : NULL;
	h.engine = c->o.engine->name;
	h.options_json = options;
	h.origin_ns = c->origin;
	if (!(c->w = wire_open(path, &h)))
		return error("cannot create '%s': %s", path, strerror(errno));
	return 0;
}

/* Note a failed wire write; the program keeps running and the end of the run says so once. */
static void check_write(struct collect *c, int rc)
{
	if (rc && !c->write_failed)
		c->write_failed = errno ? errno : EIO;
}

/* One host sample and one sample per NVML device, added to the wire file. */
static void take_sample(struct collect *c)
{
	struct host_sample h;
	struct gpu_sample g;
	int i, n = sampler_gpus(c->s);
	int rc = sampler_host(c->s, &h);

	if (rc == 0) {
		check_write(c, sampler_write_host(c->s, c->w, &h));
	} else if (!c->host_failed) {
		char reason[64];
		c->host_failed = 1;
		snprintf(reason, sizeof(reason), "cannot read /proc/%ld/stat", (long)c->child);
		check_write(c, wire_error(c->w, h.ts_ns, "host", reason));
	}
	for (i = 0; i < n; i++)
		if (!sampler_gpu(c->s, i, &g))
			check_write(c, sampler_write_gpu(c->s, c->w, &g));
}

/*
 * Fork and exec the program with the signal mask `mask`. Returns 0 with c->child set; or the errno
 * of a failed exec (the child is reaped); or -1 when fork fails.
 */
static int spawn(struct collect *c, const sigset_t *mask)
{
	int fds[2], err = 0;
	ssize_t n;
	if (pipe2(fds, O_CLOEXEC))
		return error("cannot create a pipe: %s", strerror(errno));
	c->child = fork();
	if (c->child < 0) {
		close(fds[0]);
		close(fds[1]);
		return error("cannot fork: %s", strerror(errno));
	}
	if (c->child == 0) {
		/* The exec error travels through the close-on-exec pipe: nothing arrives on success. */
		close(fds[0]);
		sigprocmask(SIG_SETMASK, mask, NULL);
		execvp(c->o.argv[0], c->o.argv);
		err = errno;
		while (write(fds[1], &err, sizeof(err)) < 0 && errno == EINTR)
			;
		_exit(exec_status(err));
	}
	close(fds[1]);
	while ((n = read(fds[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(fds[0]);
	if (n == (ssize_t)sizeof(err) && err) {
		while (waitpid(c->child, NULL, 0) < 0 && errno == EINTR)
			;
		return err;
	}
	return 0;
}

/*
 * 1 when the program has ended (left unreaped, so its /proc entry can still be read). Orphans of its
 * tree that the launcher adopted as subreaper are reaped on the way.
 */
static int child_ended(pid_t child)
{
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
			return errno == ECHILD;
		if (si.si_pid == 0)
			return 0;
		if (si.si_pid == child)
			return 1;
		waitpid(si.si_pid, NULL, WNOHANG);
	}
}

/*
 * Sample every interval until the program ends, forwarding signals to it. Signals are blocked and
 * taken with sigtimedwait, so the wait for the next sample and the signals are one loop.
 */
static void monitor(struct collect *c, const sigset_t *wait_set)
{
	const int64_t interval = c->o.interval_ms * NS_PER_MS;
	int64_t next = now_ns(), last_flush = next - NS_PER_S;
	for (;;) {
		int64_t t;
		struct timespec ts;
		siginfo_t si;
		int sig;
		if (child_ended(c->child))
			return;
		t = now_ns();
		if (t >= next) {
			take_sample(c);
			/* At least once a second, so a killed launcher loses at most about that much. */
			if (t - last_flush >= NS_PER_S - interval / 2) {
				check_write(c, wire_flush(c->w));
				last_flush = t;
			}
			next += interval;
			if (next <= t)
				next = t + interval;
			continue;
		}
		ts.tv_sec = (time_t)((next - t) / NS_PER_S);
		ts.tv_nsec = (long)((next - t) % NS_PER_S);
		sig = sigtimedwait(wait_set, &si, &ts);
		/* A terminal's ^C (SI_KERNEL) already reached the program's process group: pass on only kill()s. */
		if (sig > 0 && sig != SIGCHLD && si.si_code != SI_KERNEL)
			kill(c->child, sig);
	}
}

/* The launcher's exit status for a wait() status, as a shell reports it. */
static int program_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_SYSTEM;
}

/* Run the whole session; returns the launcher's exit status. */
static int collect_run(struct opts *o)
{
	struct collect c;
	sigset_t wait_set, old_mask;
	const char *reason;
	int status = 0, rc, exit_code;
	int64_t lost;
	size_t i;

	memset(&c, 0, sizeof(c));
	c.o = *o;
	c.origin = realtime_ns();
	make_session_id(c.id, sizeof(c.id));
	resolve_engine(&c);
	if (open_session(&c))
		return EXIT_SYSTEM;
	if (setup_env(&c)) {
		wire_close(c.w, realtime_ns(), 0);
		return EXIT_SYSTEM;
	}
	sigemptyset(&wait_set);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&wait_set, forwarded[i]);
	sigaddset(&wait_set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &wait_set, &old_mask);
	/* Orphans of the program's tree come to the launcher, which keeps them in the tree (sampler.c). */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	rc = spawn(&c, &old_mask);
	if (rc) {
		char msg[PATH_MAX + 128];
		if (rc > 0) {
			snprintf(msg, sizeof(msg), "cannot run '%s': %s", c.o.argv[0], strerror(rc));
			exit_code = exec_status(rc);
		} else {
			snprintf(msg, sizeof(msg), "cannot start '%s': fork failed", c.o.argv[0]);
			exit_code = EXIT_SYSTEM;
		}
		if (rc > 0)
			error("%s", msg);
		check_write(&c, wire_error(c.w, realtime_ns(), "exec", msg));
		goto done;
	}
	if (!(c.s = sampler_open(c.child, 1)))
		out_of_memory(sizeof(struct sampler *));
	if ((reason = sampler_gpu_error(c.s)))
		check_write(&c, wire_error(c.w, realtime_ns(), "nvml", reason));
	monitor(&c, &wait_set);
	take_sample(&c);	/* the last one, while the program's zombie still shows its CPU time */
	while (waitpid(c.child, &status, 0) < 0 && errno == EINTR)
		;
	exit_code = program_status(status);
	sampler_close(c.s);
done:
	/* Signals stay blocked: a late ^C must not kill the launcher before the end record. */
	check_write(&c, wire_flush(c.w));
	lost = wire_lost(c.w);
	check_write(&c, wire_close(c.w, realtime_ns(), 1));
	if (c.write_failed)
		warning("could not write all samples to '%s' (%lld lost): %s", c.dir, (long long)lost,
			strerror(c.write_failed));
	if (!c.o.quiet)
		info("session: %s", c.dir);
	return exit_code;
}

int main(int argc, char **argv)
{
	struct opts o;
	int rc;

	util_init(argv[0]);
	if ((rc = parse_args(argc, argv, &o)))
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	if (env_flag("GPUPROF_DISABLED")) {
		execvp(o.argv[0], o.argv);
		rc = errno;
		error("cannot run '%s': %s", o.argv[0], strerror(rc));
		return exec_status(rc);
	}
	if (apply_env(&o))
		return EXIT_USAGE;
	return collect_run(&o);
}
