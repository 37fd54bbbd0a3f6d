/*
 * user: the analyses users write (README "Your own analyses"). A user's module is an SQL file with the
 * shipped modules' header (analyze/module.h): gpuprof-analyze --sql FILE runs one, gpuprof-report --sql
 * FILE adds one as a section, and the directories GPUPROF_ANALYSES names (colon-separated) add modules by
 * name (NAME.sql). Their options are bound as :NAME (script_bind); their gate is generic: given, it binds
 * :GATE and every row whose result column `_fail` is true fails it.
 *
 * Ownership: modules, their analyses and their texts live until exit (user_load never frees them).
 */
#ifndef GPUPROF_USER_H
#define GPUPROF_USER_H

#include "analysis.h"
#include "module.h"

struct user_module {
	const char *path;		/* the file */
	const struct analysis *a;	/* what it runs as (analysis_from_text) */
	struct module m;		/* its header */
};

/* The module in file path. NULL after a message: "cannot read FILE: why", or "FILE:LINE: what". */
const struct user_module *user_load(const char *path);
/*
 * The module called name: NAME.sql in the first of GPUPROF_ANALYSES's directories that has one. NULL
 * when none has (*failed 0, no message), or after a message when it does not load (*failed 1).
 */
const struct user_module *user_find(const char *name, int *failed);
/*
 * The modules of GPUPROF_ANALYSES's directories (files NAME.sql, by directory, then name), loaded into
 * *v (an array the caller frees; the modules stay): those that do not load are left out, after their
 * message when say. Their count.
 */
int user_scan(const struct user_module *const **v, int say);

/*
 * The generic gate of u's tables ts[from..]: the rows whose `_fail` is true (not 0 or NULL) fail it;
 * the verdict into line ("long_kernels: 3 of 12 rows fail --max-ns=5000: FAIL"); 1 when it failed.
 */
int user_judge(const struct tables *ts, int from, const struct user_module *u, const char *value, char *line,
	       size_t n);
/* Take the `_fail` columns out of tables ts[from..] (a verdict, not a figure to show). */
void user_drop_fail(const struct tables *ts, int from);

/* A module option's flag name: "min_ns" as "min-ns", into buf (n bytes). */
void user_flag_name(char *buf, size_t n, const char *param);

#endif
