/*
 * sink: the sink's life (open, free, transactions), sessions and processes, and the bookkeeping tables
 * (drops, collector_errors, ingest_skipped, ingest_errors). Strings, rows and chunks have files of their
 * own (sink_int.h says which).
 */
#include "sink_int.h"
#include "db.h"
#include "embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sink *sink_open(sqlite3 *db)
{
	struct sink *s = xcalloc(1, sizeof(*s));
	int t;
	s->db = db;
	for (t = 0; t < R_COUNT; t++)
		if (!(s->insert[t] = sink_rows_prepare(db, t)))
			goto fail;
	s->str_find = db_prepare(db, "SELECT id FROM strings WHERE session_id = ? AND value = ?");
	s->str_add = db_prepare(db, "INSERT INTO strings (session_id, id, value) VALUES (?, ?, ?)");
	s->str_get = db_prepare(db, "SELECT value FROM strings WHERE session_id = ? AND id = ?");
	s->str_add_once = db_prepare(db, "INSERT OR IGNORE INTO strings (session_id, id, value) VALUES (?, ?, ?)");
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
	if (!s->str_find || !s->str_add || !s->str_get || !s->str_add_once || !s->err_add || !s->drop_add || !s->cerr_add || !s->cs_add ||
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
	if (s->spool)
		util_divert_messages(NULL, NULL);	/* (sink_spool_open diverted them) */
	if (s->in_tx)
		sink_tx_rollback(s);
	for (t = 0; t < R_COUNT; t++)
		sqlite3_finalize(s->insert[t]);
	sqlite3_finalize(s->str_find);
	sqlite3_finalize(s->str_add);
	sqlite3_finalize(s->str_get);
	sqlite3_finalize(s->str_add_once);
	sqlite3_finalize(s->err_add);
	sqlite3_finalize(s->drop_add);
	sqlite3_finalize(s->cerr_add);
	sqlite3_finalize(s->cs_add);
	sqlite3_finalize(s->cs_set_add);
	colstore_writer_free(s->cs);
	sink_strings_clear(s);
	free(s->hostname);
	free(s->spool_session);
	if (s->check)
		fclose(s->spool);
	free(s);
}

/* Open a transaction without the triggers that retire chunks (the sink writes chunks with the rows). */
static int tx_open(struct sink *s)
{
	if (db_exec(s->db, "BEGIN IMMEDIATE"))
		return -1;
	if (sink_chunks_triggers_drop(s)) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/*
 * Commit it: the schema's CREATE ... IF NOT EXISTS puts back the triggers tx_open took away. -1 without
 * a message when no transaction is open: SQLite rolled it back itself after an error (an I/O error, a
 * full disk), whose message was printed then.
 */
static int tx_close(struct sink *s)
{
	if (sqlite3_get_autocommit(s->db))
		return -1;
	if (db_exec(s->db, embed_get("schemas/session.sql")) || db_exec(s->db, "COMMIT")) {
		/* Quietly: a failed COMMIT may have ended the transaction, and "no transaction is active" says nothing. */
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

int sink_batch_begin(struct sink *s)
{
	if (tx_open(s))
		return -1;
	s->outer = 1;
	return 0;
}

int sink_batch_active(const struct sink *s)
{
	return s->outer;
}

int sink_batch_commit(struct sink *s)
{
	s->outer = 0;
	return tx_close(s);
}

int sink_tx_begin(struct sink *s)
{
	if (s->spool)
		return sink_spool_tx(s, 'B');
	if (s->outer) {
		if (db_exec(s->db, "SAVEPOINT input"))
			return -1;
		s->in_tx = 1;
		return 0;
	}
	if (tx_open(s))
		return -1;
	s->in_tx = 1;
	return 0;
}

int sink_tx_commit(struct sink *s)
{
	if (s->spool)
		return sink_spool_tx(s, 'C');
	if (s->outer) {
		s->in_tx = 0;
		return db_exec(s->db, "RELEASE input");
	}
	s->in_tx = 0;
	return tx_close(s);
}

void sink_tx_rollback(struct sink *s)
{
	if (s->spool) {
		sink_spool_tx(s, 'R');
		return;
	}
	colstore_writer_discard(s->cs);
	s->in_tx = 0;
	s->session_id = 0;
	if (s->outer)
		sqlite3_exec(s->db, "ROLLBACK TO input; RELEASE input", NULL, NULL, NULL);
	else
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int sink_query_i64(struct sink *s, const char *sql, const char *text, int64_t a, int64_t *out)
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
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_error(s->db);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Bind text v, or NULL when v is NULL, to parameter i. */
static void bind_opt_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* The last component of a path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/*
 * What else tells apart two processes of one host and OS pid: for the wire format, the file's name. A
 * program that execs another keeps its pid, and the collector writes the new image to PID-2.ndjson beside
 * PID.ndjson (both are kept, the second under a pid of its own: sink_session_pid); the same file ingested
 * again, from wherever, has the same name. Other formats: nothing (a pid is one process).
 */
static const char *process_file(const struct sink_process *p)
{
	return p->source && !strcmp(p->source, "ndjson") && p->file ? p->file : NULL;
}

int sink_has_process(struct sink *s, int64_t session, const char *hostname, int64_t pid, const char *file)
{
	/* However it is stored (sink_session_pid): the OS pid is pid % 2^32. */
	sqlite3_stmt *st = db_prepare(s->db, "SELECT file FROM main.processes WHERE session_id = ? AND "
				      "hostname = ? AND pid % 4294967296 = ?");
	int64_t n = 0;
	int rc = SQLITE_DONE;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, hostname, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, pid >= 0 ? pid % ((int64_t)1 << 32) : pid);
	while (!n && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *had = (const char *)sqlite3_column_text(st, 0);
		n = !file || !had || !strcmp(base_name(had), base_name(file));
	}
	if (!n && rc != SQLITE_DONE)
		n = db_error(s->db);
	sqlite3_finalize(st);
	return (int)n;
}

/*
 * The pid the current process is stored under in session s->session_id. Event rows carry a pid, not a
 * host, so pids are unique in a session: when another host's process of the session has the OS pid
 * already (two hosts' ranks merged with --session, or the program this one exec'd from), this one is stored as pid + k * 2^32, the least k
 * that is free: the OS pid is pid % 2^32.
 */
int sink_session_pid(struct sink *s, int64_t pid)
{
	const int64_t step = pid >= 0 && pid < ((int64_t)1 << 32) ? (int64_t)1 << 32 : 0;
	sqlite3_stmt *st = db_prepare(s->db, "SELECT 1 FROM processes WHERE session_id = ? AND pid = ?");
	int rc;
	if (!st)
		return -1;
	for (s->pid = pid;; s->pid += step) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, s->session_id);
		sqlite3_bind_int64(st, 2, s->pid);
		if ((rc = sqlite3_step(st)) != SQLITE_ROW || !step || s->pid > INT64_MAX - step)
			break;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return error("%s: pid %lld is taken in the session by another host's process", s->hostname,
			     (long long)pid);
	if (rc != SQLITE_DONE)
		return db_error(s->db);
	if (s->pid != pid)
		info("%s: pid %lld of this host is stored as pid %lld: another process of the session has that pid "
		     "(another host's, or the program this one exec'd from or into)",
		     s->hostname[0] ? s->hostname : "(no host)", (long long)pid, (long long)s->pid);
	return 0;
}

int sink_process_begin(struct sink *s, const struct sink_process *p)
{
	sqlite3_stmt *st;
	char when[32];
	int64_t sid = 0, n = 0;
	int rc, t;

	if (s->spool)
		return sink_spool_process(s, p);
	sink_strings_clear(s);
	memset(s->counts, 0, sizeof(s->counts));
	s->min_ns = INT64_MAX;
	s->max_ns = INT64_MIN;
	s->pid = p->pid;
	free(s->hostname);
	s->hostname = xstrdup(p->hostname ? p->hostname : "");

	rc = sink_query_i64(s, "SELECT id FROM sessions WHERE uuid = ?", p->uuid, 0, &sid);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		if ((n = sink_has_process(s, sid, s->hostname, p->pid, process_file(p))))
			return n < 0 ? -1 : 1;
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
			return db_error(s->db);
		sid = sqlite3_last_insert_rowid(s->db);
		s->session_is_new = 1;
	}
	s->session_id = sid;
	if (!s->session_is_new && sink_session_pid(s, p->pid) < 0)
		return -1;
	for (t = 0; t < R_COUNT; t++) {
		sqlite3_bind_int64(s->insert[t], 1, sid);
		sqlite3_bind_int64(s->insert[t], 2, s->pid);
		s->bound_valid[t] = 0;
	}
	if (sink_query_i64(s, "SELECT coalesce(max(id), 0) + 1 FROM strings WHERE session_id = ?", NULL, sid,
			   &s->next_string_id) < 0)
		return -1;
	if (sink_chunks_begin(s))
		return -1;
	for (t = 0; t < R_COUNT; t++) {
		struct buf sql;
		buf_init(&sql);
		buf_addf(&sql, "SELECT coalesce(max(rowid), 0) + 1 FROM %s", rec_specs[t].table);
		rc = sink_query_i64(s, sql.s, NULL, 0, &s->first_rowid[t]);
		buf_release(&sql);
		if (rc < 0)
			return -1;
	}

	st = db_prepare(s->db, "INSERT INTO processes (session_id, pid, ppid, hostname, program, args, file, "
			"origin_ns, rank, options) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, sid);
	sqlite3_bind_int64(st, 2, s->pid);
	sqlite3_bind_int64(st, 3, p->ppid);
	sqlite3_bind_text(st, 4, s->hostname, -1, SQLITE_TRANSIENT);
	bind_opt_text(st, 5, p->program);
	bind_opt_text(st, 6, p->args_json);
	bind_opt_text(st, 7, p->file);
	sqlite3_bind_int64(st, 8, p->origin_ns);
	if (p->rank >= 0)
		sqlite3_bind_int64(st, 9, p->rank);
	bind_opt_text(st, 10, p->options_json);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(s->db);
	return 0;
}

int sink_process_end(struct sink *s, int clean_end, int64_t end_ns)
{
	sqlite3_stmt *st;
	int rc;
	int64_t first = s->min_ns, last = s->max_ns;
	if (s->spool)
		return sink_spool_end(s, clean_end, end_ns);
	if (end_ns > last)
		last = end_ns;
	if (first == INT64_MAX)
		first = last = end_ns;
	if (sink_chunks_end(s))
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
		return db_error(s->db);

	st = db_prepare(s->db, "UPDATE trace_windows SET end_ns = max(start_ns, ?) WHERE session_id = ? AND pid = ? AND "
			"end_ns IS NULL");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, last);
	sqlite3_bind_int64(st, 2, s->session_id);
	sqlite3_bind_int64(st, 3, s->pid);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(s->db);

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
		return db_error(s->db);
	s->session_id = 0;
	sink_strings_clear(s);
	return 0;
}

sqlite3 *sink_db(struct sink *s)
{
	return s->db;
}

int64_t sink_session_id(const struct sink *s)
{
	return s->session_id;
}

int sink_drop(struct sink *s, int64_t ts_ns, const char *source, const char *what, int64_t count)
{
	sqlite3_stmt *st = s->drop_add;
	if (s->spool)
		return sink_spool_drop(s, ts_ns, source, what, count);
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, s->pid);
	sqlite3_bind_int64(st, 3, ts_ns);
	sqlite3_bind_text(st, 4, source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, what, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, count);
	return sink_step(s, st);
}

int sink_collector_error(struct sink *s, int64_t ts_ns, const char *what, const char *reason)
{
	sqlite3_stmt *st = s->cerr_add;
	if (s->spool)
		return sink_spool_cerr(s, ts_ns, what, reason);
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, s->pid);
	sqlite3_bind_int64(st, 3, ts_ns);
	bind_opt_text(st, 4, what);
	sqlite3_bind_text(st, 5, reason, -1, SQLITE_TRANSIENT);
	return sink_step(s, st);
}

int sink_window(struct sink *s, int64_t start_ns, int64_t end_ns, int64_t ranges_cut)
{
	sqlite3_stmt *st;
	int rc;
	if (s->spool)
		return sink_spool_window(s, start_ns, end_ns, ranges_cut);
	st = db_prepare(s->db, "INSERT INTO trace_windows (session_id, pid, start_ns, end_ns, ranges_cut) "
			"VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, pid, start_ns) DO UPDATE SET "
			"end_ns = max(coalesce(end_ns, excluded.end_ns), coalesce(excluded.end_ns, end_ns)), "
			"ranges_cut = max(ranges_cut, excluded.ranges_cut)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, s->pid);
	sqlite3_bind_int64(st, 3, start_ns);
	if (end_ns >= 0)
		sqlite3_bind_int64(st, 4, end_ns);
	sqlite3_bind_int64(st, 5, ranges_cut);
	rc = sink_step(s, st);
	sqlite3_finalize(st);
	return rc;
}

int sink_skipped(struct sink *s, const char *file, const char *cat, const char *ph, int64_t count, int64_t gpu)
{
	sqlite3_stmt *st;
	int rc;
	if (s->spool)
		return sink_spool_skipped(s, file, cat, ph, count, gpu);
	st = db_prepare(s->db, "INSERT INTO ingest_skipped (session_id, pid, file, category, ph, "
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
	rc = sink_step(s, st);
	sqlite3_finalize(st);
	return rc;
}

int sink_ingest_error(struct sink *s, const char *file, int64_t line, const char *reason, const char *excerpt)
{
	sqlite3_stmt *st = s->err_add;
	char when[32];
	if (s->spool)
		return sink_spool_ierr(s, file, line, reason, excerpt);
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
	return sink_step(s, st);
}

int sink_set_rank(struct sink *s, int64_t rank)
{
	sqlite3_stmt *st;
	int rc;
	if (s->spool)
		return sink_spool_rank(s, rank);
	st = db_prepare(s->db, "UPDATE processes SET rank = ? WHERE session_id = ? AND hostname = ? AND pid = ?");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, rank);
	sqlite3_bind_int64(st, 2, s->session_id);
	sqlite3_bind_text(st, 3, s->hostname, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, s->pid);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(s->db);
}
