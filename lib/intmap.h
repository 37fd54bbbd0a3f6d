/*
 * intmap: an open-addressing hash map from int64 keys to int64 values, for id translation tables
 * (a file's string ids to database ids, declared-id sets). Key 0 cannot be stored (it marks empty
 * slots); callers map ids that are positive. The map owns its arrays; intmap_release frees them.
 */
#ifndef GPUPROF_INTMAP_H
#define GPUPROF_INTMAP_H

#include <stddef.h>
#include <stdint.h>

struct intmap {
	int64_t *keys, *vals;
	size_t cap, used;
};

#define INTMAP_INIT { NULL, NULL, 0, 0 }

/* Set key to val; aborts when out of memory (util.h's x* rule). */
void intmap_put(struct intmap *m, int64_t key, int64_t val);
/* intmap_put that fails soft, for libgpuprof.so: 0, or -1 out of memory with the map as it was. */
int intmap_try_put(struct intmap *m, int64_t key, int64_t val);
/* 1 and *val when key is present, else 0. */
int intmap_get(const struct intmap *m, int64_t key, int64_t *val);
void intmap_release(struct intmap *m);

#endif
