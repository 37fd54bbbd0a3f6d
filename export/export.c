/*
 * export: every table of the selected sessions, one scan per table in storage order, each row written to
 * its (table, session) part through zlib. Keys are global: a row's session_id becomes its session's uuid
 * (column `session`), the sessions table loses its local id; string ids stay ids, exported with their
 * session in `strings` (join on session and id). The column chunks are a cache of the kernels and API
 * calls rows (schemas/session.sql) and are not exported; the rows they cache are, as analyses read them.
 */
#include "export.h"
#include "db.h"
#include "json.h"
#include "outfile.h"
#include "utf8.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

const struct export_target export_targets[] = {
	{ "clickhouse", EXPORT_NDJSON, "load.sh", export_load_sh, "JSONEachRow parts and load.sh (clickhouse-client)" },
	{ "postgres", EXPORT_CSV, "load.sql", export_load_sql, "COPY CSV parts and load.sql (psql)" },
	{ "ndjson", EXPORT_NDJSON, NULL, NULL, "NDJSON parts (Spark, Trino, DuckDB, ...)" },
	{ "csv", EXPORT_CSV, NULL, NULL, "CSV parts with a header line (RFC 4180)" },
	{ NULL }
};

/* Tables that hold no session's data of their own: the column chunks cache rows exported anyway. */
static const char *const skipped[] = { "column_chunks", "column_sets" };

static int exit_code;

int export_exit_code(void)
{
	return exit_code ? exit_code : db_exit_code();	/* not set: the database's error (db_error said it) */
}

const struct export_target *export_target_find(const char *name)
{
	const struct export_target *t;
	for (t = export_targets; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

struct session {
	int64_t id;
	char *uuid;
	char *dir;		/* "session=" and the uuid escaped as Hive escapes partition values */
};

/* A part being written: one table's rows of one session. */
struct part_file {
	gzFile gz;
	char *path;		/* full path */
	struct buf out;		/* rows not yet handed to zlib */
};

struct exporter {
	const struct export_opts *o;
	sqlite3 *db;
	struct session *sessions;
	int nsessions;
	char **tables;		/* sessions first */
	int ntables;
	char **columns;		/* per table: its header, comma-separated */
	unsigned char *written;	/* [table * nsessions + session]: 1 once its part exists */
	struct outfile *outs;	/* [table * nsessions + session]: its part, written aside until the end; the
				   loader's last */
	int64_t rows;
	int64_t orphans;	/* rows of no session (an ingest_errors row of an input that was none): left out */
};

/*
 * A session's directory: "session=" and its uuid as Hive escapes partition values (bytes other than
 * [A-Za-z0-9._-] as %XX). An escaped uuid longer than EXPORT_DIR_VALUE_MAX bytes (a 32-character Chinese
 * trace_id is 288, a 300-character --session up to 900: a file name holds 255) is cut to its first
 * EXPORT_DIR_KEEP bytes (never inside a %XX) followed by "~" and the 16 hex digits of its FNV-1a hash: '~'
 * is never in an escaped value, so such a name is no other uuid's. The uuid itself is in every row.
 */
#define EXPORT_DIR_VALUE_MAX 120
#define EXPORT_DIR_KEEP 80
static char *escape_value(const char *s)
{
	const char *uuid = s;
	struct buf b;
	buf_init(&b);
	buf_addstr(&b, "session=");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		    c == '-')
			buf_addch(&b, (char)c);
		else
			buf_addf(&b, "%%%02X", c);
	}
	if (b.len - 8 > EXPORT_DIR_VALUE_MAX) {
		size_t keep = 8 + EXPORT_DIR_KEEP;
		if (b.s[keep - 1] == '%')	/* not inside a %XX */
			keep -= 1;
		else if (b.s[keep - 2] == '%')
			keep -= 2;
		b.len = keep;
		b.s[keep] = '\0';
		buf_addf(&b, "~%016llx", (unsigned long long)fnv1a(FNV1A_INIT, uuid, strlen(uuid)));
	}
	return b.s;
}

/* mkdir -p; 0, or -1 with a message. */
static int make_dirs(const char *path)
{
	char tmp[PATH_MAX], *p;
	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return error("%s: path too long", path);
	for (p = tmp + 1; ; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = '\0';
			if (mkdir(tmp, 0777) && errno != EEXIST)
				return error("%s: cannot make directory: %s", tmp, strerror(errno));
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/* The selected sessions in id order; 0, or -1 with a message. */
static int load_sessions(struct exporter *x)
{
	sqlite3_stmt *st;
	int64_t one = 0;
	size_t alloc = 0;
	int rc;
	if (x->o->session && db_session(x->db, x->o->session, &one)) {
		exit_code = db_exit_code();
		return -1;
	}
	if (!(st = db_prepare(x->db, "SELECT id, uuid FROM sessions WHERE ?1 = 0 OR id = ?1 ORDER BY id")))
		return -1;
	sqlite3_bind_int64(st, 1, one);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct session *s;
		ALLOC_GROW(x->sessions, (size_t)x->nsessions + 1, alloc);
		s = &x->sessions[x->nsessions++];
		s->id = sqlite3_column_int64(st, 0);
		s->uuid = xstrdup((const char *)sqlite3_column_text(st, 1));
		s->dir = escape_value(s->uuid);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(x->db);
	if (!x->nsessions)
		return error("%s: holds no session", x->o->db);
	return 0;
}

/* The tables with a session_id column, but the skipped ones, after sessions; 0, or -1 with a message. */
static int load_tables(struct exporter *x)
{
	sqlite3_stmt *st;
	size_t alloc = 0, i;
	int rc;
	if (!(st = db_prepare(x->db, "SELECT m.name FROM main.sqlite_master m WHERE m.type = 'table' AND "
				     "EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'session_id') "
				     "ORDER BY m.name")))
		return -1;
	ALLOC_GROW(x->tables, 1, alloc);
	x->tables[x->ntables++] = xstrdup("sessions");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		for (i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
			if (!strcmp(name, skipped[i]))
				break;
		if (i < sizeof(skipped) / sizeof(skipped[0]))
			continue;
		ALLOC_GROW(x->tables, (size_t)x->ntables + 1, alloc);
		x->tables[x->ntables++] = xstrdup(name);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(x->db);
	x->columns = xcalloc((size_t)x->ntables, sizeof(*x->columns));
	x->written = xcalloc((size_t)x->ntables * (size_t)x->nsessions, 1);
	x->outs = xcalloc((size_t)x->ntables * (size_t)x->nsessions + 1, sizeof(*x->outs));
	return 0;
}

/* 1 when name is a plain identifier ([A-Za-z_][A-Za-z0-9_]*), as every name of schemas/session.sql is. */
static int plain_name(const char *name)
{
	const char *p = name;
	if (!*p || (*p >= '0' && *p <= '9'))
		return 0;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

/*
 * The statement that reads table t of the selected sessions, session_id (the sessions table: id) first, then
 * every other column in table order; the header (`session` and those columns) into x->columns[t].
 */
static sqlite3_stmt *table_query(struct exporter *x, int t)
{
	const char *name = x->tables[t];
	int is_sessions = !strcmp(name, "sessions");
	struct buf sql, head;
	sqlite3_stmt *st, *cols;
	int rc;
	if (!(cols = db_prepare(x->db, "SELECT name FROM pragma_table_info(?1) ORDER BY cid")))
		return NULL;
	sqlite3_bind_text(cols, 1, name, -1, SQLITE_STATIC);
	buf_init(&sql);
	buf_init(&head);
	buf_addf(&sql, "SELECT %s", is_sessions ? "id" : "session_id");
	buf_addstr(&head, "session");
	while ((rc = sqlite3_step(cols)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(cols, 0);
		if (!strcmp(c, "session_id") || (is_sessions && (!strcmp(c, "id") || !strcmp(c, "uuid"))))
			continue;
		if (!plain_name(c) || !plain_name(name)) {	/* names go into SQL, JSON keys and headers as they are */
			error("%s: table \"%s\", column \"%s\": not a name gpuprof writes; not a gpuprof database?",
			      x->o->db, name, c);
			exit_code = EXIT_DATA;
			rc = SQLITE_ERROR;
			break;
		}
		buf_addf(&sql, ", \"%s\"", c);
		buf_addf(&head, ",%s", c);
	}
	sqlite3_finalize(cols);
	if (rc != SQLITE_DONE) {
		buf_release(&sql);
		buf_release(&head);
		if (!exit_code)
			db_error(x->db);
		return NULL;
	}
	buf_addf(&sql, " FROM main.\"%s\" WHERE %s = ?1", name, is_sessions ? "id" : "session_id");
	if (!x->o->session)	/* every session: one scan of the table */
		buf_addf(&sql, " OR ?1 IS NULL");
	st = db_prepare(x->db, sql.s);
	if (st && x->o->session)
		sqlite3_bind_int64(st, 1, x->sessions[0].id);
	buf_release(&sql);
	x->columns[t] = head.s;
	return st;
}

/* The index of the session with this id (binary search), or -1: rows of no known session are left out. */
static int find_session(const struct exporter *x, int64_t id)
{
	int lo = 0, hi = x->nsessions - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (x->sessions[mid].id == id)
			return mid;
		if (x->sessions[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static const char *part_ext(const struct exporter *x)
{
	return x->o->target->format == EXPORT_CSV ? "csv.gz" : "ndjson.gz";
}

/* Hand f's pending bytes to zlib; 0, or -1 with a message. */
static int part_flush(struct part_file *f)
{
	if (f->out.len && gzwrite(f->gz, f->out.s, (unsigned)f->out.len) != (int)f->out.len) {
		int zerr;
		const char *msg = gzerror(f->gz, &zerr);
		exit_code = EXIT_SYSTEM;
		return error("%s: write failed: %s", f->path, zerr == Z_ERRNO ? strerror(errno) : msg);
	}
	buf_reset(&f->out);
	return 0;
}

/* Finish the part being written, if any; 0, or -1 with a message. */
static int part_close(struct part_file *f)
{
	int rc = 0;
	if (!f->gz)
		return 0;
	rc = part_flush(f);
	if (gzclose(f->gz) != Z_OK && !rc) {
		exit_code = EXIT_SYSTEM;
		rc = error("%s: write failed: %s", f->path, strerror(errno));
	}
	f->gz = NULL;
	free(f->path);
	f->path = NULL;
	return rc;
}

/*
 * Open table t's part of session s: a new file the first time, else a further gzip member appended (rows of
 * one session that storage order interleaves with another's). 0, or -1 with a message.
 */
static int part_open(struct exporter *x, struct part_file *f, int t, int s)
{
	struct buf path;
	size_t at = (size_t)t * (size_t)x->nsessions + (size_t)s;
	unsigned char *done = &x->written[at];
	buf_init(&path);
	buf_addf(&path, "%s/%s/%s", x->o->dir, x->tables[t], x->sessions[s].dir);
	if (make_dirs(path.s)) {
		exit_code = EXIT_SYSTEM;
		buf_release(&path);
		return -1;
	}
	buf_addf(&path, "/part-0.%s", part_ext(x));
	f->path = path.s;
	/* Written aside (the temporary file outfile names) and renamed with the others at the end. */
	if (!*done && outfile_reserve(&x->outs[at], f->path)) {
		exit_code = EXIT_SYSTEM;
		return -1;
	}
	/* Level 1: 2.6 times the speed of zlib's default (6) for 27 % more bytes (gzip -1 and -6 on the kernels
	 * part of the 200k-kernel bench session: 0.28 s, 4.3 MB against 0.74 s, 3.4 MB). */
	if (!(f->gz = gzopen(outfile_name(&x->outs[at]), *done ? "ab1" : "wb1"))) {
		exit_code = EXIT_SYSTEM;
		return error("%s: cannot write: %s", f->path, strerror(errno ? errno : ENOMEM));
	}
	gzbuffer(f->gz, 1 << 17);
	if (!*done && x->o->target->format == EXPORT_CSV) {
		buf_addstr(&f->out, x->columns[t]);
		buf_addch(&f->out, '\n');
	}
	*done = 1;
	return 0;
}

/* A REAL as the shortest-safe decimal that reads back the same double; JSON has no inf or nan: null. */
static void add_real(struct buf *b, double v, const char *none)
{
	if (isfinite(v))
		buf_addf(b, "%.17g", v);
	else
		buf_addstr(b, none);
}

/*
 * A CSV cell as RFC 4180 quotes it: always quoted, so an empty string is "" and NULL stays an empty cell.
 * Valid UTF-8 whatever the database holds (one written before ingest repaired text): an invalid sequence,
 * or a NUL (text cannot hold one in PostgreSQL), is written as U+FFFD, so COPY loads every row.
 */
static void add_csv_string(struct buf *b, const unsigned char *s, int n)
{
	size_t i, k, bad;
	buf_addch(b, '"');
	for (i = 0; i < (size_t)n; i++) {
		if (s[i] >= 0x80) {
			if ((k = utf8_next((const char *)s + i, (size_t)n - i, &bad))) {
				buf_add(b, s + i, k);
				i += k - 1;
			} else {
				buf_add(b, UTF8_REPLACEMENT, 3);
				i += bad - 1;
			}
			continue;
		}
		if (!s[i]) {
			buf_add(b, UTF8_REPLACEMENT, 3);
			continue;
		}
		if (s[i] == '"')
			buf_addch(b, '"');
		buf_addch(b, (char)s[i]);
	}
	buf_addch(b, '"');
}

/* A BLOB (no table of gpuprof has one today) as the text PostgreSQL reads into bytea: \x and hex. */
static void add_blob(struct buf *b, const unsigned char *p, int n, int json)
{
	int i;
	buf_addstr(b, json ? "\"\\\\x" : "\\x");
	for (i = 0; i < n; i++)
		buf_addf(b, "%02x", p[i]);
	if (json)
		buf_addch(b, '"');
}

/* Row st (column 0 its session, written as uuid) as one line of the target's format. */
static void add_row(struct exporter *x, struct buf *b, sqlite3_stmt *st, int t, const char *uuid)
{
	int json = x->o->target->format == EXPORT_NDJSON, n = sqlite3_column_count(st), i;
	const char *names = x->columns[t];
	if (json) {
		buf_addstr(b, "{\"session\":");
		json_quote(b, uuid, strlen(uuid));
	} else {
		add_csv_string(b, (const unsigned char *)uuid, (int)strlen(uuid));
	}
	for (i = 1; i < n; i++) {
		const char *name;
		size_t len;
		names = strchr(names, ',') + 1;
		name = names;
		len = strcspn(name, ",");
		if (json) {
			buf_addstr(b, ",\"");
			buf_add(b, name, len);
			buf_addstr(b, "\":");
		} else {
			buf_addch(b, ',');
		}
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			buf_addi64(b, sqlite3_column_int64(st, i));	/* exact: never through a double */
			break;
		case SQLITE_FLOAT:
			add_real(b, sqlite3_column_double(st, i), json ? "null" : "");
			break;
		case SQLITE_TEXT:
			if (json)
				json_quote(b, (const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
			else
				add_csv_string(b, sqlite3_column_text(st, i), sqlite3_column_bytes(st, i));
			break;
		case SQLITE_BLOB:
			add_blob(b, sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i), json);
			break;
		default:
			if (json)
				buf_addstr(b, "null");
			break;
		}
	}
	buf_addstr(b, json ? "}\n" : "\n");
}

/* Table t of the selected sessions into its parts; 0, or -1 with a message. */
static int export_table(struct exporter *x, int t)
{
	struct part_file f = { 0 };
	sqlite3_stmt *st;
	int64_t orphans = 0;
	int at = -1, rc;
	if (!(st = table_query(x, t)))
		return -1;
	buf_init(&f.out);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int s = at;
		if (at < 0 || sqlite3_column_int64(st, 0) != x->sessions[at].id)
			s = find_session(x, sqlite3_column_int64(st, 0));
		if (s < 0) {
			x->orphans++;	/* a row of no session (ingest_errors of an input that was no session) */
			orphans++;
			continue;
		}
		if (s != at) {
			if (part_close(&f) || part_open(x, &f, t, s))
				goto fail;
			at = s;
		}
		add_row(x, &f.out, st, t, x->sessions[s].uuid);
		x->rows++;
		if (f.out.len >= (1 << 16) && part_flush(&f))
			goto fail;
	}
	if (rc != SQLITE_DONE) {
		db_error(x->db);
		exit_code = db_exit_code();
		goto fail;
	}
	sqlite3_finalize(st);
	rc = part_close(&f);
	buf_release(&f.out);
	if (orphans)
		warning("%s: %lld row%s of %s belong to no session (what ingest could not read as one): not exported",
			x->o->db, (long long)orphans, orphans == 1 ? "" : "s", x->tables[t]);
	return rc;
fail:
	sqlite3_finalize(st);
	part_close(&f);
	buf_release(&f.out);
	return -1;
}

/*
 * The loader, written aside, then every part and the loader renamed into place at once, the loader last:
 * a failed or interrupted export leaves no loader beside parts it does not describe. 0, or -1 with a
 * message.
 */
static int write_loader(struct exporter *x)
{
	const struct export_target *tg = x->o->target;
	struct outfile *lo = &x->outs[(size_t)x->ntables * (size_t)x->nsessions];
	struct export_part *parts;
	struct export_done done;
	char abs[PATH_MAX];
	struct buf final;
	int t, s, n = 0, rc = -1;
	exit_code = EXIT_SYSTEM;
	if (!tg->write_loader)
		goto commit;
	if (!realpath(x->o->dir, abs))
		return error("%s: %s", x->o->dir, strerror(errno));
	parts = xcalloc((size_t)x->ntables * (size_t)x->nsessions + 1, sizeof(*parts));
	for (s = 0; s < x->nsessions; s++)
		for (t = 0; t < x->ntables; t++) {
			struct buf path;
			if (!x->written[(size_t)t * (size_t)x->nsessions + (size_t)s])
				continue;
			buf_init(&path);
			buf_addf(&path, "%s/%s/part-0.%s", x->tables[t], x->sessions[s].dir, part_ext(x));
			parts[n++] = (struct export_part){ x->tables[t], x->sessions[s].uuid, path.s, x->columns[t] };
		}
	done = (struct export_done){ (const char *const *)x->tables, x->ntables, parts, n };
	buf_init(&final);
	buf_addf(&final, "%s/%s", x->o->dir, tg->loader);
	if (!outfile_open(lo, final.s)) {
		rc = tg->write_loader(lo->f, abs, &done);
		if (!rc && lo->tmp && chmod(lo->tmp, strstr(tg->loader, ".sh") ? 0755 : 0644))
			rc = error("%s: %s", final.s, strerror(errno));
	}
	for (t = 0; t < n; t++)
		free((char *)parts[t].path);
	free(parts);
	buf_release(&final);
	if (rc)
		return -1;
commit:
	if (outfile_commit_all(x->outs, (size_t)x->ntables * (size_t)x->nsessions + 1))
		return -1;
	exit_code = 0;
	return 0;
}

/*
 * The loaders of an earlier export into the directory whose parts this one replaces (the targets that
 * write parts of the same format), removed before any part is: interrupted, an export leaves no loader
 * that would load a mix of old and new. 0, or -1 with a message.
 */
static int remove_loaders(struct exporter *x)
{
	const struct export_target *t;
	for (t = export_targets; t->name; t++) {
		struct buf path;
		int rc = 0;
		if (!t->loader || t->format != x->o->target->format)
			continue;
		buf_init(&path);
		buf_addf(&path, "%s/%s", x->o->dir, t->loader);
		if (unlink(path.s) && errno != ENOENT) {
			exit_code = EXIT_SYSTEM;
			rc = error("%s: cannot remove the earlier export's loader: %s", path.s, strerror(errno));
		}
		buf_release(&path);
		if (rc)
			return -1;
	}
	return 0;
}

static void exporter_release(struct exporter *x)
{
	int i;
	for (i = 0; i < x->nsessions; i++) {
		free(x->sessions[i].uuid);
		free(x->sessions[i].dir);
	}
	for (i = 0; i < x->ntables; i++) {
		free(x->tables[i]);
		if (x->columns)
			free(x->columns[i]);
	}
	free(x->sessions);
	free(x->tables);
	free(x->columns);
	free(x->written);
	if (x->outs)	/* what a failure left unrenamed */
		for (i = 0; i <= x->ntables * x->nsessions; i++)
			outfile_abort(&x->outs[i]);
	free(x->outs);
	db_close(x->db);
}

int export_run(const struct export_opts *o)
{
	struct exporter x = { 0 };
	struct buf what;
	int64_t t0 = now_ns();
	int t, rc = -1;
	exit_code = 0;
	x.o = o;
	if (!(x.db = db_open(o->db, DB_READ))) {
		exit_code = db_exit_code();
		return -1;
	}
	if (load_sessions(&x) || load_tables(&x))
		goto out;
	if (make_dirs(o->dir)) {
		exit_code = EXIT_SYSTEM;
		goto out;
	}
	if (remove_loaders(&x))
		goto out;
	/* Interrupted from here, the parts are left as they were: each is written aside, renamed at the end. */
	buf_init(&what);
	buf_addf(&what, "%s left without a loader; no part was replaced", o->dir);
	outfile_catch_signals(what.s);
	buf_release(&what);
	for (t = 0; t < x.ntables; t++)
		if (export_table(&x, t))
			goto out;
	if (write_loader(&x))
		goto out;
	if (!o->quiet)
		info("%s: %d session%s, %lld rows in %.1f s%s%s", o->dir, x.nsessions, x.nsessions == 1 ? "" : "s",
		     (long long)x.rows, (double)(now_ns() - t0) / 1e9, o->target->loader ? "; loader " : "",
		     o->target->loader ? o->target->loader : "");
	rc = x.orphans ? 1 : 0;
out:
	exporter_release(&x);
	return rc;
}
