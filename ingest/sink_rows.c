/*
 * sink_rows: row writing. One prepared INSERT per record type, built from records.c's table; each row
 * also goes to the chunk encoder when its table has column chunks.
 */
#include "sink_int.h"
#include "db.h"
#include "nvtx_op.h"

#include <string.h>

/* Tables whose rows have a primary key: a repeated declaration replaces the earlier one. */
static int replaces(enum rec_type t)
{
	return t == R_DEVICE || t == R_STALL_REASON;
}

sqlite3_stmt *sink_rows_prepare(sqlite3 *db, enum rec_type t)
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

/* Whether table t's rows may wait for an insert of many: every field an integer, no row replacing another. */
static int waits(enum rec_type t)
{
	const struct rec_spec *r = &rec_specs[t];
	int i;
	if (replaces(t))
		return 0;
	for (i = 0; i < r->nfields; i++)
		if (r->fields[i].kind == F_TEXT || r->fields[i].kind == F_STRTEXT || r->fields[i].kind == F_NUM)
			return 0;
	return 1;
}

int sink_rows_prepare_many(struct sink *s, enum rec_type t)
{
	const struct rec_spec *r = &rec_specs[t];
	struct buf sql;
	int i, k;
	if (!waits(t))
		return 0;
	/*
	 * OR FAIL: a row that breaks a constraint fails the statement without undoing the rows before it
	 * (the sink gives up then anyway), so SQLite keeps no statement journal and an I/O error (a full
	 * disk) rolls the transaction back as a one-row INSERT's does.
	 */
	buf_init(&sql);
	buf_addf(&sql, "INSERT OR FAIL INTO %s (session_id, pid", r->table);
	for (i = 0; i < r->nfields; i++)
		buf_addf(&sql, ", %s", r->fields[i].column);
	buf_addstr(&sql, ") VALUES ");
	for (k = 0; k < SINK_MANY; k++) {	/* row k's field i is parameter 3 + k * nfields + i */
		buf_addstr(&sql, k ? ", (?1, ?2" : "(?1, ?2");
		for (i = 0; i < r->nfields; i++)
			buf_addf(&sql, ", ?%d", 3 + k * r->nfields + i);
		buf_addstr(&sql, ")");
	}
	s->insert_many[t] = db_prepare(s->db, sql.s);
	buf_release(&sql);
	if (!s->insert_many[t])
		return -1;
	s->waiting[t] = xcalloc((size_t)SINK_MANY * (size_t)r->nfields, sizeof(struct value));
	s->bound_many[t] = xcalloc((size_t)SINK_MANY * (size_t)r->nfields, sizeof(struct value));
	return 0;
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

/*
 * A push/pop range whose text is one torch.autograd.profiler.emit_nvtx gives an op (ingest/nvtx_op.h) is an op
 * too: a row of ops (source 2) beside the range, whatever reader read the range (nsys exports, gpuprof's
 * sessions, replayed spools). A range that never ended is none. 0, or -1 on failure.
 */
static int nvtx_op(struct sink *s, const struct value *vals)
{
	static int f_kind = -1, f_start, f_end, f_thread, f_name;
	static int o[13];
	static const char *const ofields[] = { "thread", "start", "end", "name", "external", "seq", "fwd_tid",
					       "record_function", "input_dims", "input_types", "input_strides",
					       "concrete_inputs", "source" };
	struct value v[REC_MAX_FIELDS];
	struct nvtx_op op;
	const char *text;
	struct buf dims, copy;
	int i, rc;
	if (f_kind < 0) {
		f_start = rec_field(R_RANGE, "start");
		f_end = rec_field(R_RANGE, "end");
		f_thread = rec_field(R_RANGE, "thread");
		f_name = rec_field(R_RANGE, "name");
		for (i = 0; i < 13; i++)
			o[i] = rec_field(R_TORCH_OP, ofields[i]);
		f_kind = rec_field(R_RANGE, "kind");
	}
	if (vals[f_kind].null || vals[f_kind].i != 1 || vals[f_end].null || vals[f_name].null)
		return 0;
	buf_init(&copy);
	if (!(text = sink_string_value(s, vals[f_name].i))) {
		/* A string of the session this process did not intern itself (a replayed spool's later process). */
		sqlite3_bind_int64(s->str_get, 1, s->session_id);
		sqlite3_bind_int64(s->str_get, 2, vals[f_name].i);
		if (sqlite3_step(s->str_get) == SQLITE_ROW && sqlite3_column_text(s->str_get, 0)) {
			buf_add(&copy, (const char *)sqlite3_column_text(s->str_get, 0),
				(size_t)sqlite3_column_bytes(s->str_get, 0));
			text = copy.s;
		}
		sqlite3_reset(s->str_get);
	}
	if (!text || !nvtx_op_parse(text, strlen(text), &op)) {
		buf_release(&copy);
		return 0;
	}
	memset(v, 0, sizeof(v));
	for (i = 0; i < rec_specs[R_TORCH_OP].nfields; i++)
		v[i].null = 1;
	v[o[0]] = vals[f_thread];
	v[o[1]] = vals[f_start];
	v[o[2]] = vals[f_end];
	v[o[3]].null = 0;
	v[o[3]].i = sink_string(s, text, op.name_len);
	v[o[4]].null = !op.has_op_id;
	v[o[4]].i = op.op_id;
	v[o[5]].null = !op.has_seq;
	v[o[5]].i = op.seq;
	v[o[12]].null = 0;
	v[o[12]].i = 2;
	buf_init(&dims);	/* (the sizes as JSON text: as the producer wrote them, NUL-terminated) */
	if (op.sizes) {
		buf_add(&dims, op.sizes, op.sizes_len);
		v[o[8]].null = 0;
		v[o[8]].s = dims.s;
	}
	rc = v[o[3]].i < 0 ? -1 : sink_add(s, R_TORCH_OP, v);
	buf_release(&dims);
	buf_release(&copy);
	return rc;
}

/* The event times of a row into the process's span. */
static void times_seen(struct sink *s, const struct rec_spec *r, const struct value *vals)
{
	int i;
	for (i = 0; i < r->nfields; i++)
		if ((r->fields[i].kind == F_TIME || r->fields[i].kind == F_TIMEN) && !vals[i].null) {
			if (vals[i].i < s->min_ns)
				s->min_ns = vals[i].i;
			if (vals[i].i > s->max_ns)
				s->max_ns = vals[i].i;
		}
}

/* The SINK_MANY rows waiting for table t, in one INSERT. 0, or -1. */
static int insert_many(struct sink *s, enum rec_type t)
{
	const struct rec_spec *r = &rec_specs[t];
	sqlite3_stmt *st = s->insert_many[t];
	struct value *bound = s->bound_many[t];
	const struct value *v = s->waiting[t];
	int i, n = SINK_MANY * r->nfields, valid = s->bound_many_valid[t];
	for (i = 0; i < n; i++) {
		if (valid && v[i].null == bound[i].null && (v[i].null || v[i].i == bound[i].i))
			continue;
		bound[i].null = v[i].null;
		bound[i].i = v[i].i;
		if (v[i].null)
			sqlite3_bind_null(st, i + 3);
		else
			sqlite3_bind_int64(st, i + 3, v[i].i);
	}
	s->bound_many_valid[t] = 1;
	return sink_step(s, st);
}

/* One row of table t by its own INSERT. 0, or -1. */
static int insert_one(struct sink *s, enum rec_type t, const struct value *vals)
{
	const struct rec_spec *r = &rec_specs[t];
	sqlite3_stmt *st = s->insert[t];
	struct value *bound = s->bound[t];
	int i, valid = s->bound_valid[t];
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
			sqlite3_bind_int64(st, col, v->i);
			break;
		case F_NUM:
			sqlite3_bind_double(st, col, v->d);
			break;
		case F_TEXT: {
			const char *text = sink_fix(s, v->s, 1);	/* invalid UTF-8 replaced, counted */
			sqlite3_bind_text(st, col, text, -1, text == v->s ? SQLITE_STATIC : SQLITE_TRANSIENT);
			break;
		}
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
	return sink_step(s, st);
}

int sink_rows_flush(struct sink *s)
{
	int t, k;
	for (t = 0; t < R_COUNT; t++) {
		/* A full batch is written as it fills: what waits is fewer rows, each by its own INSERT. */
		for (k = 0; k < s->nwaiting[t]; k++)
			if (insert_one(s, (enum rec_type)t, s->waiting[t] + (size_t)k * (size_t)rec_specs[t].nfields)) {
				sink_rows_drop(s);
				return -1;
			}
		s->nwaiting[t] = 0;
	}
	return 0;
}

void sink_rows_drop(struct sink *s)
{
	int t;
	for (t = 0; t < R_COUNT; t++)
		s->nwaiting[t] = 0;
}

int sink_add(struct sink *s, enum rec_type t, const struct value *vals)
{
	const struct rec_spec *r = &rec_specs[t];
	struct value tmp[REC_MAX_FIELDS];
	int i;
	if (s->spool)
		return sink_spool_add(s, t, vals);
	if (util_stop_signal())
		return -1;	/* a stop signal: quietly (util.h), the reader rolls back */
	if (t == R_KERNEL)
		vals = smem_total(vals, tmp);
	times_seen(s, r, vals);
	if (s->insert_many[t]) {
		memcpy(s->waiting[t] + (size_t)s->nwaiting[t] * (size_t)r->nfields, vals,
		       (size_t)r->nfields * sizeof(*vals));
		if (++s->nwaiting[t] == SINK_MANY) {
			s->nwaiting[t] = 0;
			if (insert_many(s, t))
				return -1;
		}
	} else if (insert_one(s, t, vals)) {
		return -1;
	}
	s->counts[t]++;
	__atomic_store_n(&s->rows, s->rows + 1, __ATOMIC_RELAXED);	/* (one writer) */
	for (i = 0; i < CS_TABLES; i++)
		if (colstore_specs[i].rec == t && colstore_writer_add(s->cs, i, s->pid, vals) && sink_chunks_flush(s, i, 0))
			return -1;
	return t == R_RANGE ? nvtx_op(s, vals) : 0;
}

int64_t sink_count(const struct sink *s, enum rec_type t)
{
	return s->counts[t];
}

int64_t sink_rows(struct sink *s)
{
	return __atomic_load_n(&s->rows, __ATOMIC_RELAXED);
}

int sink_shift_times(struct sink *s, int64_t offset_ns)
{
	int t, i;
	if (!offset_ns)
		return 0;
	if (s->spool)
		return sink_spool_shift(s, offset_ns);
	if (sink_rows_flush(s))
		return -1;	/* the rows waiting are shifted with the others */
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
			return db_error(s->db);
	}
	/* Chunks: the rows still buffered, and the base of those written. */
	if (sink_chunks_shift(s, offset_ns))
		return -1;
	if (s->min_ns != INT64_MAX) {
		s->min_ns += offset_ns;
		s->max_ns += offset_ns;
	}
	return 0;
}
