#include "sink.h"
#include "colstore.h"
#include "db.h"
#include "embed.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An open-addressing map from string to database id, for the current session. */
struct strmap_entry {
	char *s;
	size_t len;
	uint64_t hash;
	int64_t id;
};

struct sink {
	sqlite3 *db;
	sqlite3_stmt *insert[R_COUNT];
	/*
	 * SQLite keeps bindings across sqlite3_reset, so a value equal to the one already bound in that
	 * column is not bound again (launch configurations, devices and streams repeat row after row).
	 */
	struct value bound[R_COUNT][REC_MAX_FIELDS];
	int bound_valid[R_COUNT];
	sqlite3_stmt *str_find, *str_add, *err_add, *drop_add, *cerr_add;
	int in_tx;

	int64_t session_id;	/* current session, 0 outside a process */
	int session_is_new;	/* created by this process: no earlier strings to look up */
	int64_t pid;
	char *hostname;		/* of the current process, owned */
	int64_t next_string_id;
	int64_t min_ns, max_ns;	/* event times seen in this process */
	int64_t counts[R_COUNT];
	int64_t first_rowid[R_COUNT];	/* where the current process's rows of each table begin */

	struct strmap_entry *map;
	size_t map_cap, map_used;
	char **by_id;		/* id -> string, for sink_string_value */
	size_t by_id_alloc;

	/* Column chunks (colstore.h) of the current process. */
	struct colstore_writer *cs;	/* rows not yet written */
	int64_t cs_next_row[CS_TABLES];	/* first_row of the next chunk */
	int64_t cs_first_chunk;		/* id of the current process's first chunk */
	sqlite3_stmt *cs_add, *cs_set_add;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	return fnv1a(FNV1A_INIT, s, n) | 1;	/* never 0: 0 marks an empty slot */
}

static void map_clear(struct sink *s)
{
	size_t i;
	for (i = 0; i < s->map_cap; i++)
		free(s->map[i].s);
	free(s->map);
	s->map = NULL;
	s->map_cap = s->map_used = 0;
	free(s->by_id);
	s->by_id = NULL;
	s->by_id_alloc = 0;
}

static void map_grow(struct sink *s)
{
	struct strmap_entry *old = s->map;
	size_t i, oldcap = s->map_cap, mask;
	s->map_cap = oldcap ? oldcap * 2 : 1024;
	s->map = xcalloc(s->map_cap, sizeof(*s->map));
	mask = s->map_cap - 1;
	for (i = 0; i < oldcap; i++) {
		size_t j;
		if (!old[i].hash)
			continue;
		j = old[i].hash & mask;
		while (s->map[j].hash)
			j = (j + 1) & mask;
		s->map[j] = old[i];
	}
	free(old);
}

static void map_put(struct sink *s, const char *v, size_t len, uint64_t h, int64_t id)
{
	size_t j;
	if ((s->map_used + 1) * 2 > s->map_cap)
		map_grow(s);
	j = h & (s->map_cap - 1);
	while (s->map[j].hash)
		j = (j + 1) & (s->map_cap - 1);
	s->map[j].s = xstrndup(v, len);
	s->map[j].len = len;
	s->map[j].hash = h;
	s->map[j].id = id;
	s->map_used++;
	if (id >= 0 && (uint64_t)id < (1ULL << 31)) {
		size_t old = s->by_id_alloc;
		if ((size_t)id >= s->by_id_alloc) {
			ALLOC_GROW(s->by_id, (size_t)id + 1, s->by_id_alloc);
			memset(s->by_id + old, 0, (s->by_id_alloc - old) * sizeof(*s->by_id));
		}
		s->by_id[id] = s->map[j].s;
	}
}

static int64_t map_get(struct sink *s, const char *v, size_t len, uint64_t h)
{
	size_t j;
	if (!s->map_cap)
		return -1;
	j = h & (s->map_cap - 1);
	while (s->map[j].hash) {
		if (s->map[j].hash == h && s->map[j].len == len && !memcmp(s->map[j].s, v, len))
			return s->map[j].id;
		j = (j + 1) & (s->map_cap - 1);
	}
	return -1;
}

/* Tables whose rows have a primary key: a repeated declaration replaces the earlier one. */
static int replaces(enum rec_type t)
{
	return t == R_DEVICE || t == R_STALL_REASON;
}

static sqlite3_stmt *prepare_insert(sqlite3 *db, enum rec_type t)
{
	const struct rec_spec *r = &rec_specs[t];
	struct buf sql;
	sqlite3_stmt *st;
	int i;
	buf_init(&sql);
	buf_addf(&sql, "INSERT %sINTO %s (session_id, pid", replaces(t) ? "OR REPLACE " : "", r->table);
	for (i = 0; i < r->nfields; i++)
		buf_addf(&sql, ", %s", r->fields[i].column);
	buf_addstr(&sql, ") VALUES (?, ?");
	for (i = 0; i < r->nfields; i++)
		buf_addstr(&sql, ", ?");
	buf_addstr(&sql, ")");
	st = db_prepare(db, sql.s);
	buf_release(&sql);
	return st;
}

struct sink *sink_open(sqlite3 *db)
{
	struct sink *s = xcalloc(1, sizeof(*s));
	int t;
	s->db = db;
	for (t = 0; t < R_COUNT; t++)
		if (!(s->insert[t] = prepare_insert(db, t)))
			goto fail;
	s->str_find = db_prepare(db, "SELECT id FROM strings WHERE session_id = ? AND value = ?");
	s->str_add = db_prepare(db, "INSERT INTO strings (session_id, id, value) VALUES (?, ?, ?)");
	s->err_add = db_prepare(db, "INSERT INTO ingest_errors (session_id, file, line, reason, excerpt, "
				"ingested_at) VALUES (?, ?, ?, ?, ?, ?)");
	s->drop_add = db_prepare(db, "INSERT INTO drops (session_id, pid, ts_ns, source, what, count) "
				 "VALUES (?, ?, ?, ?, ?, ?)");
	s->cerr_add = db_prepare(db, "INSERT INTO collector_errors (session_id, pid, ts_ns, what, reason) "
				 "VALUES (?, ?, ?, ?, ?)");
	s->cs_add = db_prepare(db, "INSERT INTO column_chunks (tbl, session_id, pid, first_row, rows, base_ns, "
			       "data) VALUES (?, ?, ?, ?, ?, ?, ?)");
	s->cs_set_add = db_prepare(db, "INSERT INTO column_sets (session_id, hostname, pid, tbl, rows) "
				   "VALUES (?, ?, ?, ?, ?)");
	if (!s->str_find || !s->str_add || !s->err_add || !s->drop_add || !s->cerr_add || !s->cs_add ||
	    !s->cs_set_add)
		goto fail;
	if (!(s->cs = colstore_writer_new()))
		goto fail;
	return s;
fail:
	sink_free(s);
	return NULL;
}

void sink_free(struct sink *s)
{
	int t;
	if (!s)
		return;
	if (s->in_tx)
		sink_tx_rollback(s);
	for (t = 0; t < R_COUNT; t++)
		sqlite3_finalize(s->insert[t]);
	sqlite3_finalize(s->str_find);
	sqlite3_finalize(s->str_add);
	sqlite3_finalize(s->err_add);
	sqlite3_finalize(s->drop_add);
	sqlite3_finalize(s->cerr_add);
	sqlite3_finalize(s->cs_add);
	sqlite3_finalize(s->cs_set_add);
	colstore_writer_free(s->cs);
	map_clear(s);
	free(s->hostname);
	free(s);
}

/*
 * The triggers that delete column chunks when kernels or api_calls change (schemas/session.sql): the
 * sink writes chunks with the rows, so its own transaction goes without them and sink_tx_commit puts
 * them back.
 */
static int cs_triggers_drop(struct sink *s)
{
	static const char *const what[] = { "insert", "update", "delete" };
	int t, w;
	for (t = 0; t < CS_TABLES; t++)
		for (w = 0; w < 3; w++) {
			char sql[96];
			snprintf(sql, sizeof(sql), "DROP TRIGGER IF EXISTS %s_columns_%s", colstore_specs[t].table,
				 what[w]);
			if (db_exec(s->db, sql))
				return -1;
		}
	return 0;
}

int sink_tx_begin(struct sink *s)
{
	if (db_exec(s->db, "BEGIN IMMEDIATE"))
		return -1;
	s->in_tx = 1;
	if (cs_triggers_drop(s)) {
		sink_tx_rollback(s);
		return -1;
	}
	return 0;
}

int sink_tx_commit(struct sink *s)
{
	s->in_tx = 0;
	/* The schema's CREATE ... IF NOT EXISTS puts back the triggers cs_triggers_drop took away. */
	if (db_exec(s->db, embed_get("schemas/session.sql")) || db_exec(s->db, "COMMIT")) {
		db_exec(s->db, "ROLLBACK");
		return -1;
	}
	return 0;
}

void sink_tx_rollback(struct sink *s)
{
	colstore_writer_discard(s->cs);
	s->in_tx = 0;
	s->session_id = 0;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static int step_done(struct sink *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return error("sqlite: %s", sqlite3_errmsg(s->db));
	return 0;
}

/* Run a one-row, one-column query with up to two bound values; -1 on error, 0 if no row, 1 with *out. */
static int query_i64(struct sink *s, const char *sql, const char *text, int64_t a, int64_t *out)
{
	sqlite3_stmt *st = db_prepare(s->db, sql);
	int rc;
	if (!st)
		return -1;
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_int64(st, 1, a);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*out = sqlite3_column_int64(st, 0);
		rc = 1;
	} else {
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : error("sqlite: %s", sqlite3_errmsg(s->db));
	}
	sqlite3_finalize(st);
	return rc;
}

static void bind_opt_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Where the current process's chunks go: after the session's earlier ones. 0, or -1. */
static int cs_begin(struct sink *s)
{
	sqlite3_stmt *st = db_prepare(s->db, "SELECT coalesce(max(first_row + rows), 0) FROM column_chunks "
				      "WHERE tbl = ? AND session_id = ?");
	int t, rc = 0;
	if (!st)
		return -1;
	for (t = 0; t < CS_TABLES && !rc; t++) {
		sqlite3_bind_text(st, 1, colstore_specs[t].table, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, s->session_id);
		if (sqlite3_step(st) == SQLITE_ROW)
			s->cs_next_row[t] = sqlite3_column_int64(st, 0);
		else
			rc = error("sqlite: %s", sqlite3_errmsg(s->db));
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc || query_i64(s, "SELECT coalesce(max(id), 0) + 1 FROM column_chunks", NULL, 0,
			    &s->cs_first_chunk) < 0)
		return -1;
	return 0;
}

/* Write table t's chunk being encoded, if any. 0, or -1. */
static int cs_write(struct sink *s, enum colstore_table t)
{
	sqlite3_stmt *st = s->cs_add;
	struct colstore_chunk c;
	if (!colstore_writer_done(s->cs, t, &c))
		return 0;
	sqlite3_bind_text(st, 1, colstore_specs[t].table, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, c.tag[0]);
	sqlite3_bind_int64(st, 3, c.tag[1]);
	sqlite3_bind_int64(st, 4, c.tag[2]);
	sqlite3_bind_int64(st, 5, (int64_t)c.rows);
	sqlite3_bind_int64(st, 6, c.base_ns);
	sqlite3_bind_blob(st, 7, c.blob, (int)c.len, SQLITE_STATIC);
	return step_done(s, st);
}

/*
 * Hand table t's buffered rows to the encoder after writing the chunk before them; with `wait`, write
 * them too. 0, or -1.
 */
static int cs_flush(struct sink *s, enum colstore_table t, int wait)
{
	size_t n = colstore_writer_rows(s->cs, t);
	if (cs_write(s, t))
		return -1;
	if (n) {
		int64_t tag[3] = { s->session_id, s->pid, s->cs_next_row[t] };
		colstore_writer_seal(s->cs, t, tag);
		s->cs_next_row[t] += (int64_t)n;
	}
	return wait ? cs_write(s, t) : 0;
}

/* The current process is complete: its last chunks, and its column_sets rows. 0, or -1. */
static int cs_end(struct sink *s)
{
	sqlite3_stmt *st = s->cs_set_add;
	int t;
	for (t = 0; t < CS_TABLES; t++) {
		if (cs_flush(s, t, 1))
			return -1;
		sqlite3_bind_int64(st, 1, s->session_id);
		sqlite3_bind_text(st, 2, s->hostname, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, s->pid);
		sqlite3_bind_text(st, 4, colstore_specs[t].table, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, s->counts[colstore_specs[t].rec]);
		if (step_done(s, st))
			return -1;
	}
	return 0;
}

int sink_process_begin(struct sink *s, const struct sink_process *p)
{
	sqlite3_stmt *st;
	char when[32];
	int64_t sid = 0, n = 0;
	int rc, t;

	map_clear(s);
	memset(s->counts, 0, sizeof(s->counts));
	s->min_ns = INT64_MAX;
	s->max_ns = INT64_MIN;
	s->pid = p->pid;
	free(s->hostname);
	s->hostname = xstrdup(p->hostname ? p->hostname : "");

	rc = query_i64(s, "SELECT id FROM sessions WHERE uuid = ?", p->uuid, 0, &sid);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		st = db_prepare(s->db, "SELECT count(*) FROM processes WHERE session_id = ? AND hostname = ? "
				"AND pid = ?");
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, sid);
		sqlite3_bind_text(st, 2, s->hostname, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 3, p->pid);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		if (n)
			return 1;
		s->session_is_new = 0;
	} else {
		db_timestamp(when);
		st = db_prepare(s->db, "INSERT INTO sessions (uuid, source, path, program, args, hostname, "
				"engine, collector, options, format_version, origin_ns, clean_end, ingested_at) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)");
		if (!st)
			return -1;
		bind_opt_text(st, 1, p->uuid);
		bind_opt_text(st, 2, p->source);
		bind_opt_text(st, 3, p->path);
		bind_opt_text(st, 4, p->program);
		bind_opt_text(st, 5, p->args_json);
		bind_opt_text(st, 6, p->hostname);
		bind_opt_text(st, 7, p->engine);
		bind_opt_text(st, 8, p->collector);
		bind_opt_text(st, 9, p->options_json);
		sqlite3_bind_int64(st, 10, p->format_version);
		sqlite3_bind_int64(st, 11, p->origin_ns);
		bind_opt_text(st, 12, when);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return error("sqlite: %s", sqlite3_errmsg(s->db));
		sid = sqlite3_last_insert_rowid(s->db);
		s->session_is_new = 1;
	}
	s->session_id = sid;
	for (t = 0; t < R_COUNT; t++) {
		sqlite3_bind_int64(s->insert[t], 1, sid);
		sqlite3_bind_int64(s->insert[t], 2, p->pid);
		s->bound_valid[t] = 0;
	}
	if (query_i64(s, "SELECT coalesce(max(id), 0) + 1 FROM strings WHERE session_id = ?", NULL, sid,
		      &s->next_string_id) < 0)
		return -1;
	if (cs_begin(s))
		return -1;
	for (t = 0; t < R_COUNT; t++) {
		struct buf sql;
		buf_init(&sql);
		buf_addf(&sql, "SELECT coalesce(max(rowid), 0) + 1 FROM %s", rec_specs[t].table);
		rc = query_i64(s, sql.s, NULL, 0, &s->first_rowid[t]);
		buf_release(&sql);
		if (rc < 0)
			return -1;
	}

	st = db_prepare(s->db, "INSERT INTO processes (session_id, pid, ppid, hostname, program, args, file, "
			"origin_ns, rank) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, sid);
	sqlite3_bind_int64(st, 2, p->pid);
	sqlite3_bind_int64(st, 3, p->ppid);
	sqlite3_bind_text(st, 4, s->hostname, -1, SQLITE_TRANSIENT);
	bind_opt_text(st, 5, p->program);
	bind_opt_text(st, 6, p->args_json);
	bind_opt_text(st, 7, p->file);
	sqlite3_bind_int64(st, 8, p->origin_ns);
	if (p->rank >= 0)
		sqlite3_bind_int64(st, 9, p->rank);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("sqlite: %s", sqlite3_errmsg(s->db));
	return 0;
}

int sink_process_end(struct sink *s, int clean_end, int64_t end_ns)
{
	sqlite3_stmt *st;
	int rc;
	int64_t first = s->min_ns, last = s->max_ns;
	if (end_ns > last)
		last = end_ns;
	if (first == INT64_MAX)
		first = last = end_ns;
	if (cs_end(s))
		return -1;
	st = db_prepare(s->db, "UPDATE processes SET end_ns = ?, clean_end = ? WHERE session_id = ? AND "
			"hostname = ? AND pid = ?");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, last);
	sqlite3_bind_int(st, 2, clean_end);
	sqlite3_bind_int64(st, 3, s->session_id);
	sqlite3_bind_text(st, 4, s->hostname, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, s->pid);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("sqlite: %s", sqlite3_errmsg(s->db));

	st = db_prepare(s->db, "UPDATE sessions SET start_ns = min(coalesce(start_ns, ?1), ?1), "
			"end_ns = max(coalesce(end_ns, ?2), ?2), clean_end = min(clean_end, ?3) WHERE id = ?4");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, first);
	sqlite3_bind_int64(st, 2, last);
	sqlite3_bind_int(st, 3, clean_end);
	sqlite3_bind_int64(st, 4, s->session_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("sqlite: %s", sqlite3_errmsg(s->db));
	s->session_id = 0;
	map_clear(s);
	return 0;
}

int64_t sink_session_id(const struct sink *s)
{
	return s->session_id;
}

int64_t sink_string(struct sink *s, const char *v, size_t len)
{
	uint64_t h = hash_bytes(v, len);
	int64_t id = map_get(s, v, len, h);
	if (id >= 0)
		return id;
	if (!s->session_is_new) {
		sqlite3_bind_int64(s->str_find, 1, s->session_id);
		sqlite3_bind_text(s->str_find, 2, v, (int)len, SQLITE_STATIC);
		if (sqlite3_step(s->str_find) == SQLITE_ROW)
			id = sqlite3_column_int64(s->str_find, 0);
		sqlite3_reset(s->str_find);
	}
	if (id < 0) {
		id = s->next_string_id++;
		sqlite3_bind_int64(s->str_add, 1, s->session_id);
		sqlite3_bind_int64(s->str_add, 2, id);
		sqlite3_bind_text(s->str_add, 3, v, (int)len, SQLITE_STATIC);
		if (step_done(s, s->str_add))
			return -1;
	}
	map_put(s, v, len, h, id);
	return id;
}

const char *sink_string_value(struct sink *s, int64_t id)
{
	if (id < 0 || (size_t)id >= s->by_id_alloc)
		return NULL;
	return s->by_id[id];
}

/*
 * A kernel's shared memory per block is one number wherever it is read (kernels.shared_mem): static +
 * dynamic when a source gives both parts and no total; the total alone when that is all a source gives
 * (Kineto), its parts NULL. vals, or tmp filled with the total.
 */
static const struct value *smem_total(const struct value *vals, struct value *tmp)
{
	static int f_total = -1, f_static, f_dynamic;
	if (f_total < 0) {
		f_total = rec_field(R_KERNEL, "shared_mem");
		f_static = rec_field(R_KERNEL, "static_smem");
		f_dynamic = rec_field(R_KERNEL, "dynamic_smem");
	}
	if (!vals[f_total].null || vals[f_static].null || vals[f_dynamic].null)
		return vals;
	memcpy(tmp, vals, (size_t)rec_specs[R_KERNEL].nfields * sizeof(*vals));
	tmp[f_total].null = 0;
	tmp[f_total].i = vals[f_static].i + vals[f_dynamic].i;
	return tmp;
}

int sink_add(struct sink *s, enum rec_type t, const struct value *vals)
{
	const struct rec_spec *r = &rec_specs[t];
	sqlite3_stmt *st = s->insert[t];
	struct value *bound = s->bound[t];
	struct value tmp[REC_MAX_FIELDS];
	int i, valid = s->bound_valid[t];
	if (t == R_KERNEL)
		vals = smem_total(vals, tmp);
	for (i = 0; i < r->nfields; i++) {
		const struct value *v = &vals[i];
		enum field_kind kind = r->fields[i].kind;
		int col = i + 3;
		if (valid && kind != F_TEXT && kind != F_STRTEXT && kind != F_NUM && v->null == bound[i].null &&
		    (v->null || v->i == bound[i].i))
			continue;
		bound[i].null = v->null;
		bound[i].i = v->i;
		if (v->null) {
			sqlite3_bind_null(st, col);
			continue;
		}
		switch (kind) {
		case F_TIME:
		case F_TIMEN:
			if (v->i < s->min_ns)
				s->min_ns = v->i;
			if (v->i > s->max_ns)
				s->max_ns = v->i;
			sqlite3_bind_int64(st, col, v->i);
			break;
		case F_NUM:
			sqlite3_bind_double(st, col, v->d);
			break;
		case F_TEXT:
			sqlite3_bind_text(st, col, v->s, -1, SQLITE_STATIC);
			break;
		case F_STRTEXT: {
			const char *str = sink_string_value(s, v->i);
			if (str)
				sqlite3_bind_text(st, col, str, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(st, col);
			break;
		}
		default:
			sqlite3_bind_int64(st, col, v->i);
		}
	}
	s->bound_valid[t] = 1;
	if (step_done(s, st))
		return -1;
	s->counts[t]++;
	for (i = 0; i < CS_TABLES; i++)
		if (colstore_specs[i].rec == t && colstore_writer_add(s->cs, i, s->pid, vals) && cs_flush(s, i, 0))
			return -1;
	return 0;
}

int64_t sink_count(const struct sink *s, enum rec_type t)
{
	return s->counts[t];
}

int sink_drop(struct sink *s, int64_t ts_ns, const char *source, const char *what, int64_t count)
{
	sqlite3_stmt *st = s->drop_add;
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, s->pid);
	sqlite3_bind_int64(st, 3, ts_ns);
	sqlite3_bind_text(st, 4, source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, what, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, count);
	return step_done(s, st);
}

int sink_collector_error(struct sink *s, int64_t ts_ns, const char *what, const char *reason)
{
	sqlite3_stmt *st = s->cerr_add;
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, s->pid);
	sqlite3_bind_int64(st, 3, ts_ns);
	bind_opt_text(st, 4, what);
	sqlite3_bind_text(st, 5, reason, -1, SQLITE_TRANSIENT);
	return step_done(s, st);
}

int sink_skipped(struct sink *s, const char *file, const char *cat, const char *ph, int64_t count, int64_t gpu)
{
	sqlite3_stmt *st = db_prepare(s->db, "INSERT INTO ingest_skipped (session_id, pid, file, category, ph, "
				      "events, gpu_events) VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, s->pid);
	sqlite3_bind_text(st, 3, file, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, cat, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, ph, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, count);
	sqlite3_bind_int64(st, 7, gpu);
	if (sqlite3_step(st) != SQLITE_DONE) {
		error("sqlite: %s", sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

int sink_ingest_error(struct sink *s, const char *file, int64_t line, const char *reason, const char *excerpt)
{
	sqlite3_stmt *st = s->err_add;
	char when[32];
	db_timestamp(when);
	if (s->session_id)
		sqlite3_bind_int64(st, 1, s->session_id);
	else
		sqlite3_bind_null(st, 1);
	sqlite3_bind_text(st, 2, file, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, line);
	sqlite3_bind_text(st, 4, reason, -1, SQLITE_TRANSIENT);
	bind_opt_text(st, 5, excerpt);
	sqlite3_bind_text(st, 6, when, -1, SQLITE_TRANSIENT);
	return step_done(s, st);
}

int sink_shift_times(struct sink *s, int64_t offset_ns)
{
	int t, i;
	if (!offset_ns)
		return 0;
	/*
	 * The current process's rows are those it inserted: from first_rowid on (not "this session and
	 * pid", which another host's process of the session may share). One UPDATE per table.
	 */
	for (t = 0; t < R_COUNT; t++) {
		const struct rec_spec *r = &rec_specs[t];
		struct buf sql;
		sqlite3_stmt *st;
		int rc, n = 0;
		if (!s->counts[t])
			continue;
		buf_init(&sql);
		buf_addf(&sql, "UPDATE %s SET ", r->table);
		for (i = 0; i < r->nfields; i++)
			if (r->fields[i].kind == F_TIME || r->fields[i].kind == F_TIMEN)
				buf_addf(&sql, "%s%s = %s + ?1", n++ ? ", " : "", r->fields[i].column,
					 r->fields[i].column);
		buf_addstr(&sql, " WHERE rowid >= ?2");
		st = n ? db_prepare(s->db, sql.s) : NULL;
		buf_release(&sql);
		if (!n)
			continue;
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, offset_ns);
		sqlite3_bind_int64(st, 2, s->first_rowid[t]);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return error("sqlite: %s", sqlite3_errmsg(s->db));
	}
	/* Chunks: the rows still buffered, and the base of those written. */
	for (t = 0; t < CS_TABLES; t++) {
		if (cs_write(s, t))
			return -1;
		colstore_writer_shift(s->cs, t, offset_ns);
	}
	{
		sqlite3_stmt *st = db_prepare(s->db, "UPDATE column_chunks SET base_ns = base_ns + ? WHERE id >= ?");
		int rc;
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, offset_ns);
		sqlite3_bind_int64(st, 2, s->cs_first_chunk);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return error("sqlite: %s", sqlite3_errmsg(s->db));
	}
	if (s->min_ns != INT64_MAX) {
		s->min_ns += offset_ns;
		s->max_ns += offset_ns;
	}
	return 0;
}

/* Rows of one process in a table being rebuilt. */
struct rebuild_count {
	int64_t session, pid, rows;
};

/*
 * Table t's column_sets rows of session `session`: each process's rows counted in cnt (a pid two hosts
 * share counts once, at the first). 0, or -1.
 */
static int rebuild_sets(struct sink *s, enum colstore_table t, int64_t session, struct rebuild_count *cnt,
			size_t ncnt)
{
	sqlite3_stmt *st = db_prepare(s->db, "SELECT hostname, pid FROM processes WHERE session_id = ? "
				      "ORDER BY rowid");
	int rc;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(st, 1), rows = 0;
		size_t j;
		for (j = 0; j < ncnt; j++)
			if (cnt[j].session == session && cnt[j].pid == pid) {
				rows += cnt[j].rows;
				cnt[j].rows = 0;
			}
		sqlite3_bind_int64(s->cs_set_add, 1, session);
		sqlite3_bind_text(s->cs_set_add, 2, (const char *)sqlite3_column_text(st, 0), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s->cs_set_add, 3, pid);
		sqlite3_bind_text(s->cs_set_add, 4, colstore_specs[t].table, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->cs_set_add, 5, rows);
		if (step_done(s, s->cs_set_add)) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	if (rc != SQLITE_DONE)
		error("sqlite: %s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Rebuild table t's chunks of the sessions in temp.reindex from the rows, in one scan of the table in
 * rowid order (a chunk ends where the session or the process changes), then their column_sets rows.
 * 0, or -1.
 */
static int rebuild(struct sink *s, enum colstore_table t)
{
	const struct colstore_spec *sp = &colstore_specs[t];
	struct rebuild_count *cnt = NULL;
	int64_t v[COLSTORE_MAX_COLS];
	size_t ncnt = 0, alloc = 0, i;
	sqlite3_stmt *st;
	struct buf sql;
	int k, rc, status = -1;

	buf_init(&sql);
	buf_addstr(&sql, "SELECT session_id");
	for (k = 0; k < sp->ncols; k++)
		buf_addf(&sql, ", %s", colstore_sql(t, k));
	buf_addf(&sql, " FROM %s WHERE session_id IN (SELECT id FROM temp.reindex) ORDER BY rowid", sp->table);
	st = db_prepare(s->db, sql.s);
	buf_release(&sql);
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(st, 0);
		for (k = 0; k < sp->ncols; k++)
			v[k] = sqlite3_column_int64(st, k + 1);
		if (!ncnt || cnt[ncnt - 1].session != sid || cnt[ncnt - 1].pid != v[0]) {
			/* A new run: the one before ends its chunk; this one goes after its session's rows. */
			if (ncnt && cs_flush(s, t, 0))
				goto out;
			s->cs_next_row[t] = 0;
			for (i = 0; i < ncnt; i++)
				if (cnt[i].session == sid)
					s->cs_next_row[t] += cnt[i].rows;
			s->session_id = sid;
			s->pid = v[0];
			ALLOC_GROW(cnt, ncnt + 1, alloc);
			cnt[ncnt++] = (struct rebuild_count){ sid, v[0], 0 };
		}
		cnt[ncnt - 1].rows++;
		if (colstore_writer_append(s->cs, t, v) && cs_flush(s, t, 0))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		error("sqlite: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	if (cs_flush(s, t, 1))
		goto out;
	sqlite3_finalize(st);
	st = db_prepare(s->db, "SELECT id FROM temp.reindex ORDER BY id");
	while (st && (rc = sqlite3_step(st)) == SQLITE_ROW)
		if (rebuild_sets(s, t, sqlite3_column_int64(st, 0), cnt, ncnt))
			goto out;
	status = st && rc == SQLITE_DONE ? 0 : -1;
out:
	sqlite3_finalize(st);
	free(cnt);
	s->session_id = 0;
	return status;
}

int sink_reindex(struct sink *s, int64_t *rebuilt)
{
	static const char *const steps[] = {
		/* The sessions (with processes: chunks cover processes) whose chunks are not complete. */
		"DELETE FROM temp.reindex",
		"INSERT INTO temp.reindex SELECT id FROM sessions WHERE EXISTS (SELECT 1 FROM processes WHERE "
		"session_id = sessions.id) AND NOT coalesce((" COLSTORE_COMPLETE_SQL_OF("sessions.id", "?1") "), 0)",
		"INSERT OR IGNORE INTO temp.reindexed SELECT id FROM temp.reindex",
		"DELETE FROM column_chunks WHERE tbl = ?1 AND session_id IN (SELECT id FROM temp.reindex)",
		"DELETE FROM column_sets WHERE tbl = ?1 AND session_id IN (SELECT id FROM temp.reindex)",
	};
	sqlite3_stmt *st;
	int t, todo;
	size_t i;

	*rebuilt = 0;
	if (sink_tx_begin(s))
		return -1;
	if (db_exec(s->db, "CREATE TEMP TABLE IF NOT EXISTS reindex (id INTEGER PRIMARY KEY); "
		    "CREATE TEMP TABLE IF NOT EXISTS reindexed (id INTEGER PRIMARY KEY); DELETE FROM temp.reindexed"))
		goto fail;
	for (t = 0; t < CS_TABLES; t++) {
		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			if (!(st = db_prepare(s->db, steps[i])))
				goto fail;
			if (sqlite3_bind_parameter_count(st))
				sqlite3_bind_text(st, 1, colstore_specs[t].table, -1, SQLITE_STATIC);
			if (step_done(s, st)) {
				sqlite3_finalize(st);
				goto fail;
			}
			sqlite3_finalize(st);
		}
		if (!(st = db_prepare(s->db, "SELECT EXISTS (SELECT 1 FROM temp.reindex)")))
			goto fail;
		todo = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		if (todo && rebuild(s, t))
			goto fail;
	}
	if (!(st = db_prepare(s->db, "SELECT count(*) FROM temp.reindexed")))
		goto fail;
	if (sqlite3_step(st) == SQLITE_ROW)
		*rebuilt = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return sink_tx_commit(s);
fail:
	sink_tx_rollback(s);
	return -1;
}

int sink_set_rank(struct sink *s, int64_t rank)
{
	sqlite3_stmt *st = db_prepare(s->db, "UPDATE processes SET rank = ? WHERE session_id = ? AND hostname = ? "
				      "AND pid = ?");
	int rc;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, rank);
	sqlite3_bind_int64(st, 2, s->session_id);
	sqlite3_bind_text(st, 3, s->hostname, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, s->pid);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : error("sqlite: %s", sqlite3_errmsg(s->db));
}
