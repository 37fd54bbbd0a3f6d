/*
 * memory_pairs: the allocation events of sessions (memory_events) in time order, each with the event it
 * pairs with and its device's running figures, as an eponymous read-only virtual table (see sqlext.h).
 * Compiled twice like analyze/ext/sqlext.c: into gpuprof's programs and into the extension.
 *
 * Pairing is a stack per (process, device, address): a free ends the newest live allocation there, or
 * pairs with nothing (a block allocated before the capture). Said in SQL, that is a running count per
 * address, then lead/lag over (address, stack level), then a running sum per device: three window
 * passes that take 0.8 s of CPU over the 100k events of the 5M-kernel bench session (tests/vtab.py keeps
 * that form as the reference); one pass here takes 0.05 s.
 *
 * Accelerators of plain-SQL references: analyze/ref/memory_pairs.sql (tests/refs.py checks they agree).
 * Measured on the 5M-kernel bench session in the sqlite3 shell (C best of 3, reference one run, 2 shared cores
 * under load, 2026-11-28): memory_pairs 0.40 s against 3.21 s (8x).
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"
#include "intmap.h"

#include <stdint.h>
#include <string.h>

enum { MP_SESSION, MP_EVENT, MP_SEQ, MP_PAIR, MP_LIVE, MP_SUM, MP_TOTAL, MP_COUNT };

struct mp_row {
	int64_t v[MP_COUNT];	/* the columns; v[MP_PAIR] is 0 for none (rowids are positive) */
};

/* A live block: an allocation not freed yet, in its address's chain, newest first. */
struct mp_block {
	int64_t pid, device, bytes;
	size_t row;		/* its allocation's row */
	int64_t next;		/* the next live block at the same address, index + 1; 0 none */
};

/* A device's running figures, and each process's latest total (pids, totals: npids of them). */
struct mp_device {
	int64_t node, device, live, sum, total;	/* a GPU: node (analyze/ext/sqlext_nodes.c) and device */
	int64_t *pids, *totals;
	size_t npids;
};

struct mp_cursor {
	sqlite3_vtab_cursor base;
	sqlite3 *db;
	struct mp_row *rows;
	size_t n, alloc, i;
};

struct mp_state {		/* one session's pairing */
	struct intmap heads;	/* address + 1 -> index + 1 of its newest live block (address -1: head_m1) */
	int64_t head_m1;
	struct mp_block *blocks;
	size_t nblocks, ablocks;
	struct mp_device *devs;
	size_t ndevs, adevs;
	struct sqlext_nodes nodes;
};

static void mp_state_release(struct mp_state *s)
{
	size_t i;
	for (i = 0; i < s->ndevs; i++) {
		sqlite3_free(s->devs[i].pids);
		sqlite3_free(s->devs[i].totals);
	}
	sqlite3_free(s->devs);
	sqlite3_free(s->blocks);
	intmap_release(&s->heads);
	sqlext_nodes_free(&s->nodes);
	memset(s, 0, sizeof(*s));
}

/* The GPU of process pid's device, added if new; NULL when out of memory. */
static struct mp_device *mp_device(struct mp_state *s, int64_t pid, int64_t device)
{
	int64_t node = sqlext_node(&s->nodes, pid);
	size_t i;
	for (i = 0; i < s->ndevs; i++)
		if (s->devs[i].device == device && s->devs[i].node == node)
			return &s->devs[i];
	if (sqlext_grow((void **)&s->devs, &s->adevs, s->ndevs + 1, sizeof(*s->devs)))
		return NULL;
	memset(&s->devs[s->ndevs], 0, sizeof(*s->devs));
	s->devs[s->ndevs].node = node;
	s->devs[s->ndevs].device = device;
	return &s->devs[s->ndevs++];
}

/* Process pid's new total on device d: the device's total is every process's latest, summed. */
static int mp_total(struct mp_device *d, int64_t pid, int64_t total)
{
	size_t i, cap = d->npids;
	for (i = 0; i < d->npids && d->pids[i] != pid; i++)
		;
	if (i == d->npids) {
		if (sqlext_grow((void **)&d->pids, &cap, d->npids + 1, sizeof(*d->pids)) ||
		    !(d->totals = sqlite3_realloc64(d->totals, (sqlite3_uint64)(cap * sizeof(*d->totals)))))
			return -1;
		d->pids[i] = pid;
		d->totals[i] = 0;
		d->npids++;
	}
	d->total += total - d->totals[i];
	d->totals[i] = total;
	return 0;
}

static int64_t mp_head(const struct mp_state *s, int64_t address)
{
	int64_t h = 0;
	if (address == -1)
		return s->head_m1;
	intmap_get(&s->heads, (int64_t)((uint64_t)address + 1), &h);	/* (wraps: no signed overflow) */
	return h;
}

static void mp_set_head(struct mp_state *s, int64_t address, int64_t h)
{
	if (address == -1)
		s->head_m1 = h;
	else
		intmap_put(&s->heads, (int64_t)((uint64_t)address + 1), h);
}

/*
 * Pair the event of row r (statement columns: 2 pid, 3 device, 4 address, 5 allocation, 6 bytes) on
 * device d: an allocation becomes the newest live block at its address, a free ends the newest of its
 * process and device there. 0, or -1 when out of memory.
 */
static int mp_pair(struct mp_cursor *c, struct mp_state *s, struct mp_device *d, size_t r, sqlite3_stmt *st)
{
	int64_t pid = sqlite3_column_int64(st, 2), address = sqlite3_column_int64(st, 4);
	int64_t bytes = sqlite3_column_int64(st, 6), i = mp_head(s, address) - 1, prev = -1;
	struct mp_block *b;
	if (sqlite3_column_int(st, 5)) {
		if (sqlext_grow((void **)&s->blocks, &s->ablocks, s->nblocks + 1, sizeof(*s->blocks)))
			return -1;
		b = &s->blocks[s->nblocks];
		b->pid = pid;
		b->device = d->device;
		b->bytes = bytes;
		b->row = r;
		b->next = i + 1;
		mp_set_head(s, address, (int64_t)++s->nblocks);
		d->live += bytes;
		return 0;
	}
	while (i >= 0 && (s->blocks[i].pid != pid || s->blocks[i].device != d->device)) {
		prev = i;
		i = s->blocks[i].next - 1;
	}
	if (i < 0)
		return 0;
	b = &s->blocks[i];
	c->rows[r].v[MP_PAIR] = c->rows[b->row].v[MP_EVENT];
	c->rows[b->row].v[MP_PAIR] = c->rows[r].v[MP_EVENT];
	d->live -= b->bytes;
	if (prev < 0)
		mp_set_head(s, address, b->next);
	else
		s->blocks[prev].next = b->next;
	return 0;
}

/* Read and pair every event of the sessions st gives, in its order (session, time). */
static int mp_load(struct mp_cursor *c, sqlite3_stmt *st)
{
	sqlite3 *db = sqlite3_db_handle(st);
	struct mp_state s;
	int64_t session = 0, seq = 0;
	int rc;
	memset(&s, 0, sizeof(s));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mp_device *d;
		struct mp_row *row;
		int64_t bytes = sqlite3_column_int64(st, 6);
		int alloc = sqlite3_column_int(st, 5);
		if (!c->n || sqlite3_column_int64(st, 0) != session) {
			mp_state_release(&s);
			session = sqlite3_column_int64(st, 0);
			seq = 0;
			if ((rc = sqlext_nodes_read(db, NULL, session, &s.nodes)) != SQLITE_OK)
				break;
		}
		if (sqlext_grow((void **)&c->rows, &c->alloc, c->n + 1, sizeof(*c->rows)) ||
		    !(d = mp_device(&s, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3))))
			goto nomem;
		row = &c->rows[c->n];
		row->v[MP_SESSION] = session;
		row->v[MP_EVENT] = sqlite3_column_int64(st, 1);
		row->v[MP_SEQ] = ++seq;
		row->v[MP_PAIR] = 0;
		d->sum += alloc ? bytes : -bytes;
		if (sqlite3_column_type(st, 7) != SQLITE_NULL && mp_total(d, sqlite3_column_int64(st, 2),
									 sqlite3_column_int64(st, 7)))
			goto nomem;
		if (sqlite3_column_type(st, 4) != SQLITE_NULL && mp_pair(c, &s, d, c->n, st))
			goto nomem;
		row->v[MP_LIVE] = d->live;
		row->v[MP_SUM] = d->sum;
		row->v[MP_TOTAL] = d->total;
		c->n++;
	}
	mp_state_release(&s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
nomem:
	mp_state_release(&s);
	return SQLITE_NOMEM;
}

static int mp_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	return sqlext_connect(db, "CREATE TABLE x(session_id INTEGER, event INTEGER, seq INTEGER, pair INTEGER, "
			      "live_bytes INTEGER, sum_bytes INTEGER, total_bytes INTEGER)", NULL, out);
}

/* An equality on session_id is used (idxNum 1); without one, every session. */
static int mp_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	int i;
	(void)v;
	ix->idxNum = 0;
	ix->estimatedCost = 1e6;
	for (i = 0; i < ix->nConstraint; i++)
		if (ix->aConstraint[i].usable && ix->aConstraint[i].iColumn == MP_SESSION &&
		    ix->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ) {
			ix->aConstraintUsage[i].argvIndex = 1;
			ix->aConstraintUsage[i].omit = 1;
			ix->idxNum = 1;
			ix->estimatedCost = 1e5;
			break;
		}
	return SQLITE_OK;
}

static int mp_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct mp_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->db = ((struct sqlext_vtab *)v)->db;
	*out = &c->base;
	return SQLITE_OK;
}

static int mp_close(sqlite3_vtab_cursor *cur)
{
	struct mp_cursor *c = (struct mp_cursor *)cur;
	sqlite3_free(c->rows);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int mp_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	static const char *const sql[] = {
		"SELECT session_id, rowid, pid, coalesce(device_id, -1), address, op = 1, bytes, total_allocated "
		"FROM memory_events ORDER BY session_id, ts_ns, rowid",
		"SELECT session_id, rowid, pid, coalesce(device_id, -1), address, op = 1, bytes, total_allocated "
		"FROM memory_events WHERE session_id = ?1 ORDER BY ts_ns, rowid",
	};
	struct mp_cursor *c = (struct mp_cursor *)cur;
	sqlite3_stmt *st;
	int rc;
	(void)idxstr;
	(void)argc;
	c->n = c->i = 0;
	rc = sqlite3_prepare_v2(c->db, sql[idx == 1], -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	if (idx == 1)
		sqlite3_bind_value(st, 1, argv[0]);
	rc = mp_load(c, st);
	sqlite3_finalize(st);
	return rc;
}

static int mp_next(sqlite3_vtab_cursor *cur)
{
	((struct mp_cursor *)cur)->i++;
	return SQLITE_OK;
}

static int mp_eof(sqlite3_vtab_cursor *cur)
{
	struct mp_cursor *c = (struct mp_cursor *)cur;
	return c->i >= c->n;
}

static int mp_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct mp_cursor *c = (struct mp_cursor *)cur;
	int64_t v = c->rows[c->i].v[k];
	if (k != MP_PAIR || v)
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static int mp_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct mp_cursor *)cur)->i + 1;
	return SQLITE_OK;
}

static sqlite3_module mp_module = {
	.iVersion = 0,
	.xCreate = NULL,	/* eponymous only: CREATE VIRTUAL TABLE is refused */
	.xConnect = mp_connect,
	.xBestIndex = mp_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = mp_open,
	.xClose = mp_close,
	.xFilter = mp_filter,
	.xNext = mp_next,
	.xEof = mp_eof,
	.xColumn = mp_column,
	.xRowid = mp_rowid,
};

int gpuprof_sqlite_memory(sqlite3 *db)
{
	return sqlite3_create_module(db, "memory_pairs", &mp_module, NULL);
}
