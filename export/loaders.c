/*
 * loaders: the script an export directory carries to load itself, one per target that has one. Both
 * replace a session: loading the same export twice leaves one copy of each session.
 */
#include "export.h"
#include "util.h"

#include <string.h>

/* s as an SQL string literal of PostgreSQL (standard_conforming_strings): quotes doubled. */
static void pg_literal(struct buf *b, const char *s)
{
	buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_addch(b, '\'');
		buf_addch(b, *s);
	}
	buf_addch(b, '\'');
}

/* s as a ClickHouse string literal: backslash and quote escaped with a backslash. */
static void ch_literal(struct buf *b, const char *s)
{
	buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			buf_addch(b, '\\');
		buf_addch(b, *s);
	}
	buf_addch(b, '\'');
}

/* s as one word of sh: single-quoted, a quote as '\''. */
static void sh_word(struct buf *b, const char *s)
{
	buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_addstr(b, "'\\''");
		else
			buf_addch(b, *s);
	}
	buf_addch(b, '\'');
}

/* The header's columns as a list of quoted identifiers: "session", "pid", ... */
static void pg_columns(struct buf *b, const char *columns)
{
	const char *p = columns;
	while (*p) {
		size_t n = strcspn(p, ",");
		buf_addf(b, "%s\"%.*s\"", p == columns ? "" : ", ", (int)n, p);
		p += n + (p[n] == ',');
	}
}

/*
 * load.sql for psql: each session in one transaction that deletes it from every table, then copies its
 * parts in (\copy FROM PROGRAM 'gzip -dc ...', run by psql, on the client). The parts are found under
 * :dir, the export directory by default, so `-v dir=PATH` loads an export that has moved.
 */
int export_load_sql(FILE *out, const char *dir, const struct export_done *d)
{
	struct buf b;
	int i = 0, t;
	buf_init(&b);
	buf_addstr(&b, "-- Made by gpuprof-export: load into PostgreSQL, after `psql -f schemas/warehouse/postgres.sql`:\n"
		       "--   psql -v ON_ERROR_STOP=1 -f load.sql   (-v dir=PATH: this directory, moved; a PATH without spaces)\n"
		       "-- Each session in one transaction that deletes it first: loading again leaves one copy.\n"
		       "\\set ON_ERROR_STOP on\n\\if :{?dir}\n\\else\n\\set dir ");
	pg_literal(&b, dir);
	buf_addstr(&b, "\n\\endif\n\\cd :dir\n");
	while (i < d->nparts) {
		const char *session = d->parts[i].session;
		buf_addstr(&b, "\nBEGIN;\n");
		for (t = 0; t < d->ntables; t++) {
			buf_addf(&b, "DELETE FROM \"%s\" WHERE session = ", d->tables[t]);
			pg_literal(&b, session);
			buf_addstr(&b, ";\n");
		}
		for (; i < d->nparts && !strcmp(d->parts[i].session, session); i++) {
			buf_addf(&b, "\\copy \"%s\" (", d->parts[i].table);
			pg_columns(&b, d->parts[i].columns);
			buf_addf(&b, ") FROM PROGRAM 'gzip -dc %s' WITH (FORMAT csv, HEADER true)\n", d->parts[i].path);
		}
		buf_addstr(&b, "COMMIT;\n");
		if (b.len > (1 << 16)) {
			fwrite(b.s, 1, b.len, out);
			buf_reset(&b);
		}
	}
	fwrite(b.s, 1, b.len, out);
	buf_release(&b);
	return 0;
}

/* A clickhouse-client call with the query q as its one sh word after the script's options. */
static void ch_call(struct buf *b, const char *indent, const char *q)
{
	buf_addf(b, "%sch --query ", indent);
	sh_word(b, q);
}

/*
 * load.sh for clickhouse-client (options given to the script go to every call). A session whose sessions
 * row is there (loaded before, maybe in part: that row goes in first and is deleted last) is deleted from
 * every table with ALTER TABLE ... DELETE, waited for, before its parts go in: a partition holds a day of many sessions, so
 * dropping one is no way to delete a session. Loading again leaves one copy.
 */
int export_load_sh(FILE *out, const char *dir, const struct export_done *d)
{
	struct buf b, q;
	int i = 0, t;
	(void)dir;
	buf_init(&b);
	buf_init(&q);
	buf_addstr(&b, "#!/usr/bin/env bash\n"
		       "# Made by gpuprof-export: load into ClickHouse, after\n"
		       "# `clickhouse-client --multiquery < schemas/warehouse/clickhouse.sql`:\n"
		       "#   ./load.sh [clickhouse-client options: --host H --port P --database DB ...]\n"
		       "# A session loaded before is deleted first (and waited for): loading again leaves one copy.\n"
		       "set -euo pipefail\n"
		       "cd \"$(dirname \"$0\")\"\n"
		       "opts=(\"$@\")\n"
		       "ch() { clickhouse-client \"${opts[@]}\" \"$@\"; }\n"
		       "# Wait until no mutation of this database is left to do (at most 10 minutes).\n"
		       "settle() {\n"
		       "\tlocal n=0\n"
		       "\twhile [ \"$(ch --query 'SELECT count() FROM system.mutations WHERE database = currentDatabase() AND is_done = 0')\" != 0 ]; do\n"
		       "\t\tn=$((n + 1)); [ $n -lt 3000 ] || { echo 'load.sh: error: mutations still running after 600 s' >&2; exit 4; }\n"
		       "\t\tsleep 0.2\n"
		       "\tdone\n"
		       "}\n");
	while (i < d->nparts) {
		const char *session = d->parts[i].session;
		buf_reset(&q);
		buf_addstr(&q, "SELECT count() FROM sessions WHERE session = ");
		ch_literal(&q, session);
		buf_addstr(&b, "\nif [ \"$(");
		ch_call(&b, "", q.s);
		buf_addstr(&b, ")\" != 0 ]; then\n");
		/*
		 * The sessions row, which says the session is there, goes last: a load cut short while deleting
		 * leaves it, and the next load deletes again rather than adding a second copy.
		 */
		for (t = 0; t < d->ntables; t++) {
			if (!strcmp(d->tables[t], "sessions"))
				continue;
			buf_reset(&q);
			buf_addf(&q, "ALTER TABLE %s DELETE WHERE session = ", d->tables[t]);
			ch_literal(&q, session);
			ch_call(&b, "\t", q.s);
			buf_addch(&b, '\n');
		}
		buf_addstr(&b, "\tsettle\n");
		buf_reset(&q);
		buf_addstr(&q, "ALTER TABLE sessions DELETE WHERE session = ");
		ch_literal(&q, session);
		ch_call(&b, "\t", q.s);
		buf_addstr(&b, "\n\tsettle\nfi\n");
		for (; i < d->nparts && !strcmp(d->parts[i].session, session); i++) {
			buf_reset(&q);
			buf_addf(&q, "INSERT INTO %s FORMAT JSONEachRow", d->parts[i].table);
			buf_addf(&b, "gzip -dc %s | ", d->parts[i].path);
			ch_call(&b, "", q.s);
			buf_addch(&b, '\n');
		}
		if (b.len > (1 << 16)) {
			fwrite(b.s, 1, b.len, out);
			buf_reset(&b);
		}
	}
	fwrite(b.s, 1, b.len, out);
	buf_release(&b);
	buf_release(&q);
	return 0;
}
