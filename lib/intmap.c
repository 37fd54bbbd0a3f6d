#include "intmap.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static size_t slot(const struct intmap *m, int64_t key)
{
	size_t j = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 20) & (m->cap - 1);
	while (m->keys[j] && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	return j;
}

/* Store key in a map with room for it. */
static void put(struct intmap *m, int64_t key, int64_t val)
{
	size_t j = slot(m, key);
	if (!m->keys[j])
		m->used++;
	m->keys[j] = key;
	m->vals[j] = val;
}

int intmap_try_put(struct intmap *m, int64_t key, int64_t val)
{
	if ((m->used + 1) * 2 > m->cap) {
		struct intmap old = *m, grown = INTMAP_INIT;
		size_t i;
		grown.cap = old.cap ? old.cap * 2 : 256;
		grown.keys = calloc(grown.cap, sizeof(*grown.keys));
		grown.vals = calloc(grown.cap, sizeof(*grown.vals));
		if (!grown.keys || !grown.vals) {
			intmap_release(&grown);
			return -1;
		}
		for (i = 0; i < old.cap; i++)
			if (old.keys[i])
				put(&grown, old.keys[i], old.vals[i]);
		intmap_release(&old);
		*m = grown;
	}
	put(m, key, val);
	return 0;
}

void intmap_put(struct intmap *m, int64_t key, int64_t val)
{
	if (intmap_try_put(m, key, val))
		out_of_memory(m->cap * 2 * sizeof(*m->keys));
}

int intmap_get(const struct intmap *m, int64_t key, int64_t *val)
{
	size_t j;
	if (!m->cap || !key)
		return 0;
	j = slot(m, key);
	if (!m->keys[j])
		return 0;
	*val = m->vals[j];
	return 1;
}

void intmap_release(struct intmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
