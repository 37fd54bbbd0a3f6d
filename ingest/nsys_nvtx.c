/*
 * nsys_nvtx: NVTX_EVENTS: domains named by domain-create events, then push/pop and start/end ranges and
 * marks, read by one cursor sorted so that push/pop depths follow from a stack.
 */
#include "nsys.h"

#include <stdio.h>
#include <string.h>

static const struct rec_index nvtx_index[] = {
	{ offsetof(struct nvtx_fields, r_start), R_RANGE, "start" },
	{ offsetof(struct nvtx_fields, r_end), R_RANGE, "end" },
	{ offsetof(struct nvtx_fields, r_thread), R_RANGE, "thread" },
	{ offsetof(struct nvtx_fields, r_name), R_RANGE, "name" },
	{ offsetof(struct nvtx_fields, r_domain), R_RANGE, "domain" },
	{ offsetof(struct nvtx_fields, r_kind), R_RANGE, "kind" },
	{ offsetof(struct nvtx_fields, r_depth), R_RANGE, "depth" },
	{ offsetof(struct nvtx_fields, r_id), R_RANGE, "id" },
	{ offsetof(struct nvtx_fields, m_ts), R_MARKER, "ts" },
	{ offsetof(struct nvtx_fields, m_thread), R_MARKER, "thread" },
	{ offsetof(struct nvtx_fields, m_name), R_MARKER, "name" },
	{ offsetof(struct nvtx_fields, m_domain), R_MARKER, "domain" },
};

int nsys_nvtx_fields(struct nvtx_fields *fx)
{
	return rec_indices(nvtx_index, sizeof(nvtx_index) / sizeof(nvtx_index[0]), fx);
}

/* The export's column behind each result column of the NVTX cursor. */
static const char *const nvtx_cols[] = { "globalTid", "globalTid", "eventType", "start", "end", "text",
					 "textId", "rowid", "domainId", "rangeId" };

/* NVTX domains named by domain-create events (eventType 75), their rows checked like every other. */
int nsys_load_domains(struct nsys *n, const struct names *cols)
{
	struct buf sql;
	sqlite3_stmt *st;
	int rc, status = EXIT_OK, join = n->has_strings && nsys_names_has(cols, "textId", 6);
	if (!nsys_names_has(cols, "domainId", 8) || !nsys_names_has(cols, "eventType", 9))
		return EXIT_OK;
	buf_init(&sql);
	buf_addstr(&sql, "SELECT ");
	nsys_add_expr(&sql, cols, "globalTid");
	buf_addstr(&sql, ", t.domainId, ");
	nsys_add_expr(&sql, cols, "text");
	buf_addstr(&sql, ", ");
	nsys_add_expr(&sql, cols, "textId");
	buf_addf(&sql, ", %s, t.rowid FROM NVTX_EVENTS AS t", join ? "s.value" : "NULL");
	if (join)
		buf_addstr(&sql, " LEFT JOIN StringIds AS s ON s.id = t.textId");
	buf_addf(&sql, " WHERE t.eventType = %d AND t.domainId IS NOT NULL", NVTX_DOMAIN_CREATE);
	st = nsys_prepare_rowid(n, sql.s, "NVTX_EVENTS", &status);
	buf_release(&sql);
	if (!st)
		return status;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row r = nsys_row_at("NVTX_EVENTS", st, 5);
		const char *name;
		struct domain *d;
		int64_t gtid, id, text_id;
		int bad, isnull, id_null;
		if (!(bad = nsys_get_int(n, &r, 0, "globalTid", 9, 1, &gtid, &isnull)) &&
		    !(bad = nsys_get_int(n, &r, 1, "domainId", 8, 0, &id, &isnull)) &&
		    !(bad = nsys_get_text(n, &r, 2, "text", 4, 1, &name)) &&
		    !(bad = nsys_get_int(n, &r, 3, "textId", 6, 1, &text_id, &id_null)) && !name && !id_null &&
		    !(name = (const char *)sqlite3_column_text(st, 4)))
			bad = nsys_reject(n, &r, 3, "textId", 6, "\"textId\" %lld is not in StringIds", (long long)text_id);
		if (bad < 0) {
			status = EXIT_SYSTEM;
			break;
		}
		if (bad || !name)
			continue;
		ALLOC_GROW(n->domains, n->ndomains + 1, n->domains_alloc);
		d = &n->domains[n->ndomains++];
		d->pid = (gtid >> 24) & 0xFFFFFF;
		d->id = id;
		d->name = xstrdup(name);
	}
	if (rc != SQLITE_DONE && !status)
		status = nsys_src_error(n, "NVTX_EVENTS");
	sqlite3_finalize(st);
	return status;
}

/*
 * The NVTX cursor: ranges and marks sorted by process, thread, domain, start and longest first, so
 * push/pop depths follow from a stack. Result columns c0..c9: pid, then nvtx_cols as stored.
 */
int nsys_open_nvtx(struct nsys *n, const struct names *cols)
{
	struct buf sql;
	size_t i;
	int status = EXIT_OK;
	if (!nsys_names_has(cols, "eventType", 9) || !nsys_names_has(cols, "start", 5)) {
		error("%s: NVTX_EVENTS: no column \"%s\"", n->path,
		      nsys_names_has(cols, "start", 5) ? "eventType" : "start");
		return EXIT_DATA;
	}
	buf_init(&sql);
	buf_addstr(&sql, "SELECT ");
	nsys_add_row_pid(n, &sql, cols, "globalTid");
	buf_addstr(&sql, " AS c0");
	for (i = 1; i < sizeof(nvtx_cols) / sizeof(nvtx_cols[0]); i++) {
		buf_addstr(&sql, ", ");
		if (!strcmp(nvtx_cols[i], "rowid"))
			buf_addstr(&sql, "t.rowid");
		else
			nsys_add_expr(&sql, cols, nvtx_cols[i]);
		buf_addf(&sql, " AS c%zu", i);
	}
	buf_addf(&sql, " FROM NVTX_EVENTS AS t WHERE t.eventType IN (%d, %d, %d)", NVTX_MARK, NVTX_PUSHPOP,
		 NVTX_STARTEND);
	buf_addf(&sql, "%s ORDER BY c0, c1, c8, c3, coalesce(c4, 9223372036854775807) DESC",
		 n->per_pid ? " AND c0 = ?1" : "");
	memset(&n->nvtx, 0, sizeof(n->nvtx));
	n->nvtx.st = nsys_prepare_rowid(n, sql.s, "NVTX_EVENTS", &status);
	buf_release(&sql);
	return status;
}

/* Our string id of NVTX domain `id` in process pid: 0 for the default domain (NULL), -1 on failure. */
static int64_t domain_id(struct nsys *n, int64_t pid, int isnull, int64_t id)
{
	char name[64];
	const char *s = NULL;
	size_t i;
	if (isnull || id == 0)
		return 0;
	for (i = 0; i < n->ndomains && !s; i++)
		if (n->domains[i].id == id && n->domains[i].pid == pid)
			s = n->domains[i].name;
	if (!s) {
		snprintf(name, sizeof(name), "nvtx domain %lld", (long long)id);
		s = name;
	}
	return sink_string(n->sink, s, strlen(s));
}

/* Push/pop nesting depth of a range starting at `start` and ending at `end` on the current stack. */
static int64_t depth_of(struct nsys *n, int64_t gtid, int64_t domain, int64_t start, int64_t end)
{
	int64_t d;
	if (!n->nstack || gtid != n->stack_tid || domain != n->stack_domain) {
		n->nstack = 0;
		n->stack_tid = gtid;
		n->stack_domain = domain;
	}
	while (n->nstack && n->stack[n->nstack - 1] <= start)
		n->nstack--;
	d = (int64_t)n->nstack;
	ALLOC_GROW(n->stack, n->nstack + 1, n->stack_alloc);
	n->stack[n->nstack++] = end;
	return d;
}

/* An NVTX range or mark, checked (times absolute, name our string id). */
struct nvtx_row {
	int64_t gtid, type, start, end, domain, id, name;
	int end_null, domain_null, id_null;
};

/*
 * Check the current NVTX row (result columns 1..9 as stored) into *e: 0, 1 when it is rejected (recorded),
 * -1 on a failure. A NULL end is an open range; a name comes from text, else textId, else is empty.
 */
static int nvtx_check(struct nsys *n, sqlite3_stmt *st, struct nvtx_row *e)
{
	struct row r = nsys_row_at("NVTX_EVENTS", st, 7);
	const char *text;
	int64_t text_id;
	int rc, isnull, id_null;
#define NV(i) (i), nvtx_cols[i], (int)strlen(nvtx_cols[i])
	if ((rc = nsys_get_int(n, &r, NV(1), 1, &e->gtid, &isnull)) ||
	    (rc = nsys_get_int(n, &r, NV(2), 0, &e->type, &isnull)) ||
	    (rc = nsys_get_int(n, &r, NV(3), 0, &e->start, &isnull)) ||
	    (rc = nsys_get_int(n, &r, NV(4), 1, &e->end, &e->end_null)) ||
	    (rc = nsys_get_text(n, &r, NV(5), 1, &text)) ||
	    (rc = nsys_get_int(n, &r, NV(6), 1, &text_id, &id_null)) ||
	    (rc = nsys_get_int(n, &r, NV(8), 1, &e->domain, &e->domain_null)) ||
	    (rc = nsys_get_int(n, &r, NV(9), 1, &e->id, &e->id_null)))
		return rc;
	if (!e->end_null && e->end < e->start)
		return nsys_reject(n, &r, NV(4), "\"end\" %lld is before \"start\" %lld", (long long)e->end,
				   (long long)e->start);
	if (__builtin_add_overflow(n->origin, e->start, &e->start) ||
	    (!e->end_null && __builtin_add_overflow(n->origin, e->end, &e->end)))
		return nsys_reject(n, &r, NV(3), "a time overflows the time origin %lld", (long long)n->origin);
	if (text)
		e->name = sink_string(n->sink, text, strlen(text));
	else if (!id_null)
		return nsys_get_string(n, &r, NV(6), text_id, 0, &e->name);
	else
		e->name = sink_string(n->sink, "", 0);
#undef NV
	return e->name < 0 ? -1 : 0;
}

/* Store the NVTX ranges and marks of process pid (or pass over them). Returns an exit status. */
int nsys_drain_nvtx(struct nsys *n, int64_t pid, int skip)
{
	struct cursor *c = &n->nvtx;
	const struct nvtx_fields *fx = &n->fx;
	int status;
	if (!c->st || (skip && (n->per_pid || n->npids == 1)))
		return EXIT_OK;
	if ((status = nsys_restart(n, c, pid, "NVTX_EVENTS")))
		return status;
	n->nstack = 0;
	while (c->has_row && c->pid <= pid) {
		struct value *v = n->vals;
		struct nvtx_row e;
		int64_t dom;
		int rc;

		if (skip)
			goto next;
		if ((rc = nvtx_check(n, c->st, &e)) < 0)
			return n->err ? n->err : EXIT_SYSTEM;
		if (rc)
			goto next;
		dom = domain_id(n, c->pid, e.domain_null, e.domain);
		if (dom < 0)
			return EXIT_SYSTEM;
		if (e.type == NVTX_MARK) {
			nsys_clear(v, R_MARKER);
			nsys_set(v, fx->m_ts, e.start, 0);
			nsys_set(v, fx->m_thread, e.gtid & 0xFFFFFF, 0);
			nsys_set(v, fx->m_name, e.name, 0);
			nsys_set(v, fx->m_domain, dom, !dom);
			if (sink_add(n->sink, R_MARKER, v))
				return EXIT_SYSTEM;
			goto next;
		}
		nsys_clear(v, R_RANGE);
		nsys_set(v, fx->r_start, e.start, 0);
		nsys_set(v, fx->r_end, e.end, e.end_null);
		nsys_set(v, fx->r_thread, e.gtid & 0xFFFFFF, 0);
		nsys_set(v, fx->r_name, e.name, 0);
		nsys_set(v, fx->r_domain, dom, !dom);
		nsys_set(v, fx->r_kind, e.type == NVTX_PUSHPOP ? 1 : 2, 0);
		nsys_set(v, fx->r_depth, e.type == NVTX_PUSHPOP ?
			 depth_of(n, e.gtid, e.domain, e.start, e.end_null ? INT64_MAX : e.end) : 0,
			 e.type != NVTX_PUSHPOP);
		nsys_set(v, fx->r_id, e.id, e.id_null);
		if (sink_add(n->sink, R_RANGE, v))
			return EXIT_SYSTEM;
next:
		if ((status = nsys_advance(n, c, "NVTX_EVENTS")))
			return status;
	}
	return EXIT_OK;
}
