/*
 * Load libgpuprof.so the way the CUDA driver does (dlopen, then InitializeInjection) on a machine with
 * no GPU: it must return 1, twice, not crash, print nothing, and leave a session whose error records
 * say why tracing is off. tests/collector.py checks the session.
 *   test_inject LIBRARY
 * With a second argument, libgpuprof.so has found the stand-in libcupti (fake_cupti.c): after the
 * library's set-up, its driver plays a program's life (DESTROY 1: context A is destroyed before exit),
 * and NVTX's injection entry point is called with the table 0x5eed (the stand-in records what reached
 * it); after the library's exit handler its report is printed on stdout.
 *   test_inject LIBRARY DESTROY
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void (*report)(void);

/* Registered before InitializeInjection registers its own: runs after it. */
static void at_exit(void)
{
	if (report)
		report();
}

int main(int argc, char **argv)
{
	void *lib;
	int (*init)(void);
	void (*run)(int);
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: test_inject LIBRARY [DESTROY]\n");
		return 2;
	}
	atexit(at_exit);
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "test_inject: %s\n", dlerror());
		return 1;
	}
	*(void **)&init = dlsym(lib, "InitializeInjection");
	if (!init) {
		fprintf(stderr, "test_inject: no InitializeInjection: %s\n", dlerror());
		return 1;
	}
	if (argc == 3) {
		*(void **)&run = dlsym(lib, "fake_cupti_run");
		*(void **)&report = dlsym(lib, "fake_cupti_report");
		if (!run || !report) {
			fprintf(stderr, "test_inject: the stand-in libcupti was not loaded\n");
			return 1;
		}
	}
	if (init() != 1 || init() != 1) {
		fprintf(stderr, "test_inject: InitializeInjection did not return 1\n");
		return 1;
	}
	if (argc == 3) {
		int (*nvtx)(void *);
		*(void **)&nvtx = dlsym(lib, "InitializeInjectionNvtx2");
		if (!nvtx || nvtx((void *)0x5eed) != 1) {
			fprintf(stderr, "test_inject: InitializeInjectionNvtx2 missing or failed\n");
			return 1;
		}
		run(atoi(argv[2]));
	}
	return 0;	/* exit runs the library's atexit handler, which ends the session */
}
