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

void intmap_put(struct intmap *m, int64_t key, int64_t val)
{
	size_t j;
	if ((m->used + 1) * 2 > m->cap) {
		struct intmap old = *m;
		size_t i;
		m->cap = old.cap ? old.cap * 2 : 256;
		m->keys = xcalloc(m->cap, sizeof(*m->keys));
		m->vals = xcalloc(m->cap, sizeof(*m->vals));
		m->used = 0;
		for (i = 0; i < old.cap; i++)
			if (old.keys[i])
				intmap_put(m, old.keys[i], old.vals[i]);
		intmap_release(&old);
	}
	j = slot(m, key);
	if (!m->keys[j])
		m->used++;
	m->keys[j] = key;
	m->vals[j] = val;
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
