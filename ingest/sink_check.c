/*
 * sink_check: a spooling sink (sink_spool.c) that writes nowhere and checks every call against the sink's
 * contract (sink.h): the order of calls, string ids used only once issued, values of the kinds rec_specs
 * gives their fields, NULL only where session.sql lets a column be NULL. A reader that breaks it is a bug, so a break prints what it was and abort()s, which
 * a fuzzer reports with the input. No database is touched: readers run at the speed of their parsing.
 */
#include "sink_int.h"
#include "embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A FILE whose writes go nowhere (no system call either). */
static ssize_t discard(void *cookie, const char *b, size_t n)
{
	(void)cookie;
	(void)b;
	return (ssize_t)n;
}

/* not_null[t][i]: field i of record type t is a NOT NULL column of session.sql, read once from the schema. */
static char not_null[R_COUNT][REC_MAX_FIELDS];

static int load_not_null(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int t, i, rc = -1;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    sqlite3_exec(db, embed_get("schemas/session.sql"), NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT \"notnull\" FROM pragma_table_info(?1) WHERE name = ?2", -1, &st, NULL))
		goto out;
	for (t = 0; t < R_COUNT; t++)
		for (i = 0; i < rec_specs[t].nfields; i++) {
			sqlite3_bind_text(st, 1, rec_specs[t].table, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, rec_specs[t].fields[i].column, -1, SQLITE_STATIC);
			if (sqlite3_step(st) != SQLITE_ROW)
				goto out;	/* records.c names a column the schema lacks */
			not_null[t][i] = (char)sqlite3_column_int(st, 0);
			sqlite3_reset(st);
		}
	rc = 0;
out:
	if (rc)
		error("sink check: cannot read the schema's NOT NULL columns: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

struct sink *sink_check_open(void)
{
	cookie_io_functions_t io = { NULL, discard, NULL, NULL };
	static int loaded;
	FILE *f;
	struct sink *s;
	if (!loaded && load_not_null())
		return NULL;
	loaded = 1;
	if (!(f = fopencookie(NULL, "w", io)))
		return NULL;
	s = sink_spool_open(f);
	util_divert_messages(NULL, NULL);	/* the reader's messages are printed, unless quiet */
	s->check = 1;
	return s;
}

/* A broken contract: say which call broke what, and stop here so that the fuzzer keeps the input. */
static void violated(const char *call, const char *what)
{
	fprintf(stderr, "sink contract: %s: %s\n", call, what);
	abort();
}

/* A string of the caller's: read it whole (a sanitizer sees an unterminated one), NULL only where allowed. */
static void check_str(const char *call, const char *v, int nullable)
{
	if (!v && !nullable)
		violated(call, "a required string is NULL");
	if (v && strlen(v) > ((size_t)1 << 30))
		violated(call, "a string longer than 1 GiB");
}

void sink_check_tx(struct sink *s, int tag)
{
	if (tag == 'B') {
		if (s->check_tx)
			violated("sink_tx_begin", "a transaction is already open");
		s->check_tx = 1;
		return;
	}
	if (!s->check_tx)
		violated(tag == 'C' ? "sink_tx_commit" : "sink_tx_rollback", "no transaction is open");
	if (tag == 'C' && s->check_process)
		violated("sink_tx_commit", "a process is still open (no sink_process_end)");
	s->check_tx = 0;
	s->check_process = 0;
}

void sink_check_process(struct sink *s, const struct sink_process *p)
{
	if (!s->check_tx)
		violated("sink_process_begin", "outside a transaction");
	if (s->check_process)
		violated("sink_process_begin", "the previous process was not ended");
	check_str("sink_process_begin", p->uuid, 0);
	check_str("sink_process_begin", p->source, 1);
	check_str("sink_process_begin", p->path, 1);
	check_str("sink_process_begin", p->file, 1);
	check_str("sink_process_begin", p->program, 1);
	check_str("sink_process_begin", p->args_json, 1);
	check_str("sink_process_begin", p->hostname, 1);
	check_str("sink_process_begin", p->engine, 1);
	check_str("sink_process_begin", p->collector, 1);
	check_str("sink_process_begin", p->options_json, 1);
	check_str("sink_process_begin", p->content, 1);
	s->check_process = 1;
}

void sink_check_in_process(const struct sink *s, const char *call)
{
	if (!s->check_tx)
		violated(call, "outside a transaction");
	if (!s->check_process)
		violated(call, "outside a process");
}

void sink_check_end(struct sink *s)
{
	sink_check_in_process(s, "sink_process_end");
	s->check_process = 0;
}

void sink_check_add(const struct sink *s, enum rec_type t, const struct value *vals)
{
	const struct rec_spec *r;
	int i;
	sink_check_in_process(s, "sink_add");
	if ((int)t < 0 || t >= R_COUNT)
		violated("sink_add", "no such record type");
	r = &rec_specs[t];
	for (i = 0; i < r->nfields; i++) {
		const struct value *v = &vals[i];
		enum field_kind kind = r->fields[i].kind;
		char what[160];
		const char *bad = NULL;
		if (v->null) {
			if (not_null[t][i])
				bad = "NULL in a NOT NULL column";
		} else if (kind == F_TEXT) {
			check_str("sink_add", v->s, 0);
		} else if ((kind == F_STR || kind == F_STRTEXT) && (v->i < 0 || v->i >= s->next_string_id)) {
			bad = "a string id the sink did not issue";
		}
		if (bad) {
			snprintf(what, sizeof(what), "%s.%s: %s (%lld)", r->wire, r->fields[i].wire, bad,
				 v->null ? 0 : (long long)v->i);
			violated("sink_add", what);
		}
	}
}

int sink_check_done(struct sink *s)
{
	if (s->check_tx)
		violated("the reader's return", "its transaction was left open");
	return 0;
}
