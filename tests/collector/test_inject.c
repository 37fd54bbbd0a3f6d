/*
 * Load libgpuprof.so the way the CUDA driver does (dlopen, then InitializeInjection) on a machine with
 * no GPU: it must return 1, twice, not crash, print nothing, and leave a session whose error records
 * say why tracing is off. tests/collector.py checks the session.
 *   test_inject LIBRARY
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *lib;
	int (*init)(void);
	if (argc != 2) {
		fprintf(stderr, "usage: test_inject LIBRARY\n");
		return 2;
	}
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
	if (init() != 1 || init() != 1) {
		fprintf(stderr, "test_inject: InitializeInjection did not return 1\n");
		return 1;
	}
	return 0;	/* exit runs the library's atexit handler, which ends the session */
}
