/*
 * names: how names are shown and folded. --short gives Nsight-style base names (no return type,
 * template arguments or parameters: "void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)"
 * becomes "vectorized_elementwise_kernel"); --group NAME=RE folds every name matching the PCRE2
 * expression RE into the family NAME (first matching group wins; applied after --short).
 *
 * Ownership: a struct fold owns its names; fold_release frees them.
 */
#ifndef GPUPROF_NAMES_H
#define GPUPROF_NAMES_H

#include <sqlite3.h>
#include <stdint.h>
#include "analysis.h"
#include "intmap.h"
#include "symname.h"
#include "util.h"

/* The name as the options show it (short, grouped) into out. 0, or -1 on a bad --group. */
int name_fold(const struct analysis_opts *o, const char *name, struct buf *out);
/* 1 when the options change names at all. */
int names_folded(const struct analysis_opts *o);

/* The session's string ids mapped to folded names, each distinct folded name a key from 1. */
struct fold {
	struct intmap key;	/* string id + 1 -> key */
	char **names;		/* names[key - 1] */
	size_t n, alloc;
};

int fold_load(sqlite3 *db, const struct analysis_opts *o, struct fold *f);
/* Key of string id, or 0 when the id is unknown. */
int64_t fold_key(void *f, int64_t id);
const char *fold_name(const struct fold *f, int64_t key);
void fold_release(struct fold *f);

#endif
