#include "stats.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct group {
	int64_t key;
	int64_t *v;
	size_t n, alloc;
};

static int cmp_total_desc(const void *a, const void *b)
{
	const struct dstats *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

void stats_sort(struct dstats *s, size_t n)
{
	xqsort(s, n, sizeof(*s), cmp_total_desc);
}

int stats_by_key(sqlite3_stmt *st, int64_t (*map)(void *ctx, int64_t key), void *ctx, struct dstats **out,
		 size_t *nout)
{
	int64_t raw_last = 0, mapped_last = 0;
	int have_last = 0;
	struct group *g = NULL;
	size_t ng = 0, galloc = 0, cap = 256, i, last = SIZE_MAX;
	size_t *slots = xmalloc(cap * sizeof(*slots));	/* hash of key -> group index + 1 */
	int rc;

	memset(slots, 0, cap * sizeof(*slots));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t key = sqlite3_column_int64(st, 0), val = sqlite3_column_int64(st, 1);
		struct group *gr;
		if (map) {
			if (!have_last || key != raw_last) {
				raw_last = key;
				mapped_last = map(ctx, key);
				have_last = 1;
			}
			key = mapped_last;
		}
		if (last == SIZE_MAX || g[last].key != key) {
			size_t j = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
			while (slots[j] && g[slots[j] - 1].key != key)
				j = (j + 1) & (cap - 1);
			if (!slots[j]) {
				ALLOC_GROW(g, ng + 1, galloc);
				memset(&g[ng], 0, sizeof(g[ng]));
				g[ng].key = key;
				slots[j] = ++ng;
				if (ng * 2 > cap) {
					size_t k;
					free(slots);
					cap *= 2;
					slots = xcalloc(cap, sizeof(*slots));
					for (k = 0; k < ng; k++) {
						size_t h = (size_t)(((uint64_t)g[k].key * 0x9E3779B97F4A7C15ULL) >> 17) &
							   (cap - 1);
						while (slots[h])
							h = (h + 1) & (cap - 1);
						slots[h] = k + 1;
					}
					last = ng - 1;
				} else {
					last = slots[j] - 1;
				}
			} else {
				last = slots[j] - 1;
			}
		}
		gr = &g[last];
		if (gr->n == gr->alloc)
			ALLOC_GROW(gr->v, gr->n + 1, gr->alloc);
		gr->v[gr->n++] = val;
	}
	free(slots);
	if (rc != SQLITE_DONE) {
		error("sqlite: %s", sqlite3_errmsg(sqlite3_db_handle(st)));
		for (i = 0; i < ng; i++)
			free(g[i].v);
		free(g);
		return -1;
	}
	*out = xcalloc(ng ? ng : 1, sizeof(**out));
	for (i = 0; i < ng; i++) {
		stats_of(g[i].v, g[i].n, &(*out)[i]);
		(*out)[i].key = g[i].key;
		free(g[i].v);
	}
	free(g);
	stats_sort(*out, ng);
	*nout = ng;
	return 0;
}

void named_stats_free(struct named_stats *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}
