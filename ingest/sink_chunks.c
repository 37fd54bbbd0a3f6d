/*
 * sink_chunks: column chunks (colstore.h). The current process's kernels and API calls are encoded as
 * they are added and written a chunk at a time with its column_sets row; sink_reindex rebuilds the chunks
 * of sessions that lack them from the rows.
 */
#include "sink_int.h"
#include "db.h"

#include <stdio.h>
#include <stdlib.h>

/*
 * The triggers that delete column chunks when kernels or api_calls change (schemas/session.sql): the
 * sink writes chunks with the rows, so its own transaction goes without them and sink_tx_commit puts
 * them back.
 */
int sink_chunks_triggers_drop(struct sink *s)
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

/* Where the current process's chunks go: after the session's earlier ones. 0, or -1. */
int sink_chunks_begin(struct sink *s)
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
			rc = db_error(s->db);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc || sink_query_i64(s, "SELECT coalesce(max(id), 0) + 1 FROM column_chunks", NULL, 0,
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
	return sink_step(s, st);
}

/*
 * Hand table t's buffered rows to the encoder after writing the chunk before them; with `wait`, write
 * them too. 0, or -1.
 */
int sink_chunks_flush(struct sink *s, enum colstore_table t, int wait)
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
int sink_chunks_end(struct sink *s)
{
	sqlite3_stmt *st = s->cs_set_add;
	int t;
	for (t = 0; t < CS_TABLES; t++) {
		if (sink_chunks_flush(s, t, 1))
			return -1;
		sqlite3_bind_int64(st, 1, s->session_id);
		sqlite3_bind_text(st, 2, s->hostname, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, s->pid);
		sqlite3_bind_text(st, 4, colstore_specs[t].table, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, s->counts[colstore_specs[t].rec]);
		if (sink_step(s, st))
			return -1;
	}
	return 0;
}

/*
 * Add offset_ns to the times of the current process's chunks: the rows still buffered, and the base of
 * those written. 0, or -1.
 */
int sink_chunks_shift(struct sink *s, int64_t offset_ns)
{
	sqlite3_stmt *st;
	int t, rc;
	for (t = 0; t < CS_TABLES; t++) {
		if (cs_write(s, t))
			return -1;
		colstore_writer_shift(s->cs, t, offset_ns);
	}
	st = db_prepare(s->db, "UPDATE column_chunks SET base_ns = base_ns + ? WHERE id >= ?");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, offset_ns);
	sqlite3_bind_int64(st, 2, s->cs_first_chunk);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(s->db);
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
		if (sink_step(s, s->cs_set_add)) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	if (rc != SQLITE_DONE)
		db_error(s->db);
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
			if (ncnt && sink_chunks_flush(s, t, 0))
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
		if (colstore_writer_append(s->cs, t, v) && sink_chunks_flush(s, t, 0))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		db_error(s->db);
		goto out;
	}
	if (sink_chunks_flush(s, t, 1))
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
			if (sink_step(s, st)) {
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

int sink_chunks_append(struct sink *s, int64_t session, const int64_t from[CS_TABLES])
{
	int t;
	for (t = 0; t < CS_TABLES; t++) {
		const struct colstore_spec *sp = &colstore_specs[t];
		int64_t v[COLSTORE_MAX_COLS], pid = 0, rows = 0;
		sqlite3_stmt *st, *host = NULL;
		struct buf sql;
		int k, rc, any = 0, status = -1;

		s->session_id = session;
		if (sink_chunks_begin(s))
			return -1;
		buf_init(&sql);
		buf_addstr(&sql, "SELECT 0");
		for (k = 0; k < sp->ncols; k++)
			buf_addf(&sql, ", %s", colstore_sql((enum colstore_table)t, k));
		buf_addf(&sql, " FROM %s WHERE rowid >= ?1 AND session_id = ?2 ORDER BY rowid", sp->table);
		st = db_prepare(s->db, sql.s);
		buf_release(&sql);
		host = db_prepare(s->db, "SELECT hostname FROM processes WHERE session_id = ? AND pid = ?");
		if (!st || !host)
			goto out;
		sqlite3_bind_int64(st, 1, from[t]);
		sqlite3_bind_int64(st, 2, session);
		/* One run of rows per process (the combine adds each process's rows together). */
		for (;;) {
			rc = sqlite3_step(st);
			if (rc == SQLITE_ROW)
				for (k = 0; k < sp->ncols; k++)
					v[k] = sqlite3_column_int64(st, k + 1);
			if (any && (rc != SQLITE_ROW || v[0] != pid)) {
				/* The run of pid ends: its last chunk, and its column_sets row. */
				if (sink_chunks_flush(s, (enum colstore_table)t, 1))
					goto out;
				sqlite3_reset(host);
				sqlite3_bind_int64(host, 1, session);
				sqlite3_bind_int64(host, 2, pid);
				sqlite3_bind_int64(s->cs_set_add, 1, session);
				if (sqlite3_step(host) == SQLITE_ROW)
					sqlite3_bind_text(s->cs_set_add, 2, (const char *)sqlite3_column_text(host, 0), -1,
							  SQLITE_TRANSIENT);
				else
					sqlite3_bind_text(s->cs_set_add, 2, "", -1, SQLITE_STATIC);
				sqlite3_bind_int64(s->cs_set_add, 3, pid);
				sqlite3_bind_text(s->cs_set_add, 4, sp->table, -1, SQLITE_STATIC);
				sqlite3_bind_int64(s->cs_set_add, 5, rows);
				if (sink_step(s, s->cs_set_add))
					goto out;
				any = 0;
			}
			if (rc != SQLITE_ROW)
				break;
			if (!any) {
				pid = s->pid = v[0];
				rows = 0;
				any = 1;
			}
			rows++;
			if (colstore_writer_append(s->cs, (enum colstore_table)t, v) &&
			    sink_chunks_flush(s, (enum colstore_table)t, 0))
				goto out;
		}
		if (rc != SQLITE_DONE) {
			db_error(s->db);
			goto out;
		}
		status = 0;
out:
		sqlite3_finalize(st);
		sqlite3_finalize(host);
		s->session_id = 0;
		if (status)
			return -1;
	}
	return 0;
}
