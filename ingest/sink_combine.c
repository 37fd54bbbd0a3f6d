/*
 * sink_combine: a gpuprof database as an input. Each of its sessions goes into the session of the same
 * id (or --session's), each process not already there with its rows: strings and pids remapped as an
 * ingest of the original inputs would have made them, so that combining per-host databases gives what a
 * direct ingest of their inputs gives. The rows added get column chunks of their own after the session's
 * (sink_chunks_append); a session whose chunks were not complete loses them, and the caller makes them
 * again once it has combined every input (sink_reindex).
 */
#include "sink_int.h"
#include "db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run one statement of SQL with up to three integer parameters; -1 with a message. */
static int exec3(sqlite3 *db, const char *sql, int64_t a, int64_t b, int64_t c, int64_t *changes)
{
	sqlite3_stmt *st = db_prepare(db, sql);
	int rc, n;
	if (!st)
		return -1;
	n = sqlite3_bind_parameter_count(st);
	if (n >= 1)
		sqlite3_bind_int64(st, 1, a);
	if (n >= 2)
		sqlite3_bind_int64(st, 2, b);
	if (n >= 3)
		sqlite3_bind_int64(st, 3, c);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(db);
	if (changes)
		*changes += sqlite3_changes(db);
	return 0;
}

/* The columns of record table t after session_id and pid, their SELECT expressions and the joins that remap strings. */
static void rec_columns(enum rec_type t, struct buf *cols, struct buf *exprs, struct buf *joins)
{
	int k;
	for (k = 0; k < rec_specs[t].nfields; k++) {
		const struct field *f = &rec_specs[t].fields[k];
		buf_addf(cols, ", %s", f->column);
		if (f->kind == F_STR) {
			buf_addf(exprs, ", s%d.dst", k);
			buf_addf(joins, " LEFT JOIN temp.cmb_str s%d ON s%d.src = e.%s", k, k, f->column);
		} else {
			buf_addf(exprs, ", e.%s", f->column);
		}
	}
}

/* Source session src into target session dst: the processes it lacks, with their rows. */
static int combine_session(struct sink *s, int64_t src, int64_t dst, int64_t *events, int *added)
{
	sqlite3 *db = s->db;
	sqlite3_stmt *st;
	int64_t n = 0, next, from[CS_TABLES], complete[CS_TABLES], before;
	int t, rc, have;

	*added = 0;
	if (exec3(db, "DELETE FROM temp.cmb_pid", 0, 0, 0, NULL) || exec3(db, "DELETE FROM temp.cmb_str", 0, 0, 0, NULL))
		return -1;
	/*
	 * Processes: one with the same host and OS pid is there already (idempotent), or for a Kineto trace one
	 * of the same content (sink_has_process); else a free pid.
	 */
	if (sink_query_i64(s, "SELECT count(*) FROM main.processes WHERE session_id = ?", NULL, dst, &before) < 0 ||
	    !(st = db_prepare(db, "SELECT p.pid, p.hostname, CASE WHEN s.source = 'ndjson' OR c IS NOT NULL THEN p.file "
			      "END, c FROM (SELECT *, rowid AS r, CASE WHEN json_valid(options) THEN json_extract(options, "
			      "'$.content_hash') END AS c FROM src.processes) p JOIN src.sessions s ON s.id = p.session_id "
			      "WHERE p.session_id = ? ORDER BY p.r")))
		return -1;
	sqlite3_bind_int64(st, 1, src);
	s->session_id = dst;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(st, 0), os = pid >= 0 ? pid % ((int64_t)1 << 32) : pid;
		sqlite3_stmt *q;
		if ((have = sink_has_process(s, dst, (const char *)sqlite3_column_text(st, 1), os,
					     (const char *)sqlite3_column_text(st, 2),
					     (const char *)sqlite3_column_text(st, 3))) < 0)
			break;
		if (have)
			continue;
		free(s->hostname);
		s->hostname = xstrdup((const char *)sqlite3_column_text(st, 1));
		if (sink_session_pid(s, os, 1) || exec3(db, "INSERT INTO temp.cmb_pid VALUES (?, ?)", pid, s->pid, 0, NULL) ||
		    !(q = db_prepare(db, "INSERT INTO main.processes (session_id, pid, ppid, hostname, program, args, file, "
				     "origin_ns, end_ns, clean_end, rank, options) SELECT ?1, ?2, ppid, hostname, program, args, "
				     "file, origin_ns, end_ns, clean_end, rank, options FROM src.processes WHERE session_id = ?3 AND pid = ?4 "
				     "AND hostname = ?5")))
			break;
		sqlite3_bind_int64(q, 1, dst);
		sqlite3_bind_int64(q, 2, s->pid);
		sqlite3_bind_int64(q, 3, src);
		sqlite3_bind_int64(q, 4, pid);
		sqlite3_bind_text(q, 5, s->hostname, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(q) != SQLITE_DONE) {
			db_error(db);
			sqlite3_finalize(q);
			break;
		}
		sqlite3_finalize(q);
		(*added)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_error(db);
	if (rc == SQLITE_ROW)
		return -1;
	if (!*added)
		return 0;
	/*
	 * Strings in the order they were made: those the target session has keep its id, the others come
	 * after its last, in their order (as reading the input would have added them).
	 */
	if (sink_query_i64(s, "SELECT coalesce(max(id), 0) FROM main.strings WHERE session_id = ?", NULL, dst, &next) < 0 ||
	    exec3(db, "INSERT INTO temp.cmb_str SELECT s.id, m.id FROM src.strings s JOIN main.strings m "
		  "ON m.session_id = ?1 AND m.value = s.value WHERE s.session_id = ?2", dst, src, 0, NULL) ||
	    exec3(db, "INSERT INTO temp.cmb_str SELECT id, ?1 + row_number() OVER (ORDER BY id) FROM src.strings "
		  "WHERE session_id = ?2 AND id NOT IN (SELECT src FROM temp.cmb_str) ORDER BY id", next, src, 0, NULL) ||
	    exec3(db, "INSERT INTO main.strings (session_id, id, value) SELECT ?1, m.dst, s.value FROM src.strings s "
		  "JOIN temp.cmb_str m ON m.src = s.id WHERE s.session_id = ?2 AND m.dst > ?3 ORDER BY m.dst",
		  dst, src, next, NULL))
		return -1;
	/*
	 * Where the rows added begin in the tables kept as column chunks; whether the session's chunks are
	 * complete, so that chunks of the rows added complete them again (else they are made afresh at the
	 * end, sink_reindex).
	 */
	for (t = 0; t < CS_TABLES; t++) {
		struct buf q;
		buf_init(&q);
		buf_addf(&q, "SELECT coalesce(max(rowid), 0) + 1 FROM main.%s", colstore_specs[t].table);
		rc = sink_query_i64(s, q.s, NULL, 0, &from[t]);
		buf_release(&q);
		if (rc < 0 || sink_query_i64(s, "SELECT " COLSTORE_COMPLETE_SQL_IN("main.", "?1", "?2"), colstore_specs[t].table,
					     dst, &complete[t]) < 0)
			return -1;
	}
	/* Every record table, then the tables of what was dropped, failed or skipped; rows in their order. */
	for (t = 0; t < R_COUNT; t++) {
		struct buf sql, cols, exprs, joins;
		buf_init(&sql);
		buf_init(&cols);
		buf_init(&exprs);
		buf_init(&joins);
		rec_columns((enum rec_type)t, &cols, &exprs, &joins);
		buf_addf(&sql, "INSERT INTO main.%s (session_id, pid%s) SELECT ?1, p.dst%s FROM src.%s e "
			 "JOIN temp.cmb_pid p ON p.src = e.pid%s WHERE e.session_id = ?2 ORDER BY e.rowid",
			 rec_specs[t].table, cols.s, exprs.s, rec_specs[t].table, joins.len ? joins.s : "");
		rc = exec3(db, sql.s, dst, src, 0, &n);
		buf_release(&sql);
		buf_release(&cols);
		buf_release(&exprs);
		buf_release(&joins);
		if (rc)
			return -1;
	}
	*events += n;
	if (exec3(db, "INSERT INTO main.drops (session_id, pid, ts_ns, source, what, count) SELECT ?1, p.dst, ts_ns, "
		  "source, what, count FROM src.drops e JOIN temp.cmb_pid p ON p.src = e.pid WHERE e.session_id = ?2 "
		  "ORDER BY e.rowid", dst, src, 0, NULL) ||
	    exec3(db, "INSERT INTO main.collector_errors (session_id, pid, ts_ns, what, reason) SELECT ?1, p.dst, ts_ns, "
		  "what, reason FROM src.collector_errors e JOIN temp.cmb_pid p ON p.src = e.pid WHERE e.session_id = ?2 "
		  "ORDER BY e.rowid", dst, src, 0, NULL) ||
	    exec3(db, "INSERT INTO main.trace_windows (session_id, pid, start_ns, end_ns, ranges_cut) SELECT ?1, p.dst, "
		  "start_ns, end_ns, ranges_cut FROM src.trace_windows e JOIN temp.cmb_pid p ON p.src = e.pid "
		  "WHERE e.session_id = ?2 ORDER BY e.rowid", dst, src, 0, NULL) ||
	    exec3(db, "INSERT INTO main.ingest_skipped (session_id, pid, file, category, ph, events, gpu_events) "
		  "SELECT ?1, p.dst, file, category, ph, events, gpu_events FROM src.ingest_skipped e "
		  "JOIN temp.cmb_pid p ON p.src = e.pid WHERE e.session_id = ?2 ORDER BY e.rowid", dst, src, 0, NULL) ||
	    exec3(db, "INSERT INTO main.ingest_repairs (session_id, pid, file, what, count) SELECT ?1, p.dst, file, "
		  "what, count FROM src.ingest_repairs e JOIN temp.cmb_pid p ON p.src = e.pid WHERE e.session_id = ?2 "
		  "ORDER BY e.rowid", dst, src, 0, NULL) ||
	    exec3(db, "INSERT INTO main.ingest_errors (session_id, file, line, reason, excerpt, ingested_at) "
		  "SELECT ?1, file, line, reason, excerpt, ingested_at FROM src.ingest_errors WHERE session_id = ?2 "
		  "ORDER BY id", dst, src, 0, NULL) ||
	    exec3(db, "UPDATE main.sessions SET start_ns = min(coalesce(sessions.start_ns, x.s), coalesce(x.s, "
		  "sessions.start_ns)), end_ns = max(coalesce(sessions.end_ns, x.e), coalesce(x.e, sessions.end_ns)), "
		  "clean_end = min(sessions.clean_end, x.c) FROM (SELECT start_ns AS s, end_ns AS e, clean_end AS c "
		  "FROM src.sessions WHERE id = ?2) AS x WHERE sessions.id = ?1", dst, src, 0, NULL))
		return -1;
	/*
	 * The rows added as chunks too, after the session's: when those were complete, or it had no process
	 * before. Else the session loses its chunks (sink_reindex makes them afresh).
	 */
	for (t = 0; t < CS_TABLES; t++)
		if (!complete[t] && before)
			return exec3(db, "DELETE FROM main.column_sets WHERE session_id = ?", dst, 0, 0, NULL) ||
			       exec3(db, "DELETE FROM main.column_chunks WHERE session_id = ?", dst, 0, 0, NULL) ? -1 : 0;
	return sink_chunks_append(s, dst, from);
}

int sink_combine(struct sink *s, const char *path, const char *session, int64_t *events, int64_t *processes)
{
	sqlite3 *db = s->db;
	sqlite3_stmt *st;
	int64_t app = 0, version = 0, tables;
	int rc = -1, attached = 0, added;

	*events = *processes = 0;
	if (!(st = db_prepare(db, "ATTACH DATABASE ? AS src")))
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && sqlite3_errcode(db) == SQLITE_NOTADB)
		return error("%s: not a gpuprof database (%s)", path, sqlite3_errmsg(db)) - 1;
	if (rc != SQLITE_DONE)
		return error("%s: cannot open: %s", path, sqlite3_errmsg(db));
	attached = 1;
	rc = -1;
	/* A file that is no database may fail only here, as bad input rather than an I/O error. */
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name IN "
			       "('sessions', 'processes', 'strings', 'kernels', 'ingest_errors')", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		int notadb = sqlite3_errcode(db) == SQLITE_NOTADB;
		rc = notadb ? error("%s: not a gpuprof database (%s)", path, sqlite3_errmsg(db)) - 1
			    : error("%s: cannot read: %s", path, sqlite3_errmsg(db));
		sqlite3_finalize(st);
		goto out;
	}
	tables = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (sink_query_i64(s, "PRAGMA src.application_id", NULL, 0, &app) < 0 ||
	    sink_query_i64(s, "PRAGMA src.user_version", NULL, 0, &version) < 0)
		goto out;
	if ((app != DB_APPLICATION_ID && version) || (!version && tables < 5)) {
		rc = error("%s: not a gpuprof database", path) - 1;
		goto out;
	}
	if (version != DB_SCHEMA_VERSION) {
		rc = error("%s: a gpuprof database of schema version %lld%s, this gpuprof writes version %d: %s",
			   path, (long long)version, version ? "" : " (from before versions were kept)", DB_SCHEMA_VERSION,
			   version < DB_SCHEMA_VERSION ? "bring it up first (gpuprof-ingest --reindex -o FILE)"
						       : "combine it with a newer gpuprof") - 1;
		goto out;
	}
	if (db_exec(db, "CREATE TEMP TABLE IF NOT EXISTS cmb_pid (src INTEGER PRIMARY KEY, dst INTEGER); "
		    "CREATE TEMP TABLE IF NOT EXISTS cmb_str (src INTEGER PRIMARY KEY, dst INTEGER)") ||
	    sink_tx_begin(s))
		goto out;
	if (!(st = db_prepare(db, "SELECT id, uuid FROM src.sessions ORDER BY id")))
		goto rollback;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t src = sqlite3_column_int64(st, 0), dst = 0;
		const char *uuid = session ? session : (const char *)sqlite3_column_text(st, 1);
		int r = sink_query_i64(s, "SELECT id FROM main.sessions WHERE uuid = ?", uuid, 0, &dst);
		if (r < 0)
			break;
		if (r == 0) {
			sqlite3_stmt *q = db_prepare(db, "INSERT INTO main.sessions (uuid, source, path, program, args, "
						     "hostname, engine, collector, options, format_version, origin_ns, "
						     "start_ns, end_ns, clean_end, ingested_at) SELECT ?1, source, path, "
						     "program, args, hostname, engine, collector, options, format_version, "
						     "origin_ns, start_ns, end_ns, clean_end, ingested_at FROM src.sessions "
						     "WHERE id = ?2");
			if (!q)
				break;
			sqlite3_bind_text(q, 1, uuid, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(q, 2, src);
			r = sqlite3_step(q);
			sqlite3_finalize(q);
			if (r != SQLITE_DONE) {
				db_error(db);
				break;
			}
			dst = sqlite3_last_insert_rowid(db);
		}
		if (combine_session(s, src, dst, events, &added))
			break;
		if (!added)
			info("%s: session %s: every process is already in the database; skipped", path, uuid);
		*processes += added;
	}
	sqlite3_finalize(st);
	s->session_id = 0;
	if (rc != SQLITE_DONE)
		goto rollback;
	/* Errors about the source's inputs that no session could be told of. */
	if (exec3(db, "INSERT INTO main.ingest_errors (session_id, file, line, reason, excerpt, ingested_at) "
		  "SELECT NULL, file, line, reason, excerpt, ingested_at FROM src.ingest_errors e WHERE session_id IS NULL "
		  "AND NOT EXISTS (SELECT 1 FROM main.ingest_errors m WHERE m.session_id IS NULL AND m.file = e.file "
		  "AND m.line IS e.line AND m.reason = e.reason) ORDER BY id", 0, 0, 0, NULL) ||
	    sink_tx_commit(s))
		goto rollback;
	rc = 0;
	if (db_exec(db, "DETACH DATABASE src"))
		rc = -1;
	attached = 0;
	return rc;
rollback:
	sink_tx_rollback(s);
	rc = -1;
out:
	if (attached)
		db_rollback(db, "DETACH DATABASE src");
	return rc;
}
