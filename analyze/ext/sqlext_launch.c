/*
 * kernel_launches: the launch configurations of sessions' kernels as an eponymous read-only virtual table
 * (see sqlext.h): one row per session, process, device, kernel name and launch configuration, with how
 * many kernels ran so and their summed duration. It is
 *   SELECT session_id, pid, device_id, name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z,
 *          registers, static_smem, dynamic_smem, shared_mem, count(*), sum(dur_ns)
 *   FROM kernel_columns GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14
 * (tests/vtab.py checks), grouped here with a hash table instead of SQLite's sorter: 0.2 s for the 5M
 * kernels of the bench session, where the GROUP BY takes seconds. Compiled twice like analyze/ext/sqlext.c.
 *
 * Accelerators of plain-SQL references: analyze/ref/kernel_launches.sql (tests/refs.py checks they agree).
 * Measured on the 5M-kernel bench session in the sqlite3 shell (C best of 3, reference one run, 2 shared cores
 * under load, 2026-11-28): kernel_launches 0.99 s against 46.45 s (47x).
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"

#include <stdint.h>
#include <string.h>

/* The grouping key: kernel_columns' pid, device_id, name_id and the ten launch columns, in this order. */
static const int key_cols[] = {
	KC_PID, KC_DEV, KC_NAME, KC_GRID_X, KC_GRID_Y, KC_GRID_Z, KC_BLOCK_X, KC_BLOCK_Y, KC_BLOCK_Z, KC_REGS,
	KC_SSMEM, KC_DSMEM, KC_SMEM,
};
#define NKEY ((int)(sizeof(key_cols) / sizeof(key_cols[0])))
#define NLAUNCH 10	/* the launch columns at the end of the key, INT64_MIN for NULL */

enum { KL_SESSION, KL_KEY, KL_CALLS = KL_KEY + NKEY, KL_TOTAL, KL_COUNT };

static const struct vt_def launches_def = {
	.schema = "CREATE TABLE x(session_id INTEGER, pid INTEGER, device_id INTEGER, name_id INTEGER, "
		  "grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, "
		  "registers INTEGER, static_smem INTEGER, dynamic_smem INTEGER, shared_mem INTEGER, calls INTEGER, "
		  "total_ns INTEGER)",
};

struct launch {
	int64_t key[NKEY];
	int64_t calls, total;
};

struct kl_cursor {
	struct session_cursor s;	/* its rows: v[0..s.n) */
	struct launch *v;	/* the current session's configurations */
	size_t alloc;
	uint32_t *slots;	/* index + 1 into v, 0 empty; cap of them, a power of two */
	size_t cap;
};

static uint64_t launch_hash(const int64_t *key)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;
	for (i = 0; i < NKEY; i++)
		h = (h ^ (uint64_t)key[i]) * 0x100000001b3ULL;
	return h ^ (h >> 31);
}

/* Rebuild the slots at capacity cap. SQLITE_OK or SQLITE_NOMEM. */
static int kl_rehash(struct kl_cursor *c, size_t cap)
{
	uint32_t *slots = sqlite3_malloc64(cap * sizeof(*slots));
	size_t i;
	if (!slots)
		return SQLITE_NOMEM;
	memset(slots, 0, cap * sizeof(*slots));
	for (i = 0; i < c->s.n; i++) {
		size_t j = (size_t)launch_hash(c->v[i].key) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = (uint32_t)(i + 1);
	}
	sqlite3_free(c->slots);
	c->slots = slots;
	c->cap = cap;
	return SQLITE_OK;
}

/* Count a kernel of configuration key lasting dur. SQLITE_OK or SQLITE_NOMEM. */
static int kl_add(struct kl_cursor *c, const int64_t *key, int64_t dur)
{
	size_t j = (size_t)launch_hash(key) & (c->cap - 1);
	struct launch *e;
	while (c->slots[j] && memcmp(c->v[c->slots[j] - 1].key, key, sizeof(e->key)))
		j = (j + 1) & (c->cap - 1);
	if (!c->slots[j]) {
		if (c->s.n == c->alloc) {
			size_t alloc = c->alloc ? 2 * c->alloc : 1024;
			struct launch *v = sqlite3_realloc64(c->v, alloc * sizeof(*v));
			if (!v || alloc >= UINT32_MAX)
				return SQLITE_NOMEM;
			c->v = v;
			c->alloc = alloc;
		}
		e = &c->v[c->s.n];
		memcpy(e->key, key, sizeof(e->key));
		e->calls = e->total = 0;
		c->slots[j] = (uint32_t)++c->s.n;
		if (2 * c->s.n > c->cap && kl_rehash(c, 2 * c->cap) != SQLITE_OK)
			return SQLITE_NOMEM;
	} else {
		e = &c->v[c->slots[j] - 1];
	}
	e->calls++;
	e->total += dur;
	return SQLITE_OK;
}

/* sqlext_kernels' callback: n kernels into the groups. */
static int kl_block(void *arg, const int64_t *const *col, size_t n)
{
	struct kl_cursor *c = arg;
	int64_t key[NKEY];
	size_t i;
	int k, rc;
	for (i = 0; i < n; i++) {
		for (k = 0; k < NKEY; k++)
			key[k] = col[key_cols[k]][i];
		if ((rc = kl_add(c, key, col[KC_DUR][i])) != SQLITE_OK)
			return sqlext_vt_error(&c->s.base, rc, "out of memory");
	}
	return SQLITE_OK;
}

/* The configurations of session sessions[at] into c->v. */
static int kl_session(struct session_cursor *sc)
{
	struct kl_cursor *c = (struct kl_cursor *)sc;
	unsigned cols = 1u << KC_DUR;
	int k, rc;
	if ((rc = kl_rehash(c, 1024)) != SQLITE_OK)
		return sqlext_vt_error(&sc->base, rc, "out of memory");
	for (k = 0; k < NKEY; k++)
		cols |= 1u << key_cols[k];
	return sqlext_kernels(sc->base.pVtab, sqlext_vt_db(&sc->base), sc->sessions[sc->at], cols, kl_block, c);
}

static int kl_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct kl_cursor *c = sqlite3_malloc(sizeof(*c));
	(void)v;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->s.load = kl_session;
	*out = &c->s.base;
	return SQLITE_OK;
}

static void kl_reset(struct kl_cursor *c)
{
	sqlext_session_reset(&c->s);
	sqlite3_free(c->v);
	sqlite3_free(c->slots);
	c->v = NULL;
	c->slots = NULL;
	c->alloc = c->cap = 0;
}

static int kl_close(sqlite3_vtab_cursor *cur)
{
	kl_reset((struct kl_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int kl_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	(void)idxstr;
	(void)argc;
	kl_reset((struct kl_cursor *)cur);
	return sqlext_session_filter((struct session_cursor *)cur, idx & 1 ? argv[0] : NULL);
}

static int kl_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct kl_cursor *c = (struct kl_cursor *)cur;
	const struct launch *e = &c->v[c->s.i];
	int64_t v;
	if (k == KL_SESSION)
		v = c->s.sessions[c->s.at];
	else if (k == KL_CALLS)
		v = e->calls;
	else if (k == KL_TOTAL)
		v = e->total;
	else if ((v = e->key[k - KL_KEY]) == INT64_MIN && k - KL_KEY >= NKEY - NLAUNCH)
		return SQLITE_OK;	/* NULL */
	sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static sqlite3_module kl_module = {
	.iVersion = 0,
	.xConnect = sqlext_vt_connect,
	.xBestIndex = sqlext_vt_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = kl_open,
	.xClose = kl_close,
	.xFilter = kl_filter,
	.xNext = sqlext_session_next,
	.xEof = sqlext_session_eof,
	.xColumn = kl_column,
	.xRowid = sqlext_session_rowid,
};

int gpuprof_sqlite_launches(sqlite3 *db)
{
	return sqlite3_create_module(db, "kernel_launches", &kl_module, (void *)&launches_def);
}
