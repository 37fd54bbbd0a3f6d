/*
 * kernel_windows: the kernels of a window of time on one host thread or stream, summed; an eponymous,
 * read-only table-valued function (see sqlext.h):
 *
 *   SELECT kernels, gpu_ns FROM kernel_windows(session, pid, 'thread', thread_id, start_ns, end_ns)
 *
 * 'thread': the kernels whose launching API call (the first call with the kernel's process and
 * correlation id, in table order; a kernel with correlation id 0 or NULL has none) started on the thread
 * of the process in [start_ns, end_ns); 'stream': the kernels of the process that started on the stream in
 * [start_ns, end_ns). A NULL thread or stream means any of the process; a NULL end_ns no end. One row.
 *
 * The same as a plain join of kernel_columns and api_columns on (pid, correlation_id) (tests/vtab.py
 * checks), which SQLite runs through an automatic index over millions of calls for every window: here the
 * session's kernels are joined to their calls once, by a hash of correlation ids, and sorted per thread
 * (stream) by time with running totals, so that each window is two binary searches. The joined session is
 * kept with the connection's table until another session, schema or data version is asked for.
 *
 * Accelerators of plain-SQL references: analyze/ref/kernel_windows.sql (tests/refs.py checks they agree).
 * Measured on the 5M-kernel bench session in the sqlite3 shell (C best of 3, reference one run, 2 shared cores
 * under load, 2026-11-28): kernel_windows 0.76 s against 25.72 s (34x).
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

enum { KW_KERNELS, KW_GPU, KW_SESSION, KW_PID, KW_BY, KW_KEY, KW_START, KW_END, KW_SCHEMA, KW_NCOLS };

/* Work at times on one key (a thread or stream of a process): the times sorted, with running totals. */
struct kw_key {
	int64_t pid, key;
	int64_t *t, *dur, *cnt;	/* n of them (alloc room); dur and cnt running totals once built */
	size_t n, alloc;
};

/*
 * One mode ('thread' or 'stream') of a session, built when first asked for: its keys, found while building
 * in a small open-addressed table (keys are threads and streams: few), then sorted by (pid, key).
 */
struct kw_mode {
	int built;
	struct kw_key *keys;
	size_t nkeys, *slot, cap;	/* slot: index + 1 into keys, cap of them (a power of two) */
};

struct kw_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	char *schema;		/* what modes[] hold: this schema's session at data_version */
	int64_t session, data_version;
	struct kw_mode modes[2];	/* thread, stream */
};

struct kw_cursor {
	sqlite3_vtab_cursor base;
	int64_t kernels, gpu_ns;
	int eof;
};

static void mode_free(struct kw_mode *m)
{
	size_t i;
	for (i = 0; i < m->nkeys; i++) {
		sqlite3_free(m->keys[i].t);
		sqlite3_free(m->keys[i].dur);
		sqlite3_free(m->keys[i].cnt);
	}
	sqlite3_free(m->keys);
	sqlite3_free(m->slot);
	memset(m, 0, sizeof(*m));
}

static size_t key_hash(int64_t pid, int64_t key, size_t cap)
{
	uint64_t h = ((uint64_t)pid * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)key * 0xC2B2AE3D27D4EB4FULL);
	return (size_t)(h >> 20) & (cap - 1);
}

/* Key (pid, key) of m while it is built, added when new; NULL when out of memory. */
static struct kw_key *mode_key(struct kw_mode *m, int64_t pid, int64_t key)
{
	size_t j, i;
	if (2 * (m->nkeys + 1) > m->cap) {
		size_t cap = m->cap ? 4 * m->cap : 64, *slot = sqlite3_malloc64(cap * sizeof(*slot));
		struct kw_key *keys = sqlite3_realloc64(m->keys, cap / 2 * sizeof(*keys));
		if (keys)
			m->keys = keys;
		if (!slot || !keys) {
			sqlite3_free(slot);
			return NULL;
		}
		memset(slot, 0, cap * sizeof(*slot));
		for (i = 0; i < m->nkeys; i++) {
			for (j = key_hash(keys[i].pid, keys[i].key, cap); slot[j]; j = (j + 1) & (cap - 1))
				;
			slot[j] = i + 1;
		}
		sqlite3_free(m->slot);
		m->slot = slot;
		m->cap = cap;
	}
	for (j = key_hash(pid, key, m->cap); m->slot[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[m->slot[j] - 1].pid == pid && m->keys[m->slot[j] - 1].key == key)
			return &m->keys[m->slot[j] - 1];
	memset(&m->keys[m->nkeys], 0, sizeof(m->keys[m->nkeys]));
	m->keys[m->nkeys].pid = pid;
	m->keys[m->nkeys].key = key;
	m->slot[j] = ++m->nkeys;
	return &m->keys[m->nkeys - 1];
}

/* Work at time t (dur ns, cnt kernels) on key (pid, key), in table order. */
static int mode_add(struct kw_mode *m, int64_t pid, int64_t key, int64_t t, int64_t dur, int64_t cnt)
{
	struct kw_key *k = mode_key(m, pid, key);
	if (!k)
		return SQLITE_NOMEM;
	if (k->n == k->alloc) {
		size_t alloc = k->alloc ? 2 * k->alloc : 4096;
		int64_t *a = sqlite3_realloc64(k->t, alloc * sizeof(int64_t)), *b, *c;
		if (a)
			k->t = a;
		b = sqlite3_realloc64(k->dur, alloc * sizeof(int64_t));
		if (b)
			k->dur = b;
		c = sqlite3_realloc64(k->cnt, alloc * sizeof(int64_t));
		if (c)
			k->cnt = c;
		if (!a || !b || !c)
			return SQLITE_NOMEM;
		k->alloc = alloc;
	}
	k->t[k->n] = t;
	k->dur[k->n] = dur;
	k->cnt[k->n++] = cnt;
	return SQLITE_OK;
}

static int cmp_key(const void *a, const void *b)
{
	const struct kw_key *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Work at a time, for sorting a key's run that is not in time order. */
struct kw_work {
	int64_t t, dur, cnt;
};

static int cmp_work(const void *a, const void *b)
{
	const struct kw_work *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* The key (pid, key) in m (built), or NULL. */
static const struct kw_key *key_find(const struct kw_mode *m, int64_t pid, int64_t key)
{
	size_t lo = 0, hi = m->nkeys;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kw_key *k = &m->keys[mid];
		if (k->pid < pid || (k->pid == pid && k->key < key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nkeys && m->keys[lo].pid == pid && m->keys[lo].key == key ? &m->keys[lo] : NULL;
}

/*
 * Finish m: keys in (pid, key) order, each key's work sorted by time only when it is not already (calls
 * and kernels mostly come in time order), then made running totals.
 */
static int mode_finish(struct kw_mode *m)
{
	size_t i, j;
	sqlite3_free(m->slot);
	m->slot = NULL;
	m->cap = 0;
	if (m->nkeys > 1)
		qsort(m->keys, m->nkeys, sizeof(*m->keys), cmp_key);
	for (i = 0; i < m->nkeys; i++) {
		struct kw_key *k = &m->keys[i];
		for (j = 1; j < k->n && k->t[j - 1] <= k->t[j]; j++)
			;
		if (j < k->n) {
			struct kw_work *w = sqlite3_malloc64(k->n * sizeof(*w));
			if (!w)
				return SQLITE_NOMEM;
			for (j = 0; j < k->n; j++)
				w[j] = (struct kw_work){ k->t[j], k->dur[j], k->cnt[j] };
			qsort(w, k->n, sizeof(*w), cmp_work);
			for (j = 0; j < k->n; j++) {
				k->t[j] = w[j].t;
				k->dur[j] = w[j].dur;
				k->cnt[j] = w[j].cnt;
			}
			sqlite3_free(w);
		}
		for (j = 1; j < k->n; j++) {
			k->dur[j] += k->dur[j - 1];
			k->cnt[j] += k->cnt[j - 1];
		}
	}
	m->built = 1;
	return SQLITE_OK;
}

/* Kernel durations and counts per (process, correlation id), and whether a call has claimed the id. */
struct corr_sums {
	int64_t pid;
	int64_t *dur;		/* per id below dense, else per slot of the hash */
	uint32_t *cnt;		/* kernels per id; 0 once a call has claimed them */
	size_t dense;		/* ids 0..dense-1 index the arrays directly */
	int64_t *hkey;		/* hash of the other ids: id per slot (0 empty; ids are > 0) */
	size_t hcap, hn;	/* slots (a power of two), used; their sums at dense + slot */
};

struct kw_join {
	struct corr_sums *p;
	size_t np, last;
	struct kw_mode *out;
	int pass;		/* 0: count kernels per process; 1: sum them; 2: calls */
};

static struct corr_sums *join_pid(struct kw_join *j, int64_t pid)
{
	size_t i;
	if (j->last < j->np && j->p[j->last].pid == pid)
		return &j->p[j->last];
	for (i = 0; i < j->np; i++)
		if (j->p[i].pid == pid)
			return &j->p[j->last = i];
	return NULL;
}

/* The index of id's sums in c, or SIZE_MAX: added when add, else only found. */
static size_t corr_slot(struct corr_sums *c, int64_t id, int add)
{
	size_t h;
	if (id >= 0 && (uint64_t)id < c->dense)
		return (size_t)id;
	if (!c->hcap)
		return SIZE_MAX;
	for (h = (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ULL) >> 16) & (c->hcap - 1); c->hkey[h];
	     h = (h + 1) & (c->hcap - 1))
		if (c->hkey[h] == id)
			return c->dense + h;
	if (!add)
		return SIZE_MAX;
	c->hkey[h] = id;
	c->hn++;
	return c->dense + h;
}

static int join_take(void *ctx, const int64_t *const *v, size_t n)
{
	struct kw_join *j = ctx;
	size_t i;
	for (i = 0; i < n; i++) {
		struct corr_sums *c;
		int64_t pid = v[SX_PID][i], id = v[j->pass < 2 ? SX_CORR : SX_CALL_CORR][i];
		size_t s;
		if (id <= 0)
			continue;	/* no correlation id: launched by no call we know */
		if (j->pass == 0) {
			if (!(c = join_pid(j, pid))) {
				struct corr_sums *p = sqlite3_realloc64(j->p, (j->np + 1) * sizeof(*p));
				if (!p)
					return SQLITE_NOMEM;
				j->p = p;
				c = &p[j->np++];
				memset(c, 0, sizeof(*c));
				c->pid = pid;
			}
			c->hn++;	/* counts kernels here */
			if ((uint64_t)id >= c->dense)
				c->dense = (size_t)id + 1;	/* the largest id + 1, until pass 1 */
			continue;
		}
		if (!(c = join_pid(j, pid)))
			continue;
		if (j->pass == 1) {
			s = corr_slot(c, id, 1);
			c->dur[s] += v[SX_DUR][i];
			c->cnt[s]++;
			continue;
		}
		/* The first call with the kernel's id launched it (a driver call may share the id). */
		if ((s = corr_slot(c, id, 0)) == SIZE_MAX || !c->cnt[s])
			continue;
		if (mode_add(j->out, pid, v[SX_THREAD][i], v[SX_START][i], c->dur[s], c->cnt[s]) != SQLITE_OK)
			return SQLITE_NOMEM;
		c->cnt[s] = 0;
	}
	return SQLITE_OK;
}

/* The launches of session s: per kernel launching call, (pid, thread, call start, kernel time, kernels). */
static int launches(struct kw_vtab *vt, int64_t s, struct kw_mode *out)
{
	struct kw_join j;
	unsigned kcols = 1u << SX_PID | 1u << SX_CORR | 1u << SX_DUR;
	size_t i;
	int rc;
	memset(&j, 0, sizeof(j));
	j.out = out;
	if ((rc = sqlext_read(&vt->base, vt->db, vt->schema, s, 0, 1u << SX_PID | 1u << SX_CORR, join_take, &j)))
		goto out;
	/* Ids below 4 per kernel index arrays directly (CUPTI's are dense per process); others hash. */
	for (i = 0; i < j.np; i++) {
		struct corr_sums *c = &j.p[i];
		size_t kernels = c->hn, limit = 4 * kernels + 65536, slots;
		if (c->dense > limit) {	/* some ids hash: room for every kernel's */
			c->dense = limit;
			for (c->hcap = 16; c->hcap < 2 * kernels; c->hcap *= 2)
				;
		}
		c->hn = 0;
		slots = c->dense + c->hcap;
		c->dur = sqlite3_malloc64(slots * sizeof(int64_t));
		c->cnt = sqlite3_malloc64(slots * sizeof(uint32_t));
		c->hkey = sqlite3_malloc64((c->hcap ? c->hcap : 1) * sizeof(int64_t));
		if (!c->dur || !c->cnt || !c->hkey) {
			rc = SQLITE_NOMEM;
			goto out;
		}
		memset(c->dur, 0, slots * sizeof(int64_t));
		memset(c->cnt, 0, slots * sizeof(uint32_t));
		memset(c->hkey, 0, c->hcap * sizeof(int64_t));
	}
	j.pass = 1;
	if ((rc = sqlext_read(&vt->base, vt->db, vt->schema, s, 0, kcols, join_take, &j)))
		goto out;
	j.pass = 2;
	rc = sqlext_read(&vt->base, vt->db, vt->schema, s, 1,
			 1u << SX_PID | 1u << SX_THREAD | 1u << SX_CALL_CORR | 1u << SX_START, join_take, &j);
out:
	for (i = 0; i < j.np; i++) {
		sqlite3_free(j.p[i].dur);
		sqlite3_free(j.p[i].cnt);
		sqlite3_free(j.p[i].hkey);
	}
	sqlite3_free(j.p);
	return rc;
}

static int starts_take(void *ctx, const int64_t *const *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (mode_add(ctx, v[SX_PID][i], v[SX_STREAM][i], v[SX_START][i], v[SX_DUR][i], 1) != SQLITE_OK)
			return SQLITE_NOMEM;
	return SQLITE_OK;
}

/* Mode `stream` (1) or `thread` (0) of session s in vt->schema, built unless it is. */
static int mode_get(struct kw_vtab *vt, int stream, int64_t s, const struct kw_mode **out)
{
	struct kw_mode *m = &vt->modes[stream];
	int rc;
	*out = m;
	if (m->built)
		return SQLITE_OK;
	rc = stream ? sqlext_read(&vt->base, vt->db, vt->schema, s, 0,
				  1u << SX_PID | 1u << SX_STREAM | 1u << SX_START | 1u << SX_DUR, starts_take, m)
		    : launches(vt, s, m);
	if (rc == SQLITE_OK)
		rc = mode_finish(m);
	if (rc != SQLITE_OK)
		mode_free(m);
	if (rc == SQLITE_NOMEM) {
		sqlite3_free(vt->base.zErrMsg);
		vt->base.zErrMsg = sqlite3_mprintf("out of memory");
	}
	return rc;
}

/* Point vt's cache at session s of schema: kept when it holds it already, else emptied. */
static int cache_for(struct kw_vtab *vt, const char *schema, int64_t s)
{
	int64_t dv = sqlext_data_version(vt->db, schema);
	if (vt->schema && !strcmp(vt->schema, schema) && vt->session == s && vt->data_version == dv && dv >= 0)
		return SQLITE_OK;
	mode_free(&vt->modes[0]);
	mode_free(&vt->modes[1]);
	sqlite3_free(vt->schema);
	if (!(vt->schema = sqlite3_mprintf("%s", schema)))
		return SQLITE_NOMEM;
	vt->session = s;
	vt->data_version = dv;
	return SQLITE_OK;
}

/* Work of key k at times in [from, to), added to *dur and *cnt. */
static void key_sum(const struct kw_key *k, int64_t from, int64_t to, int64_t *dur, int64_t *cnt)
{
	size_t b[2], x;
	int64_t at[2] = { from, to };
	for (x = 0; x < 2; x++) {
		size_t lo = 0, hi = k->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (k->t[mid] < at[x])
				lo = mid + 1;
			else
				hi = mid;
		}
		b[x] = lo;
	}
	if (b[1] <= b[0])
		return;
	*dur += k->dur[b[1] - 1] - (b[0] ? k->dur[b[0] - 1] : 0);
	*cnt += k->cnt[b[1] - 1] - (b[0] ? k->cnt[b[0] - 1] : 0);
}

static int kw_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	struct kw_vtab *v;
	int rc;
	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(kernels INTEGER, gpu_ns INTEGER, session_id HIDDEN, pid HIDDEN, "
				  "by HIDDEN, key HIDDEN, start_ns HIDDEN, end_ns HIDDEN, schema HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	if (!(v = sqlite3_malloc(sizeof(*v))))
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->db = db;
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*out = &v->base;
	return SQLITE_OK;
}

static int kw_disconnect(sqlite3_vtab *base)
{
	struct kw_vtab *v = (struct kw_vtab *)base;
	mode_free(&v->modes[0]);
	mode_free(&v->modes[1]);
	sqlite3_free(v->schema);
	sqlite3_free(v);
	return SQLITE_OK;
}

/*
 * Every hidden column but schema must be given by equality (argv in column order, schema last if given):
 * a plan without them all is refused.
 */
static int kw_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	int i, k, have = 0, n = 0;
	(void)v;
	for (k = KW_SESSION; k < KW_NCOLS; k++)
		for (i = 0; i < ix->nConstraint; i++)
			if (ix->aConstraint[i].iColumn == k && ix->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ) {
				if (!ix->aConstraint[i].usable)
					return SQLITE_CONSTRAINT;
				ix->aConstraintUsage[i].argvIndex = ++n;
				ix->aConstraintUsage[i].omit = 1;
				have |= 1 << k;
				break;
			}
	for (k = KW_SESSION; k < KW_SCHEMA; k++)
		if (!(have >> k & 1)) {
			sqlite3_free(v->zErrMsg);
			v->zErrMsg = sqlite3_mprintf("kernel_windows needs session_id, pid, by, key, start_ns and end_ns");
			return SQLITE_ERROR;
		}
	ix->idxNum = have;
	ix->estimatedCost = 10;
	ix->estimatedRows = 1;
	ix->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
	return SQLITE_OK;
}

static int kw_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct kw_cursor *c = sqlite3_malloc(sizeof(*c));
	(void)v;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int kw_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int kw_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct kw_cursor *c = (struct kw_cursor *)cur;
	struct kw_vtab *vt = (struct kw_vtab *)cur->pVtab;
	const struct kw_mode *m;
	const char *by = (const char *)sqlite3_value_text(argv[KW_BY - KW_SESSION]);
	const char *schema = idx >> KW_SCHEMA & 1 ? (const char *)sqlite3_value_text(argv[KW_SCHEMA - KW_SESSION]) : NULL;
	sqlite3_value *key = argv[KW_KEY - KW_SESSION], *end = argv[KW_END - KW_SESSION];
	int64_t pid = sqlite3_value_int64(argv[KW_PID - KW_SESSION]);
	int64_t from = sqlite3_value_int64(argv[KW_START - KW_SESSION]);
	int64_t to = sqlite3_value_type(end) == SQLITE_NULL ? INT64_MAX : sqlite3_value_int64(end);
	int stream, rc;
	size_t i;
	(void)idxstr;
	(void)argc;
	c->kernels = c->gpu_ns = 0;
	c->eof = 0;
	if (!by || (strcmp(by, "thread") && strcmp(by, "stream"))) {
		sqlite3_free(cur->pVtab->zErrMsg);
		cur->pVtab->zErrMsg = sqlite3_mprintf("kernel_windows: by is 'thread' or 'stream'");
		return SQLITE_ERROR;
	}
	stream = by[0] == 's';
	if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER ||
	    sqlite3_value_type(argv[KW_PID - KW_SESSION]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[KW_START - KW_SESSION]) == SQLITE_NULL)
		return SQLITE_OK;	/* no such session, process or window: nothing in it */
	if ((rc = cache_for(vt, schema ? schema : "main", sqlite3_value_int64(argv[0]))) != SQLITE_OK ||
	    (rc = mode_get(vt, stream, vt->session, &m)) != SQLITE_OK)
		return rc;
	if (sqlite3_value_type(key) != SQLITE_NULL) {
		const struct kw_key *k = key_find(m, pid, sqlite3_value_int64(key));
		if (k)
			key_sum(k, from, to, &c->gpu_ns, &c->kernels);
		return SQLITE_OK;
	}
	for (i = 0; i < m->nkeys; i++)	/* any thread (stream) of the process: few keys */
		if (m->keys[i].pid == pid)
			key_sum(&m->keys[i], from, to, &c->gpu_ns, &c->kernels);
	return SQLITE_OK;
}

static int kw_next(sqlite3_vtab_cursor *cur)
{
	((struct kw_cursor *)cur)->eof = 1;
	return SQLITE_OK;
}

static int kw_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct kw_cursor *)cur)->eof;
}

static int kw_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct kw_cursor *c = (struct kw_cursor *)cur;
	if (k == KW_KERNELS)
		sqlite3_result_int64(ctx, c->kernels);
	else if (k == KW_GPU)
		sqlite3_result_int64(ctx, c->gpu_ns);
	return SQLITE_OK;	/* the hidden columns: NULL, as they were asked for by equality */
}

static int kw_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	(void)cur;
	*rowid = 1;
	return SQLITE_OK;
}

static sqlite3_module kw_module = {
	.iVersion = 0,
	.xConnect = kw_connect,
	.xBestIndex = kw_best_index,
	.xDisconnect = kw_disconnect,
	.xDestroy = kw_disconnect,
	.xOpen = kw_open,
	.xClose = kw_close,
	.xFilter = kw_filter,
	.xNext = kw_next,
	.xEof = kw_eof,
	.xColumn = kw_column,
	.xRowid = kw_rowid,
};

int sqlext_window_register(sqlite3 *db)
{
	return sqlite3_create_module(db, "kernel_windows", &kw_module, NULL);
}
