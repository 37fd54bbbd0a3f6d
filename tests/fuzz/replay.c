/*
 * A fuzz target without libFuzzer, for `make test`: built by the normal compiler with the target's source
 * and run from the source root, it gives every file of tests/fuzz/seeds-NAME and tests/fuzz/corpus-NAME
 * (or of the directories named) to LLVMFuzzerTestOneInput once. A crash fails the suite; otherwise it
 * prints "fuzz_NAME: N passed, 0 failed".
 *   build/tests/fuzz_NAME [DIR...]
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run one file; 0, or -1 when it cannot be read. */
static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t len = 0, cap = 0, got;
	if (!f)
		return -1;
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			if (!(data = realloc(data, cap)))
				abort();
		}
		got = fread(data + len, 1, cap - len, f);
		len += got;
	} while (got);
	fclose(f);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 0;
}

/* Run every file of dir in name order; how many ran, -1 when a file could not be read. */
static int run_dir(const char *dir, int *failed)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), i, ran = 0;
	if (n < 0)
		return 0;	/* (a target may have no corpus yet) */
	for (i = 0; i < n; i++) {
		char path[4096];
		if (names[i]->d_name[0] != '.' && strcmp(names[i]->d_name, "README.md")) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			if (run_file(path)) {
				fprintf(stderr, "%s: cannot read\n", path);
				(*failed)++;
			} else {
				ran++;
			}
		}
		free(names[i]);
	}
	free(names);
	return ran;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *short_name = strncmp(name, "fuzz_", 5) ? name : name + 5;
	char dir[256];
	int passed = 0, failed = 0, i;
	if (argc > 1) {
		for (i = 1; i < argc; i++)
			passed += run_dir(argv[i], &failed);
	} else {
		snprintf(dir, sizeof(dir), "tests/fuzz/seeds-%s", short_name);
		passed += run_dir(dir, &failed);
		snprintf(dir, sizeof(dir), "tests/fuzz/corpus-%s", short_name);
		passed += run_dir(dir, &failed);
	}
	if (!passed && !failed) {
		fprintf(stderr, "%s: no inputs (run it from the source root)\n", name);
		failed = 1;
	}
	printf("%s: %d passed, %d failed\n", name, passed, failed);
	return failed != 0;
}
