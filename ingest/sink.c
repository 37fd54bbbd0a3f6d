/*
 * sink: the sink's life (open, free, transactions), sessions and processes, and the bookkeeping tables
 * (drops, collector_errors, ingest_skipped, ingest_errors). Strings, rows and chunks have files of their
 * own (sink_int.h says which).
 */
#include "sink_int.h"
#include "db.h"
#include "embed.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sink *sink_open(sqlite3 *db)
{
	struct sink *s = xcalloc(1, sizeof(*s));
	int t;
	s->db = db;
	for (t = 0; t < R_COUNT; t++)
		if (!(s->insert[t] = sink_rows_prepare(db, t)) || sink_rows_prepare_many(s, t))
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
	for (t = 0; t < R_COUNT; t++) {
		sqlite3_finalize(s->insert[t]);
		sqlite3_finalize(s->insert_many[t]);
		free(s->waiting[t]);
		free(s->bound_many[t]);
	}
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
	free(s->file);
	buf_release(&s->fix);
	free(s->clash);
	free(s->spool_session);
	if (s->check)
		fclose(s->spool);
	free(s);
}

/* Open a transaction without the triggers that retire chunks (the sink writes chunks with the rows). */
static int tx_open(struct sink *s)
{
	if (util_stop_signal() || db_exec(s->db, "BEGIN IMMEDIATE"))
		return -1;
	if (sink_chunks_triggers_drop(s)) {
		db_rollback(s->db, "ROLLBACK");
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
	/*
	 * A stop signal before COMMIT rolls back; one during it stops it before it begins (the progress
	 * handler, db.h) or lets it finish: the database is whole either way, and s->commits says which.
	 */
	if (util_stop_signal() || db_exec(s->db, embed_get("schemas/session.sql")) || db_exec(s->db, "COMMIT")) {
		/* Quietly: a failed COMMIT may have ended the transaction, and "no transaction is active" says nothing. */
		db_rollback(s->db, "ROLLBACK");
		return -1;
	}
	s->commits++;
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

void sink_batch_rollback(struct sink *s)
{
	s->outer = 0;
	if (!sqlite3_get_autocommit(s->db))
		db_rollback(s->db, "ROLLBACK");
}

int64_t sink_commits(const struct sink *s)
{
	return s->commits;
}

int sink_tx_begin(struct sink *s)
{
	if (s->spool)
		return sink_spool_tx(s, 'B');
	if (s->outer) {
		if (util_stop_signal() || db_exec(s->db, "SAVEPOINT input"))
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
	if (sink_rows_flush(s))
		return -1;
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
	sink_rows_drop(s);
	s->in_tx = 0;
	s->session_id = 0;
	free(s->clash);
	s->clash = NULL;
	if (s->outer)
		db_rollback(s->db, "ROLLBACK TO input; RELEASE input");
	else
		db_rollback(s->db, "ROLLBACK");
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

const char *const sink_repair_names[SINK_REPAIRS] = { "invalid UTF-8", "NUL" };

const char *sink_fix(struct sink *s, const char *v, int count)
{
	size_t n, bad;
	if (!v || !(bad = utf8_invalid(v, n = strlen(v))))
		return v;
	buf_reset(&s->fix);
	utf8_repair(&s->fix, v, n);
	if (count && s->session_id)
		s->repairs[SINK_REPAIR_UTF8] += (int64_t)bad;
	return s->fix.s;
}

/* Bind text v, or NULL when v is NULL, to parameter i: repaired (sink_fix), counted when count. */
static void bind_text(struct sink *s, sqlite3_stmt *st, int i, const char *v, int count)
{
	v = sink_fix(s, v, count);
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Bind text v (repaired, not counted: the process's own fields were counted once), or NULL, to parameter i. */
static void bind_opt_text(struct sink *s, sqlite3_stmt *st, int i, const char *v)
{
	bind_text(s, st, i, v, 0);
}

int sink_repaired(struct sink *s, enum sink_repair what, int64_t count)
{
	if (s->spool)
		return sink_spool_repaired(s, what, count);
	if ((unsigned)what < SINK_REPAIRS && s->session_id)
		s->repairs[what] += count;
	return 0;
}

/* The fields of p with each invalid UTF-8 sequence replaced (the copies in *keep, freed by the caller), counted. */
static void process_fix(struct sink *s, const struct sink_process *p, struct sink_process *out, char *keep[10])
{
	const char **f[10] = { &out->uuid, &out->source, &out->path, &out->file, &out->program, &out->args_json,
			       &out->hostname, &out->engine, &out->collector, &out->options_json };
	size_t i, bad;
	*out = *p;
	for (i = 0; i < 10; i++) {
		keep[i] = NULL;
		if (*f[i] && utf8_invalid(*f[i], strlen(*f[i]))) {
			keep[i] = utf8_dup(*f[i], &bad);
			s->repairs[SINK_REPAIR_UTF8] += (int64_t)bad;
			*f[i] = keep[i];
		}
	}
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

/* The content digest of options (processes.options), NULL where none (or options is no JSON). */
#define CONTENT_OF(options) "CASE WHEN json_valid(" options ") THEN json_extract(" options ", '$.content_hash') END"

int sink_has_process(struct sink *s, int64_t session, const char *hostname, int64_t pid, const char *file,
		     const char *content)
{
	/*
	 * However it is stored (sink_session_pid): the OS pid is pid % 2^32. With content, every process of
	 * the session: one of the same digest anywhere is this one.
	 */
	sqlite3_stmt *st = db_prepare(s->db, "SELECT file, " CONTENT_OF("options") " IS NOT NULL, "
				      CONTENT_OF("options") " = ?4, hostname = ?2 AND pid % 4294967296 = ?3 "
				      "FROM main.processes WHERE session_id = ?1 AND (?4 IS NOT NULL OR "
				      "(hostname = ?2 AND pid % 4294967296 = ?3))");
	int64_t n = 0;
	int rc = SQLITE_DONE;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, hostname, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, pid >= 0 ? pid % ((int64_t)1 << 32) : pid);
	if (content)
		sqlite3_bind_text(st, 4, content, -1, SQLITE_TRANSIENT);
	while (!n && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *had = (const char *)sqlite3_column_text(st, 0);
		if (!content)
			n = !file || !had || !strcmp(base_name(had), base_name(file));
		else if (sqlite3_column_int(st, 1))	/* a digest kept: the same one, or another process */
			n = sqlite3_column_int(st, 2);
		else		/* none kept (ingested by an older version): the same host, pid and file name */
			n = sqlite3_column_int(st, 3) && had && file && !strcmp(base_name(had), base_name(file));
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
int sink_session_pid(struct sink *s, int64_t pid, int say)
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
	if (s->pid != pid && say)
		info("%s: pid %lld of this host is stored as pid %lld: another process of the session has that pid "
		     "(another host's, or the program this one exec'd from or into)",
		     s->hostname[0] ? s->hostname : "(no host)", (long long)pid, (long long)s->pid);
	return 0;
}

/*
 * The warning for process p of other content than the one the session has under its pid (said at
 * sink_process_end, so that a process begun and rolled back says nothing): into s->clash. 0, or -1.
 */
static int clash_warning(struct sink *s, const struct sink_process *p)
{
	sqlite3_stmt *st = db_prepare(s->db, "SELECT file FROM processes WHERE session_id = ? AND pid = ?");
	struct buf b;
	const char *other;
	int rc;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, p->pid);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		sqlite3_finalize(st);
		return db_error(s->db);
	}
	other = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	buf_init(&b);
	buf_addf(&b, "%s: session %s has pid %lld from %s already, of other content; this trace is kept as "
		 "another process, pid %lld", p->file ? p->file : p->path ? p->path : "(input)", p->uuid,
		 (long long)p->pid, other ? other : "another file", (long long)s->pid);
	sqlite3_finalize(st);
	s->clash = xstrdup(b.s);
	buf_release(&b);
	return 0;
}

static int process_begin(struct sink *s, const struct sink_process *p);

int sink_process_begin(struct sink *s, const struct sink_process *p)
{
	struct sink_process fixed;
	char *keep[10];
	int rc, i;
	if (s->spool)
		return sink_spool_process(s, p);
	memset(s->repairs, 0, sizeof(s->repairs));
	process_fix(s, p, &fixed, keep);
	rc = process_begin(s, &fixed);
	for (i = 0; i < 10; i++)
		free(keep[i]);
	return rc;
}

/* sink_process_begin of a database's sink, p's text valid UTF-8. */
static int process_begin(struct sink *s, const struct sink_process *p)
{
	sqlite3_stmt *st;
	char when[32];
	int64_t sid = 0, n = 0;
	int rc, t;

	sink_strings_clear(s);
	memset(s->counts, 0, sizeof(s->counts));
	s->min_ns = INT64_MAX;
	s->max_ns = INT64_MIN;
	s->pid = p->pid;
	free(s->hostname);
	s->hostname = xstrdup(p->hostname ? p->hostname : "");
	free(s->file);
	s->file = xstrdup(p->file ? p->file : p->path ? p->path : "");

	rc = sink_query_i64(s, "SELECT id FROM sessions WHERE uuid = ?", p->uuid, 0, &sid);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		if (p->session_copy)
			return 1;
		if ((n = sink_has_process(s, sid, s->hostname, p->pid, p->content ? p->file : process_file(p),
					  p->content)))
			return n < 0 ? -1 : 1;
		s->session_is_new = 0;
	} else {
		db_timestamp(when);
		st = db_prepare(s->db, "INSERT INTO sessions (uuid, source, path, program, args, hostname, "
				"engine, collector, options, format_version, origin_ns, clean_end, ingested_at) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)");
		if (!st)
			return -1;
		bind_opt_text(s, st, 1, p->uuid);
		bind_opt_text(s, st, 2, p->source);
		bind_opt_text(s, st, 3, p->path);
		bind_opt_text(s, st, 4, p->program);
		bind_opt_text(s, st, 5, p->args_json);
		bind_opt_text(s, st, 6, p->hostname);
		bind_opt_text(s, st, 7, p->engine);
		bind_opt_text(s, st, 8, p->collector);
		bind_opt_text(s, st, 9, p->options_json);
		sqlite3_bind_int64(st, 10, p->format_version);
		sqlite3_bind_int64(st, 11, p->origin_ns);
		bind_opt_text(s, st, 12, when);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return db_error(s->db);
		sid = sqlite3_last_insert_rowid(s->db);
		s->session_is_new = 1;
	}
	s->session_id = sid;
	if (!s->session_is_new && sink_session_pid(s, p->pid, !p->content) < 0)
		return -1;
	free(s->clash);
	s->clash = NULL;
	if (p->content && s->pid != p->pid && clash_warning(s, p) < 0)
		return -1;
	for (t = 0; t < R_COUNT; t++) {
		sqlite3_bind_int64(s->insert[t], 1, sid);
		sqlite3_bind_int64(s->insert[t], 2, s->pid);
		s->bound_valid[t] = 0;
		if (s->insert_many[t]) {
			sqlite3_bind_int64(s->insert_many[t], 1, sid);
			sqlite3_bind_int64(s->insert_many[t], 2, s->pid);
		}
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
			"origin_ns, rank, options) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, CASE WHEN ?11 IS NULL THEN ?10 "
			"ELSE json_set(coalesce(?10, '{}'), '$.content_hash', ?11) END)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, sid);
	sqlite3_bind_int64(st, 2, s->pid);
	sqlite3_bind_int64(st, 3, p->ppid);
	sqlite3_bind_text(st, 4, s->hostname, -1, SQLITE_TRANSIENT);
	bind_opt_text(s, st, 5, p->program);
	bind_opt_text(s, st, 6, p->args_json);
	bind_opt_text(s, st, 7, p->file);
	sqlite3_bind_int64(st, 8, p->origin_ns);
	if (p->rank >= 0)
		sqlite3_bind_int64(st, 9, p->rank);
	bind_opt_text(s, st, 10, p->options_json);
	bind_opt_text(s, st, 11, p->content);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(s->db);
	return 0;
}

/*
 * The current process's repairs into ingest_repairs, and one warning naming them:
 * "FILE: 3 invalid UTF-8 sequences and 1 NUL replaced with U+FFFD". 0, or -1.
 */
static int repairs_record(struct sink *s)
{
	static const char *const one[SINK_REPAIRS] = { "invalid UTF-8 sequence", "NUL" };
	static const char *const many[SINK_REPAIRS] = { "invalid UTF-8 sequences", "NULs" };
	sqlite3_stmt *st = NULL;
	struct buf msg;
	int w, said = 0, rc = 0;
	buf_init(&msg);
	for (w = 0; w < SINK_REPAIRS && !rc; w++) {
		if (s->repairs[w] <= 0)
			continue;
		if (!st && !(st = db_prepare(s->db, "INSERT INTO ingest_repairs (session_id, pid, file, what, count) "
					     "VALUES (?, ?, ?, ?, ?)"))) {
			rc = -1;
			break;
		}
		sqlite3_bind_int64(st, 1, s->session_id);
		sqlite3_bind_int64(st, 2, s->pid);
		sqlite3_bind_text(st, 3, s->file ? s->file : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, sink_repair_names[w], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, s->repairs[w]);
		rc = sink_step(s, st);
		buf_addf(&msg, "%s%lld %s", said++ ? " and " : "", (long long)s->repairs[w],
			 s->repairs[w] == 1 ? one[w] : many[w]);
	}
	sqlite3_finalize(st);
	if (!rc && said)
		warning("%s: %s replaced with U+FFFD", s->file ? s->file : "", msg.s);
	buf_release(&msg);
	memset(s->repairs, 0, sizeof(s->repairs));
	return rc;
}

int sink_process_end(struct sink *s, int clean_end, int64_t end_ns)
{
	sqlite3_stmt *st;
	int rc;
	int64_t first = s->min_ns, last = s->max_ns;
	if (s->spool)
		return sink_spool_end(s, clean_end, end_ns);
	if (sink_rows_flush(s) || repairs_record(s))
		return -1;
	if (end_ns > last)
		last = end_ns;
	if (first == INT64_MAX)
		first = last = end_ns;
	if (sink_chunks_end(s))
		return -1;
	if (s->clash) {
		warning("%s", s->clash);
		free(s->clash);
		s->clash = NULL;
	}
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

int sink_drop(struct sink *s, int64_t ts_ns, const char *source, const char *what, int64_t count)
{
	sqlite3_stmt *st = s->drop_add;
	if (s->spool)
		return sink_spool_drop(s, ts_ns, source, what, count);
	sqlite3_bind_int64(st, 1, s->session_id);
	sqlite3_bind_int64(st, 2, s->pid);
	sqlite3_bind_int64(st, 3, ts_ns);
	bind_text(s, st, 4, source, 1);
	bind_text(s, st, 5, what, 1);
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
	bind_text(s, st, 4, what, 1);
	bind_text(s, st, 5, reason, 1);
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
	bind_text(s, st, 3, file, 0);
	bind_text(s, st, 4, cat, 1);
	bind_text(s, st, 5, ph, 1);
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
	bind_text(s, st, 2, file, 0);
	sqlite3_bind_int64(st, 3, line);
	bind_text(s, st, 4, reason, 0);
	bind_text(s, st, 5, excerpt, 0);	/* (an excerpt may end inside a character: repaired, not counted) */
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
