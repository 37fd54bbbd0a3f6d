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
 * (tests/nsys_stats.py checks kernexec, built on it, against that join done in Python), joined here by
 * (pid, correlation id): when each process's ids are dense (CUPTI numbers them up per process), each
 * call is kept in a slot indexed by its id (8 bytes of end and 8 of duration per id), else the kernels'
 * keys go in a hash that their calls are looked up in. kernexec takes 1.4 s on the 5M-kernel bench session (2 cores), where
 * SQLite's join alone took 17 s and the hash 2.5 s. Rows come in name_id order so that a GROUP BY
 * name_id over one session needs no sorter (xBestIndex says so). Compiled twice like analyze/ext/sqlext.c.
 *
 * Accelerators of plain-SQL references: analyze/ref/{kernel_exec,kernel_exec_summary}.sql (tests/refs.py checks
 * they agree). Measured on the 5M-kernel bench session in the sqlite3 shell (C best of 3, reference one run, 2
 * shared cores under load, 2026-11-28): kernel_exec 14.40 s against 67.07 s (5x); kernel_exec_summary 2.50 s
 * against 57.48 s (23x). kernel_exec_summary stays a table of the whole grouping, not a join in C and grouping
 * in SQL: with it gpuprof-analyze kernexec takes 5.7 s there (best of 3, same load), over its 1 s target
 * already, and the grouping in SQL takes ten times longer (analyze/ref/kernel_exec_summary.sql).
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"

#include "dstats.h"

#include <math.h>
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
	/*
	 * Or, when each process's correlation ids are dense (CUPTI counts them up per process), no keys: the
	 * first call of process p with id x, dlo[p] <= x <= dhi[p], in slot doff[p] + x - dlo[p] of dend
	 * and ddur (INT64_MIN in dend: none yet). A lookup is then one memory access where the hash took three
	 * (45% of kernexec's time), and the slots take 16 bytes an id where keys took 36 a kernel and more.
	 */
	int64_t *dpid, *dlo, *dhi;	/* per process of the kernels; NULL in hash mode */
	size_t *doff, ndp, dlast;
	int64_t *dend, *ddur;	/* per slot: the call's end and duration; NULL in hash mode */
};

static void ke_free_join(struct ke_cursor *c)
{
	sqlite3_free(c->dpid);
	sqlite3_free(c->dlo);
	sqlite3_free(c->dhi);
	sqlite3_free(c->doff);
	sqlite3_free(c->dend);
	sqlite3_free(c->ddur);
	c->dpid = c->dlo = c->dhi = NULL;
	c->doff = NULL;
	c->dend = c->ddur = NULL;
	c->ndp = c->dlast = 0;
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

/* Process pid's index among the direct mode's, or ndp when it has none. */
static size_t ke_dproc(struct ke_cursor *c, int64_t pid)
{
	size_t p;
	if (c->dlast < c->ndp && c->dpid[c->dlast] == pid)
		return c->dlast;
	for (p = 0; p < c->ndp && c->dpid[p] != pid; p++)
		;
	if (p < c->ndp)
		c->dlast = p;
	return p;
}

/* Direct mode: the slot of (pid, corr), or SIZE_MAX when its process's ids do not reach it. */
static size_t ke_dindex(struct ke_cursor *c, int64_t pid, int64_t corr)
{
	size_t p = ke_dproc(c, pid);
	if (p == c->ndp || corr < c->dlo[p] || corr > c->dhi[p])
		return SIZE_MAX;
	return c->doff[p] + (size_t)(corr - c->dlo[p]);
}

/*
 * Direct mode when the kernels' processes' correlation id ranges hold at most 3 slots per kernel (then
 * the slots take no more memory than the hash's keys) and the processes are few: SQLITE_OK with dend and
 * ddur set, or left NULL (the hash then); SQLITE_NOMEM.
 */
static int ke_direct(struct ke_cursor *c)
{
	size_t i, p, alloc = 0, total = 0;
	for (i = 0; i < c->s.n; i++) {
		int64_t corr = c->api[i];
		if (corr <= 0)
			continue;
		p = ke_dproc(c, c->pid[i]);
		if (p == c->ndp) {
			if (c->ndp == 64)
				return SQLITE_OK;	/* many processes: the hash */
			if (sqlext_grow((void **)&c->dpid, &alloc, c->ndp + 1, sizeof(int64_t)) ||
			    !(c->dlo = sqlite3_realloc64(c->dlo, alloc * sizeof(int64_t))) ||
			    !(c->dhi = sqlite3_realloc64(c->dhi, alloc * sizeof(int64_t))))
				return SQLITE_NOMEM;
			c->dpid[p] = c->pid[i];
			c->dlo[p] = c->dhi[p] = corr;
			c->ndp++;
		}
		c->dlo[p] = corr < c->dlo[p] ? corr : c->dlo[p];
		c->dhi[p] = corr > c->dhi[p] ? corr : c->dhi[p];
	}
	if (!(c->doff = sqlite3_malloc64((c->ndp ? c->ndp : 1) * sizeof(size_t))))
		return SQLITE_NOMEM;
	for (p = 0; p < c->ndp; p++) {
		uint64_t span = (uint64_t)c->dhi[p] - (uint64_t)c->dlo[p] + 1;
		if (span > 3 * (uint64_t)c->s.n + 65536 || total + span > 3 * (uint64_t)c->s.n + 65536)
			return SQLITE_OK;
		c->doff[p] = total;
		total += (size_t)span;
	}
	if (!(c->dend = sqlite3_malloc64((total ? total : 1) * sizeof(int64_t))) ||
	    !(c->ddur = sqlite3_malloc64((total ? total : 1) * sizeof(int64_t))))
		return SQLITE_NOMEM;
	for (p = 0; p < total; p++)
		c->dend[p] = INT64_MIN;
	return SQLITE_OK;
}

/*
 * The direct slots, or the kernels' keys into the hash (each kernel's in key_of). SQLITE_OK or
 * SQLITE_NOMEM.
 */
static int ke_keys(struct ke_cursor *c)
{
	size_t i, n = c->s.n ? c->s.n : 1;
	if (ke_direct(c) != SQLITE_OK)
		return SQLITE_NOMEM;
	if (c->dend)
		return SQLITE_OK;	/* the calls fill the slots: no keys */
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
		uint32_t *slot;
		if (corr <= 0) {	/* no correlation id: launched by no call we know */
			c->key_of[i] = UINT32_MAX;
			continue;
		}
		slot = &c->slots[ke_slot(c, c->pid[i], corr)];
		if (!*slot) {
			c->kpid[c->nkeys] = c->pid[i];
			c->kcorr[c->nkeys] = corr;
			c->kend[c->nkeys] = INT64_MIN;
			*slot = (uint32_t)++c->nkeys;
		}
		c->key_of[i] = *slot - 1;
	}
	return SQLITE_OK;
}

/* sqlext_read's callback for the calls: the first call of each key (direct: of each slot) claims it. */
static int ke_take_calls(void *arg, const int64_t *const *col, size_t n)
{
	struct ke_cursor *c = arg;
	size_t i, x;
	for (i = 0; i < n; i++) {
		int64_t corr = col[CALL_CORR][i];
		uint32_t k;
		if (corr <= 0)
			continue;
		if (c->dend) {
			if ((x = ke_dindex(c, col[CALL_PID][i], corr)) != SIZE_MAX && c->dend[x] == INT64_MIN) {
				c->dend[x] = col[CALL_START][i] + col[CALL_DUR][i];
				c->ddur[x] = col[CALL_DUR][i];
			}
			continue;
		}
		if (!(k = c->slots[ke_slot(c, col[CALL_PID][i], corr)]) || c->kend[k - 1] != INT64_MIN)
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
			int64_t end = INT64_MIN, dur = 0;
			if (c->dend) {
				size_t x = c->api[i] > 0 ? ke_dindex(c, c->pid[i], c->api[i]) : SIZE_MAX;
				if (x != SIZE_MAX) {
					end = c->dend[x];
					dur = c->ddur[x];
				}
			} else if (c->key_of[i] != UINT32_MAX) {
				end = c->kend[c->key_of[i]];
				dur = c->kdur[c->key_of[i]];
			}
			if (end == INT64_MIN) {
				c->api[i] = c->queue[i] = INT64_MIN;
			} else {
				c->api[i] = dur;
				c->queue[i] = c->start[i] - end;
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

/*
 * kernel_exec_summary(session, match, exclude): what analyze/kernexec.sql shows, grouped here in C from one
 * kernel_exec join: SQLite's GROUP BY over the join stepped twenty aggregates a kernel and sorted the
 * session twice (34 s on the 5M-kernel bench session; 1.4 s so). Two kinds of rows:
 *   kind 'name'     per name id of the session: calls, launched (kernels with a launch call), qcount (with
 *                   a positive queue time), the launch call's duration (api_*), the positive queue times
 *                   (queue_*, with p90 and p99) and the kernels' durations (kernel_*), as kernexec defines
 *                   them; statistics of no value are NULL;
 *   kind 'quarter'  per quarter (1..4 of the span from the first to the last kernel start) and queue-time
 *                   bucket (0 no launch call, 1 none, 2 under 1 us, 3 under 10 us, ... 7 10 ms or more) with
 *                   kernels in it, over the kernels whose names match `match` and not `exclude` (PCRE2,
 *                   NULL for none): n of them, and the quarter's start_ns (its first kernel), kernels,
 *                   launched, waited (wait > 0) and wait_* (median, p90, max) of its launched kernels' waits
 *                   (the queue time, 0 for a kernel that did not wait), the same on each of its rows.
 * The statistics are analyze/ext/dstats.c's, as median's and percentile's (tests/nsys_stats.py checks kernexec
 * against a computation in Python).
 * kernel_exec_summary(session, match, exclude, keys): the 'name' rows per key of the table `keys` names
 * (id, key; kernel_stats' keys) instead: a key's row over every kernel of the names it maps (name_id holds
 * the key; names it lacks have no row; the quarters as without it): kernexec's families with --short or
 * --group, where SQLite's GROUP BY over kernel_exec with nine medians and percentiles took 7 s of CPU on
 * the bench session.
 */
enum {
	KX_KIND, KX_NAME_ID, KX_CALLS, KX_LAUNCHED, KX_QCOUNT, KX_API_AVG, KX_API_MED, KX_API_MIN, KX_API_MAX,
	KX_Q_AVG, KX_Q_MED, KX_Q_MIN, KX_Q_MAX, KX_Q_P90, KX_Q_P99, KX_K_TOTAL, KX_K_AVG, KX_K_MED, KX_K_MIN,
	KX_K_MAX, KX_QUARTER, KX_BUCKET, KX_N, KX_START, KX_KERNELS, KX_QLAUNCHED, KX_WAITED, KX_W_MED, KX_W_P90,
	KX_W_MAX, KX_SESSION, KX_MATCH, KX_EXCLUDE, KX_KEYS, KX_NCOLS
};

static const struct vt_def summary_def = {
	.schema = "CREATE TABLE x(kind TEXT, name_id INTEGER, calls INTEGER, launched INTEGER, qcount INTEGER, "
		  "api_avg_ns REAL, api_med_ns REAL, api_min_ns INTEGER, api_max_ns INTEGER, queue_avg_ns REAL, "
		  "queue_med_ns REAL, queue_min_ns INTEGER, queue_max_ns INTEGER, queue_p90_ns REAL, queue_p99_ns REAL, "
		  "kernel_total_ns INTEGER, kernel_avg_ns REAL, kernel_med_ns REAL, kernel_min_ns INTEGER, "
		  "kernel_max_ns INTEGER, quarter INTEGER, bucket INTEGER, n INTEGER, start_ns INTEGER, kernels INTEGER, "
		  "quarter_launched INTEGER, waited INTEGER, wait_med_ns REAL, wait_p90_ns REAL, wait_max_ns INTEGER, "
		  "session_id HIDDEN, match HIDDEN, exclude HIDDEN, keys HIDDEN)",
};

/* One row: integers (INT64_MIN for NULL) and doubles (NaN for NULL) by column. */
struct kx_row {
	int quarter_row;
	int64_t i[KX_NCOLS];
	double d[KX_NCOLS];
};

struct kx_cursor {
	sqlite3_vtab_cursor base;
	struct kx_row *rows;
	size_t n, alloc, at;
};

/* A row of kind 'name' or 'quarter', every value NULL. */
static struct kx_row *kx_add(struct kx_cursor *c, int quarter_row)
{
	struct kx_row *r;
	int k;
	if (sqlext_grow((void **)&c->rows, &c->alloc, c->n + 1, sizeof(*c->rows)))
		return NULL;
	r = &c->rows[c->n++];
	r->quarter_row = quarter_row;
	for (k = 0; k < KX_NCOLS; k++) {
		r->i[k] = INT64_MIN;
		r->d[k] = NAN;
	}
	return r;
}

/* avg, med, min, max of v[0..n) (reordered) into columns avg.. of r; p90 and p99 too when p90 >= 0. */
static void kx_stats(struct kx_row *r, int64_t *v, size_t n, int avg, int p90)
{
	struct dstats s;
	if (!n)
		return;
	stats_of(v, n, &s);
	r->d[avg] = s.mean;
	r->d[avg + 1] = s.median;
	r->i[avg + 2] = s.min;
	r->i[avg + 3] = s.max;
	if (p90 >= 0) {
		r->d[p90] = stats_percentile(v, n, 90);
		r->d[p90 + 1] = stats_percentile(v, n, 99);
	}
}

/* The most kernels one name has (1 when there are none). */
static size_t kx_largest(const struct ke_cursor *k)
{
	size_t i = 0, j, most = 1;
	while (i < k->s.n) {
		for (j = i; j < k->s.n && k->name[k->order[j]] == k->name[k->order[i]]; j++)
			;
		most = j - i > most ? j - i : most;
		i = j;
	}
	return most;
}

/*
 * The name rows: kernels of one name are o[0..n) of k's order. With `skip`, the kernels whose name is
 * *skip have no row; with `only` (nonly rows of (id, key) by id), those whose name it lacks.
 */
static int kx_names(struct kx_cursor *c, const struct ke_cursor *k, int64_t *api, int64_t *q, int64_t *dur,
		    const int64_t *skip, const int64_t (*only)[2], size_t nonly)
{
	size_t i = 0;
	while (i < k->s.n) {
		int64_t name = k->name[k->order[i]], total = 0, key;
		size_t j, na = 0, nq = 0, nd = 0;
		struct kx_row *r;
		if ((skip && name == *skip) || (only && !sqlext_keys_find(only, nonly, name, &key))) {
			for (j = i; j < k->s.n && k->name[k->order[j]] == name; j++)
				;
			i = j;
			continue;
		}
		for (j = i; j < k->s.n && k->name[k->order[j]] == name; j++) {
			uint32_t x = k->order[j];
			dur[nd++] = k->dur[x];
			total += k->dur[x];
			if (k->api[x] != INT64_MIN) {
				api[na++] = k->api[x];
				if (k->queue[x] > 0)
					q[nq++] = k->queue[x];
			}
		}
		if (!(r = kx_add(c, 0)))
			return SQLITE_NOMEM;
		r->i[KX_NAME_ID] = name;
		r->i[KX_CALLS] = (int64_t)nd;
		r->i[KX_LAUNCHED] = (int64_t)na;
		r->i[KX_QCOUNT] = (int64_t)nq;
		r->i[KX_K_TOTAL] = total;
		kx_stats(r, api, na, KX_API_AVG, -1);
		kx_stats(r, q, nq, KX_Q_AVG, KX_Q_P90);
		kx_stats(r, dur, nd, KX_K_AVG, -1);
		i = j;
	}
	return SQLITE_OK;
}

/* Queue-time bucket of a kernel: 0 no launch call, 1 none (started before its call returned), 2.. by decade. */
static int kx_bucket(int64_t api, int64_t queue)
{
	int b = 2;
	int64_t edge = 1000;
	if (api == INT64_MIN)
		return 0;
	if (queue <= 0)
		return 1;
	while (b < 7 && queue >= edge) {
		b++;
		edge *= 10;
	}
	return b;
}

/* The quarter rows, over the kernels whose name id keep[] says (keep[id - lo]; NULL: every kernel). */
static int kx_quarters(struct kx_cursor *c, const struct ke_cursor *k, const unsigned char *keep, int64_t lo,
		       size_t span, int64_t *w)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN, len;
	int64_t counts[4][8], first[4], kernels[4] = { 0 }, launched[4] = { 0 }, waited[4] = { 0 };
	size_t i, nw[4] = { 0 }, off[4];
	int qu, b;
#define KEPT(x) (!keep || ((uint64_t)k->name[x] - (uint64_t)lo < span && keep[k->name[x] - lo]))
	for (i = 0; i < k->s.n; i++)
		if (KEPT(i)) {
			t0 = k->start[i] < t0 ? k->start[i] : t0;
			t1 = k->start[i] > t1 ? k->start[i] : t1;
		}
	if (t0 > t1)
		return SQLITE_OK;
	len = t1 - t0 + 1;
	memset(counts, 0, sizeof(counts));
	for (qu = 0; qu < 4; qu++)
		first[qu] = INT64_MAX;
	/* Twice over the kernels: how many waits each quarter has, then the waits themselves, by quarter. */
	for (i = 0; i < k->s.n; i++) {
		if (!KEPT(i))
			continue;
		qu = (int)((__int128)(k->start[i] - t0) * 4 / len);
		qu = qu > 3 ? 3 : qu;
		b = kx_bucket(k->api[i], k->queue[i]);
		counts[qu][b]++;
		kernels[qu]++;
		first[qu] = k->start[i] < first[qu] ? k->start[i] : first[qu];
		if (b) {
			launched[qu]++;
			waited[qu] += b > 1;
		}
	}
	for (qu = 0, off[0] = 0; qu < 3; qu++)
		off[qu + 1] = off[qu] + (size_t)launched[qu];
	for (i = 0; i < k->s.n; i++) {
		if (!KEPT(i) || k->api[i] == INT64_MIN)
			continue;
		qu = (int)((__int128)(k->start[i] - t0) * 4 / len);
		qu = qu > 3 ? 3 : qu;
		w[off[qu] + nw[qu]++] = k->queue[i] > 0 ? k->queue[i] : 0;
	}
#undef KEPT
	for (qu = 0; qu < 4; qu++) {
		int64_t *v = w + off[qu];
		double med = NAN, p90 = NAN;
		int64_t max = INT64_MIN;
		if (nw[qu]) {
			struct dstats s;
			stats_of(v, nw[qu], &s);
			med = s.median;
			max = s.max;
			p90 = stats_percentile(v, nw[qu], 90);
		}
		for (b = 0; b < 8; b++) {
			struct kx_row *r;
			if (!counts[qu][b])
				continue;
			if (!(r = kx_add(c, 1)))
				return SQLITE_NOMEM;
			r->i[KX_QUARTER] = qu + 1;
			r->i[KX_BUCKET] = b;
			r->i[KX_N] = counts[qu][b];
			r->i[KX_START] = first[qu];
			r->i[KX_KERNELS] = kernels[qu];
			r->i[KX_QLAUNCHED] = launched[qu];
			r->i[KX_WAITED] = waited[qu];
			r->d[KX_W_MED] = med;
			r->d[KX_W_P90] = p90;
			r->i[KX_W_MAX] = max;
		}
	}
	return SQLITE_OK;
}

/*
 * The name ids of session s that match and not exclude, as keep[id - *lo] over *span ids (sqlite3_malloc64'd;
 * NULL with no patterns). SQLITE_OK or an error code with cur's table's message set.
 */
static int kx_keep(sqlite3_vtab_cursor *cur, sqlite3 *db, int64_t s, sqlite3_value *match, sqlite3_value *exclude,
		   unsigned char **keep, int64_t *lo, size_t *span)
{
	sqlite3_stmt *st;
	int64_t hi;
	int rc;
	*keep = NULL;
	if (sqlite3_value_type(match) == SQLITE_NULL && sqlite3_value_type(exclude) == SQLITE_NULL)
		return SQLITE_OK;
	rc = sqlite3_prepare_v2(db, "SELECT min(id), max(id) FROM main.strings WHERE session_id = ?1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sqlext_vt_error(cur, rc, sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, s);
	*lo = 0;
	hi = -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*lo = sqlite3_column_int64(st, 0);
		hi = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	*span = hi >= *lo ? (size_t)(hi - *lo + 1) : 0;
	if (!(*keep = sqlite3_malloc64(*span ? *span : 1)))
		return SQLITE_NOMEM;
	memset(*keep, 0, *span ? *span : 1);
	rc = sqlite3_prepare_v2(db, "SELECT id FROM main.strings WHERE session_id = ?1 AND (?2 IS NULL OR value REGEXP ?2) "
				"AND (?3 IS NULL OR NOT value REGEXP ?3)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sqlext_vt_error(cur, rc, sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, s);
	sqlite3_bind_value(st, 2, match);
	sqlite3_bind_value(st, 3, exclude);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		(*keep)[sqlite3_column_int64(st, 0) - *lo] = 1;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlext_vt_error(cur, SQLITE_ERROR, sqlite3_errmsg(db));
	return SQLITE_OK;
}

/* session_id, match, exclude and keys (optional) as the function's arguments (equalities on them), in that order. */
static int kx_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	int i, k, seen = 0;
	(void)v;
	for (k = KX_SESSION; k <= KX_KEYS; k++)
		for (i = 0; i < ix->nConstraint; i++)
			if (ix->aConstraint[i].iColumn == k && ix->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ) {
				if (!ix->aConstraint[i].usable)
					return SQLITE_CONSTRAINT;
				ix->aConstraintUsage[i].argvIndex = k - KX_SESSION + 1;
				ix->aConstraintUsage[i].omit = 1;
				seen |= 1 << (k - KX_SESSION);
				break;
			}
	if ((seen & 7) != 7) {
		ix->idxNum = 0;
		ix->estimatedCost = 1e12;	/* kernel_exec_summary(session, match, exclude[, keys]) only */
		return SQLITE_OK;
	}
	ix->idxNum = seen & 8 ? 3 : 1;
	ix->estimatedCost = 1e6;
	return SQLITE_OK;
}

/*
 * The name rows per key of the keys table v names: k's kernels ordered by their name's key for
 * kx_names, those without one under a key of their own that has no row; k's names and order as they
 * were after.
 */
static int kx_by_keys(sqlite3_vtab_cursor *cur, sqlite3 *db, struct ke_cursor *k, sqlite3_value *v, int64_t *api,
		      int64_t *q, int64_t *dur)
{
	int64_t (*map)[2] = NULL, *names = k->name, *keyed = NULL, none, key, lo = INT64_MAX, hi = INT64_MIN;
	uint32_t *order = k->order;
	size_t nmap, i;
	int64_t *dense = NULL;
	int rc = sqlext_keys_read(cur, db, "kernel_exec_summary", (const char *)sqlite3_value_text(v), &map, &nmap);
	if (rc != SQLITE_OK)
		goto out;
	if (!nmap)
		goto out;	/* no key: no name row */
	/* Each name its own key (kernexec without --short or --group): k's order as it is, a row per name
	 * the table has. */
	for (i = 0; i < nmap && map[i][0] == map[i][1]; i++)
		;
	if (i == nmap) {
		rc = kx_names((struct kx_cursor *)cur, k, api, q, dur, NULL, (const int64_t (*)[2])map, nmap);
		goto out;
	}
	/* The kernels without a key take a key of their own next to the others (a counting sort still
	 * orders them): the smallest less one, else the largest plus one. */
	for (i = 0; i < nmap; i++) {
		lo = map[i][1] < lo ? map[i][1] : lo;
		hi = map[i][1] > hi ? map[i][1] : hi;
	}
	if (lo > INT64_MIN)
		none = lo - 1;
	else if (hi < INT64_MAX)
		none = hi + 1;
	else {
		rc = sqlext_vt_error(cur, SQLITE_ERROR, "kernel_exec_summary: keys span every integer");
		goto out;
	}
	rc = SQLITE_NOMEM;
	if (!(keyed = sqlite3_malloc64((k->s.n ? k->s.n : 1) * sizeof(int64_t))))
		goto out;
	/* Each kernel's key: from an array by id when the table's ids are dense (string ids are), else a search. */
	if (nmap && (uint64_t)map[nmap - 1][0] - (uint64_t)map[0][0] < 4 * (uint64_t)k->s.n + 65536) {
		size_t span = (size_t)((uint64_t)map[nmap - 1][0] - (uint64_t)map[0][0]) + 1;
		if (!(dense = sqlite3_malloc64(span * sizeof(int64_t))))
			goto out;
		for (i = 0; i < span; i++)
			dense[i] = none;
		for (i = 0; i < nmap; i++)
			dense[(uint64_t)map[i][0] - (uint64_t)map[0][0]] = map[i][1];
		for (i = 0; i < k->s.n; i++)
			keyed[i] = (uint64_t)names[i] - (uint64_t)map[0][0] < span
					   ? dense[(uint64_t)names[i] - (uint64_t)map[0][0]] : none;
	} else {
		for (i = 0; i < k->s.n; i++)
			keyed[i] = i && names[i] == names[i - 1] ? keyed[i - 1]
				   : sqlext_keys_find((const int64_t (*)[2])map, nmap, names[i], &key) ? key : none;
	}
	k->name = keyed;
	k->order = NULL;
	/* A family has more kernels than its largest name: values at a time for the largest family. */
	if ((rc = ke_order(k)) == SQLITE_OK) {
		size_t most = kx_largest(k);
		int64_t *fam[3] = { NULL, NULL, NULL };
		for (i = 0; i < 3 && rc == SQLITE_OK; i++)
			if (!(fam[i] = sqlite3_malloc64(most * sizeof(int64_t))))
				rc = SQLITE_NOMEM;
		if (rc == SQLITE_OK)
			rc = kx_names((struct kx_cursor *)cur, k, fam[0], fam[1], fam[2], &none, NULL, 0);
		for (i = 0; i < 3; i++)
			sqlite3_free(fam[i]);
	}
	sqlite3_free(k->order);
	k->name = names;
	k->order = order;
out:
	sqlite3_free(map);
	sqlite3_free(keyed);
	sqlite3_free(dense);
	if (rc == SQLITE_NOMEM)
		rc = sqlext_vt_error(cur, rc, "out of memory");
	return rc;
}

static int kx_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct kx_cursor *c = (struct kx_cursor *)cur;
	struct ke_cursor k;
	sqlite3 *db = sqlext_vt_db(cur);
	unsigned char *keep = NULL;
	int64_t *buf[3] = { NULL, NULL, NULL }, lo = 0;
	size_t span = 0, i, most;
	int rc;
	(void)idxstr;
	c->n = c->at = 0;
	if (!idx || argc != (idx & 2 ? 4 : 3))
		return sqlext_vt_error(cur, SQLITE_ERROR, "kernel_exec_summary needs (session, match, exclude[, keys])");
	memset(&k, 0, sizeof(k));
	k.s.base.pVtab = cur->pVtab;
	if (!(k.s.sessions = sqlite3_malloc64(sizeof(int64_t))))
		return SQLITE_NOMEM;
	k.s.sessions[0] = sqlite3_value_int64(argv[0]);
	k.s.nsessions = 1;
	rc = ke_session(&k.s);
	if (rc == SQLITE_OK)
		rc = kx_keep(cur, db, k.s.sessions[0], argv[1], argv[2], &keep, &lo, &span);
	/* A name's values at a time (room for the largest name's), then every kernel's wait. */
	most = rc == SQLITE_OK ? kx_largest(&k) : 1;
	for (i = 0; i < 3 && rc == SQLITE_OK; i++)
		if (!(buf[i] = sqlite3_malloc64(most * sizeof(int64_t))))
			rc = SQLITE_NOMEM;
	if (rc == SQLITE_OK && idx & 2)
		rc = kx_by_keys(cur, db, &k, argv[3], buf[0], buf[1], buf[2]);
	else if (rc == SQLITE_OK)
		rc = kx_names(c, &k, buf[0], buf[1], buf[2], NULL, NULL, 0);
	for (i = 0; i < 3; i++) {
		sqlite3_free(buf[i]);
		buf[i] = NULL;
	}
	if (rc == SQLITE_OK && !(buf[0] = sqlite3_malloc64((k.s.n ? k.s.n : 1) * sizeof(int64_t))))
		rc = SQLITE_NOMEM;
	if (rc == SQLITE_OK)
		rc = kx_quarters(c, &k, keep, lo, span, buf[0]);
	sqlite3_free(buf[0]);
	sqlite3_free(keep);
	sqlext_session_reset(&k.s);
	ke_free(&k);
	if (rc == SQLITE_NOMEM)
		rc = sqlext_vt_error(cur, rc, "out of memory");
	return rc;
}

static int kx_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct kx_cursor *c = sqlite3_malloc(sizeof(*c));
	(void)v;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int kx_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(((struct kx_cursor *)cur)->rows);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int kx_next(sqlite3_vtab_cursor *cur)
{
	((struct kx_cursor *)cur)->at++;
	return SQLITE_OK;
}

static int kx_eof(sqlite3_vtab_cursor *cur)
{
	const struct kx_cursor *c = (const struct kx_cursor *)cur;
	return c->at >= c->n;
}

static int kx_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct kx_cursor *)cur)->at;
	return SQLITE_OK;
}

static int kx_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	const struct kx_row *r = &((struct kx_cursor *)cur)->rows[((struct kx_cursor *)cur)->at];
	if (k == KX_KIND)
		sqlite3_result_text(ctx, r->quarter_row ? "quarter" : "name", -1, SQLITE_STATIC);
	else if (r->i[k] != INT64_MIN)
		sqlite3_result_int64(ctx, r->i[k]);
	else if (!isnan(r->d[k]))
		sqlite3_result_double(ctx, r->d[k]);
	return SQLITE_OK;
}

static sqlite3_module kx_module = {
	.iVersion = 0,
	.xConnect = sqlext_vt_connect,
	.xBestIndex = kx_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = kx_open,
	.xClose = kx_close,
	.xFilter = kx_filter,
	.xNext = kx_next,
	.xEof = kx_eof,
	.xColumn = kx_column,
	.xRowid = kx_rowid,
};

int gpuprof_sqlite_exec(sqlite3 *db)
{
	int rc = sqlite3_create_module(db, "kernel_exec", &ke_module, (void *)&exec_def);
	return rc != SQLITE_OK ? rc : sqlite3_create_module(db, "kernel_exec_summary", &kx_module, (void *)&summary_def);
}
