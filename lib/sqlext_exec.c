/*
 * kernel_exec: every kernel of a session with the API call that launched it, as an eponymous read-only
 * virtual table (see sqlext.h): one row per kernel, name_id by name_id (in table order within a name),
 *   session_id, pid, name_id, start_ns, dur_ns, api_ns, queue_ns
 * api_ns is the launch call's duration and queue_ns the kernel's start minus the call's end (negative when
 * the kernel started before the call returned); both NULL for a kernel without a call. The launch call is
 * the first API call with the kernel's process and correlation id, in table order (kernel_windows' rule;
 * a kernel with correlation id 0 or NULL has none). It is
 *   SELECT k.session_id, k.pid, k.name_id, k.start_ns, k.dur_ns, c.dur_ns, k.start_ns - c.end_ns
 *   FROM kernel_columns k LEFT JOIN api_columns c ON <c is k's first call> ORDER BY k.name_id
 * (tests/nsys_stats.py checks kernexec, built on it, against that join done in Python), joined here by a
 * hash of (pid, correlation id): 2.5 s for the 5M kernels of the bench session on a 2-core machine, where
 * SQLite's join took 17 s. Rows come in name_id order so that a GROUP BY
 * name_id over one session needs no sorter (xBestIndex says so). Compiled twice like lib/sqlext.c.
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { KE_SESSION, KE_PID, KE_NAME, KE_START, KE_DUR, KE_API, KE_QUEUE };
/* api_columns' columns, as sqlext_read gives a session's calls. */
enum { CALL_PID = 1, CALL_START = 2, CALL_CORR = 6, CALL_DUR = 7 };

static const struct vt_def exec_def = {
	.schema = "CREATE TABLE x(session_id INTEGER, pid INTEGER, name_id INTEGER, start_ns INTEGER, "
		  "dur_ns INTEGER, api_ns INTEGER, queue_ns INTEGER)",
};

struct ke_cursor {
	struct session_cursor s;	/* its rows: order[0..s.n) */
	int64_t *pid, *name, *start, *dur;	/* per kernel, in table order */
	int64_t *api, *queue;	/* per kernel; INT64_MIN without a call (api holds correlation ids until joined) */
	uint32_t *order;	/* the kernels by name_id, then table order */
	size_t alloc;
	/* The join: the distinct (pid, correlation id) of the kernels, each with its first call. */
	uint32_t *slots;	/* index + 1 into the keys, 0 empty; cap of them, a power of two */
	size_t cap, nkeys;
	int64_t *kpid, *kcorr, *kend, *kdur;	/* per key; kend INT64_MIN until a call claims it */
	uint32_t *key_of;	/* per kernel: its key, UINT32_MAX for none */
};

static void ke_free_join(struct ke_cursor *c)
{
	sqlite3_free(c->slots);
	sqlite3_free(c->kpid);
	sqlite3_free(c->kcorr);
	sqlite3_free(c->kend);
	sqlite3_free(c->kdur);
	sqlite3_free(c->key_of);
	c->slots = NULL;
	c->kpid = c->kcorr = c->kend = c->kdur = NULL;
	c->key_of = NULL;
	c->cap = c->nkeys = 0;
}

static void ke_free(struct ke_cursor *c)
{
	int64_t **a[] = { &c->pid, &c->name, &c->start, &c->dur, &c->api, &c->queue };
	size_t i;
	for (i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
		sqlite3_free(*a[i]);
		*a[i] = NULL;
	}
	sqlite3_free(c->order);
	c->order = NULL;
	c->alloc = 0;
	ke_free_join(c);
}

/* sqlext_read's callback for the kernels: appended to the per-kernel arrays (api takes the correlation id). */
static int ke_take_kernels(void *arg, const int64_t *const *col, size_t n)
{
	struct ke_cursor *c = arg;
	if (c->s.n + n > c->alloc) {
		int64_t **a[] = { &c->pid, &c->name, &c->start, &c->dur, &c->api, &c->queue };
		size_t alloc = 2 * (c->s.n + n) + 1024, i;
		if (alloc >= UINT32_MAX)
			return SQLITE_NOMEM;
		for (i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
			int64_t *p = sqlite3_realloc64(*a[i], alloc * sizeof(int64_t));
			if (!p)
				return SQLITE_NOMEM;
			*a[i] = p;
		}
		c->alloc = alloc;
	}
	memcpy(c->pid + c->s.n, col[KC_PID], n * sizeof(int64_t));
	memcpy(c->name + c->s.n, col[KC_NAME], n * sizeof(int64_t));
	memcpy(c->start + c->s.n, col[KC_START], n * sizeof(int64_t));
	memcpy(c->dur + c->s.n, col[KC_DUR], n * sizeof(int64_t));
	memcpy(c->api + c->s.n, col[KC_CORR], n * sizeof(int64_t));
	c->s.n += n;
	return SQLITE_OK;
}

static size_t ke_hash(int64_t pid, int64_t corr, size_t cap)
{
	uint64_t h = ((uint64_t)pid * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)corr * 0xC2B2AE3D27D4EB4FULL);
	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

/* The slot of key (pid, corr): its own, or the empty one where it would go. */
static size_t ke_slot(const struct ke_cursor *c, int64_t pid, int64_t corr)
{
	size_t j = ke_hash(pid, corr, c->cap);
	while (c->slots[j] && (c->kpid[c->slots[j] - 1] != pid || c->kcorr[c->slots[j] - 1] != corr))
		j = (j + 1) & (c->cap - 1);
	return j;
}

/* The kernels' keys into the hash (each kernel's in key_of). SQLITE_OK or SQLITE_NOMEM. */
static int ke_keys(struct ke_cursor *c)
{
	size_t i, n = c->s.n ? c->s.n : 1;
	for (c->cap = 16; c->cap < 2 * n; c->cap *= 2)
		;
	c->slots = sqlite3_malloc64(c->cap * sizeof(uint32_t));
	c->kpid = sqlite3_malloc64(n * sizeof(int64_t));
	c->kcorr = sqlite3_malloc64(n * sizeof(int64_t));
	c->kend = sqlite3_malloc64(n * sizeof(int64_t));
	c->kdur = sqlite3_malloc64(n * sizeof(int64_t));
	c->key_of = sqlite3_malloc64(n * sizeof(uint32_t));
	if (!c->slots || !c->kpid || !c->kcorr || !c->kend || !c->kdur || !c->key_of)
		return SQLITE_NOMEM;
	memset(c->slots, 0, c->cap * sizeof(uint32_t));
	for (i = 0; i < c->s.n; i++) {
		int64_t corr = c->api[i];
		size_t j;
		if (corr <= 0) {	/* no correlation id: launched by no call we know */
			c->key_of[i] = UINT32_MAX;
			continue;
		}
		j = ke_slot(c, c->pid[i], corr);
		if (!c->slots[j]) {
			c->kpid[c->nkeys] = c->pid[i];
			c->kcorr[c->nkeys] = corr;
			c->kend[c->nkeys] = INT64_MIN;
			c->slots[j] = (uint32_t)++c->nkeys;
		}
		c->key_of[i] = c->slots[j] - 1;
	}
	return SQLITE_OK;
}

/* sqlext_read's callback for the calls: the first call of each key claims it. */
static int ke_take_calls(void *arg, const int64_t *const *col, size_t n)
{
	struct ke_cursor *c = arg;
	size_t i;
	for (i = 0; i < n; i++) {
		int64_t corr = col[CALL_CORR][i];
		size_t j;
		uint32_t k;
		if (corr <= 0)
			continue;
		j = ke_slot(c, col[CALL_PID][i], corr);
		if (!(k = c->slots[j]) || c->kend[k - 1] != INT64_MIN)
			continue;
		c->kend[k - 1] = col[CALL_START][i] + col[CALL_DUR][i];
		c->kdur[k - 1] = col[CALL_DUR][i];
	}
	return SQLITE_OK;
}

static const int64_t *sort_names;	/* ke_cmp's names (qsort has no context argument) */

static int ke_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_names[x] != sort_names[y])
		return sort_names[x] < sort_names[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The kernels in name_id order, table order within a name: a counting sort when the ids are dense (string
 * ids of a session are), else qsort. SQLITE_OK or SQLITE_NOMEM.
 */
static int ke_order(struct ke_cursor *c)
{
	size_t i, n = c->s.n, span;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t *at;
	if (!(c->order = sqlite3_malloc64((n ? n : 1) * sizeof(uint32_t))))
		return SQLITE_NOMEM;
	for (i = 0; i < n; i++) {
		lo = c->name[i] < lo ? c->name[i] : lo;
		hi = c->name[i] > hi ? c->name[i] : hi;
	}
	if (!n)
		return SQLITE_OK;
	if ((uint64_t)hi - (uint64_t)lo >= 4 * (uint64_t)n + 65536) {
		for (i = 0; i < n; i++)
			c->order[i] = (uint32_t)i;
		sort_names = c->name;
		qsort(c->order, n, sizeof(uint32_t), ke_cmp);
		return SQLITE_OK;
	}
	span = (size_t)((uint64_t)hi - (uint64_t)lo) + 2;
	if (!(at = sqlite3_malloc64(span * sizeof(size_t))))
		return SQLITE_NOMEM;
	memset(at, 0, span * sizeof(size_t));
	for (i = 0; i < n; i++)
		at[(size_t)((uint64_t)c->name[i] - (uint64_t)lo) + 1]++;
	for (i = 1; i < span; i++)
		at[i] += at[i - 1];
	for (i = 0; i < n; i++)
		c->order[at[(size_t)((uint64_t)c->name[i] - (uint64_t)lo)]++] = (uint32_t)i;
	sqlite3_free(at);
	return SQLITE_OK;
}

/* Session sessions[at]'s kernels, joined to their calls and ordered. */
static int ke_session(struct session_cursor *sc)
{
	struct ke_cursor *c = (struct ke_cursor *)sc;
	sqlite3 *db = sqlext_vt_db(&sc->base);
	int64_t s = sc->sessions[sc->at];
	size_t i;
	int rc;
	ke_free(c);
	rc = sqlext_read(sc->base.pVtab, db, "main", s, 0,
			 1u << KC_PID | 1u << KC_NAME | 1u << KC_START | 1u << KC_DUR | 1u << KC_CORR, ke_take_kernels, c);
	if (rc == SQLITE_OK)
		rc = ke_keys(c);
	if (rc == SQLITE_OK)
		rc = sqlext_read(sc->base.pVtab, db, "main", s, 1,
				 1u << CALL_PID | 1u << CALL_START | 1u << CALL_CORR | 1u << CALL_DUR, ke_take_calls, c);
	if (rc == SQLITE_OK) {
		for (i = 0; i < sc->n; i++) {
			uint32_t k = c->key_of[i];
			if (k == UINT32_MAX || c->kend[k] == INT64_MIN) {
				c->api[i] = c->queue[i] = INT64_MIN;
			} else {
				c->api[i] = c->kdur[k];
				c->queue[i] = c->start[i] - c->kend[k];
			}
		}
		ke_free_join(c);
		rc = ke_order(c);
	}
	if (rc != SQLITE_OK) {
		ke_free(c);
		sc->n = 0;
		if (rc == SQLITE_NOMEM)
			rc = sqlext_vt_error(&sc->base, rc, "out of memory");
	}
	return rc;
}

/*
 * sqlext_vt_best_index, and the rows' order taken as given when it is what SQLite asks for: name_id within
 * one session (session_id = S), or session_id, name_id.
 */
static int ke_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	int rc = sqlext_vt_best_index(v, ix), k;
	const struct sqlite3_index_orderby *o = ix->aOrderBy;
	if (rc != SQLITE_OK)
		return rc;
	for (k = 0; k < ix->nOrderBy; k++)
		if (o[k].desc)
			return SQLITE_OK;
	if ((ix->nOrderBy == 1 && o[0].iColumn == KE_NAME && (ix->idxNum & 1)) ||
	    (ix->nOrderBy == 2 && o[0].iColumn == KE_SESSION && o[1].iColumn == KE_NAME))
		ix->orderByConsumed = 1;
	return SQLITE_OK;
}

static int ke_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct ke_cursor *c = sqlite3_malloc(sizeof(*c));
	(void)v;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->s.load = ke_session;
	*out = &c->s.base;
	return SQLITE_OK;
}

static int ke_close(sqlite3_vtab_cursor *cur)
{
	struct ke_cursor *c = (struct ke_cursor *)cur;
	sqlext_session_reset(&c->s);
	ke_free(c);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int ke_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	(void)idxstr;
	(void)argc;
	ke_free((struct ke_cursor *)cur);
	return sqlext_session_filter((struct session_cursor *)cur, idx & 1 ? argv[0] : NULL);
}

static int ke_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct ke_cursor *c = (struct ke_cursor *)cur;
	uint32_t i = c->order[c->s.i];
	int64_t v;
	switch (k) {
	case KE_SESSION: v = c->s.sessions[c->s.at]; break;
	case KE_PID: v = c->pid[i]; break;
	case KE_NAME: v = c->name[i]; break;
	case KE_START: v = c->start[i]; break;
	case KE_DUR: v = c->dur[i]; break;
	case KE_API: v = c->api[i]; break;
	default: v = c->queue[i]; break;
	}
	if (v != INT64_MIN || k < KE_API)
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;	/* NULL: no launch call */
}

static sqlite3_module ke_module = {
	.iVersion = 0,
	.xConnect = sqlext_vt_connect,
	.xBestIndex = ke_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = ke_open,
	.xClose = ke_close,
	.xFilter = ke_filter,
	.xNext = sqlext_session_next,
	.xEof = sqlext_session_eof,
	.xColumn = ke_column,
	.xRowid = sqlext_session_rowid,
};

int gpuprof_sqlite_exec(sqlite3 *db)
{
	return sqlite3_create_module(db, "kernel_exec", &ke_module, (void *)&exec_def);
}
