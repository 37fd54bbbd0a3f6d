/*
 * A CUDA program's life under libgpuprof.so without a GPU: "cuInit" loads CUDA_INJECTION64_PATH and calls
 * InitializeInjection as the driver does; the stand-in libcupti (fake_cupti.c, through LD_LIBRARY_PATH)
 * then delivers the workload's kernel and memcpy records (fake_cupti_work, LIFE_PER_BUFFER records to a
 * buffer, 100 by default). tests/collector.py runs each mode and checks the session and the exit status.
 *   life MODE ARGS...   (modes below; K kernels, M memcpys, S the exit status)
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void (*work_fn)(int kernels, int memcpys, int per_buffer);
static void (*timeline_fn)(int ms, int every_us, int long_ms);
static void (*timeline_report)(void);
static uint32_t (*oom_fn)(int kept);

/* What the driver does at cuInit: load the injection library and call it. 0, or -1 when it cannot. */
static int cuda_init(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	int (*init)(void);
	void *lib;
	if (!path || !(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
		return -1;
	*(void **)&init = dlsym(lib, "InitializeInjection");
	*(void **)&work_fn = dlsym(lib, "fake_cupti_work");
	*(void **)&timeline_fn = dlsym(lib, "fake_cupti_timeline");
	*(void **)&timeline_report = dlsym(lib, "fake_cupti_timeline_report");
	*(void **)&oom_fn = dlsym(lib, "fake_cupti_oom");
	if (!init || !work_fn || !oom_fn || init() != 1)
		return -1;
	return 0;
}

static void work(int kernels, int memcpys)
{
	const char *s = getenv("LIFE_PER_BUFFER");
	work_fn(kernels, memcpys, s ? atoi(s) : 100);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* K M S: deliver the workload, exit with S. */
static int run_work(char **a)
{
	if (cuda_init())
		return 120;
	work(atoi(a[0]), atoi(a[1]));
	return atoi(a[2]);
}

/*
 * N K M S: deliver the workload, then fork N children and wait for them. Even children initialise CUDA
 * again (their driver calls InitializeInjection in the child) and deliver the workload; odd ones only
 * compute. Child i exits with status i % 50 + 1 (odd ones through _exit); any other status makes the
 * parent exit with 121.
 */
static int run_fork(char **a)
{
	int n = atoi(a[0]), k = atoi(a[1]), m = atoi(a[2]), i, bad = 0;
	pid_t *pids = calloc((size_t)n, sizeof(*pids));
	if (!pids || cuda_init())
		return 120;
	work(k, m);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			volatile double x = 0;
			long j;
			for (j = 0; j < 200000; j++)
				x += (double)j * 0.5;
			if (i % 2)
				_exit(i % 50 + 1);
			if (cuda_init())
				_exit(122);
			work(k, m);
			exit(i % 50 + 1);
		}
		if (pids[i] < 0)
			bad++;
		if (i % 10 == 0)
			work(k / 10, m / 10);	/* the parent keeps working meanwhile */
	}
	for (i = 0; i < n; i++) {
		int st;
		if (pids[i] > 0 && (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
				    WEXITSTATUS(st) != i % 50 + 1)) {
			fprintf(stderr, "life: child %d ended with status 0x%x\n", i, st);
			bad++;
		}
	}
	free(pids);
	return bad ? 121 : atoi(a[3]);
}

/*
 * K M S: deliver the workload, wait for the library's writer to flush it (1 s), then exec "life work K M S":
 * the same process, a new program.
 */
static int run_exec(char **a)
{
	char name[] = "life", mode[] = "work";
	char *argv[] = { name, mode, a[0], a[1], a[2], NULL };
	if (cuda_init())
		return 120;
	work(atoi(a[0]), atoi(a[1]));
	sleep_ms(1300);
	execv("/proc/self/exe", argv);
	return 123;
}

/* K M: deliver the workload every 5 ms until killed; "ready" on stdout after the first. */
static int run_stream(char **a)
{
	int first = 1;
	if (cuda_init())
		return 120;
	for (;;) {
		work(atoi(a[0]), atoi(a[1]));
		if (first) {
			printf("ready\n");
			fflush(stdout);
			first = 0;
		}
		sleep_ms(5);
	}
}

/* K M S: close stdout and stderr first, deliver the workload, print to both (nowhere), exit with S. */
static int run_closed(char **a)
{
	int i;
	close(1);
	close(2);
	if (cuda_init())
		return 120;
	work(atoi(a[0]), atoi(a[1]));
	for (i = 0; i < 100; i++) {
		printf("life: stdout is closed\n");
		fflush(stdout);
		if (write(2, "life: stderr is closed\n", 23) < 0)
			continue;
	}
	return atoi(a[2]);
}

/* After the library's exit handler (registered before it): what the timeline launched and recorded. */
static void at_exit_report(void)
{
	if (timeline_report)
		timeline_report();
}

/*
 * MS US LONG: a workload over MS milliseconds (fake_cupti_timeline: a kernel every US microseconds, every
 * 50th LONG ms long; NVTX ranges), then exit 0; the stand-in's report on stdout after the library's exit.
 */
static int run_timeline(char **a)
{
	atexit(at_exit_report);
	if (cuda_init() || !timeline_fn)
		return 120;
	timeline_fn(atoi(a[0]), atoi(a[1]), atoi(a[2]));
	return 0;
}

/*
 * K M N: deliver the workload, then allocations that fail for want of memory while CUPTI holds N kernel
 * records (fake_cupti_oom); print "thread T" (the failing thread as CUPTI names it) and die of SIGKILL at
 * once, as a program killed right after its out-of-memory error.
 */
static int run_oom(char **a)
{
	uint32_t thread;
	if (cuda_init())
		return 120;
	work(atoi(a[0]), atoi(a[1]));
	thread = oom_fn(atoi(a[2]));
	printf("thread %u\n", (unsigned)thread);
	fflush(stdout);
	kill(getpid(), SIGKILL);
	return 124;
}

static const struct mode {
	const char *name;
	int nargs;
	int (*run)(char **args);
} modes[] = {
	{ "work", 3, run_work },
	{ "fork", 4, run_fork },
	{ "exec", 3, run_exec },
	{ "stream", 2, run_stream },
	{ "closed", 3, run_closed },
	{ "timeline", 3, run_timeline },
	{ "oom", 3, run_oom },
};

int main(int argc, char **argv)
{
	size_t i;
	for (i = 0; argc > 1 && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name) && argc == modes[i].nargs + 2)
			return modes[i].run(argv + 2);
	fprintf(stderr, "usage: life work|fork|exec|stream|closed|timeline|oom ARGS... (see tests/collector/life.c)\n");
	return 2;
}
