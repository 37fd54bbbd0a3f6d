/*
 * gpuprof: git-style dispatcher. `gpuprof ingest ...` runs `gpuprof-ingest ...` from the directory
 * this program lives in, else from PATH.
 */
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	const char *help;
} commands[] = {
	{ "ingest", "load profiles (gpuprof sessions, PyTorch traces, nsys exports) into session.db" },
	{ "analyze", "run one analysis over session.db (gpuprof analyze --list)" },
	{ "report", "render the whole picture: text, html, csv, xlsx, json, md" },
	{ "export", "write sessions as partitioned files for a warehouse (ClickHouse, PostgreSQL, ...)" },
	{ "collect", "run a CUDA program with the collector injected" },
};

static void usage(FILE *out)
{
	size_t i;
	fprintf(out, "usage: gpuprof COMMAND [ARGS]\n\nCommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n'gpuprof help COMMAND' (or 'gpuprof COMMAND --help') describes each.\n");
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 64], prog[64];
	ssize_t n;
	size_t i;

	util_init(argv[0]);
	/* "gpuprof help COMMAND" is "gpuprof COMMAND --help", as git has it. */
	if (argc == 3 && !strcmp(argv[1], "help")) {
		static char help[] = "--help";
		argv[1] = argv[2];
		argv[2] = help;
	}
	if (argc > 3 && !strcmp(argv[1], "help")) {
		error("'gpuprof help' takes one command (see gpuprof --help)");
		return EXIT_USAGE;
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("gpuprof %s\n", GPUPROF_VERSION);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, argv[1]))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		error("'%s' is not a gpuprof command (see gpuprof --help)", argv[1]);
		return EXIT_USAGE;
	}
	snprintf(prog, sizeof(prog), "gpuprof-%s", argv[1]);
	argv[1] = prog;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;
		self[n] = '\0';
		if ((slash = strrchr(self, '/'))) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/%s", self, prog);
			if (!access(path, X_OK))
				execv(path, argv + 1);
		}
	}
	execvp(prog, argv + 1);
	error("cannot run '%s': %s", prog, strerror(errno));
	return EXIT_SYSTEM;
}
