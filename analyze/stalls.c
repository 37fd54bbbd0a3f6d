/*
 * stalls, stall_kernels and stall_pcs: why kernels wait. CUPTI reports, per reason, the samples of warps
 * in that state ("..._stalled_long_scoreboard") and, as a twin, the subset in which the warp issued
 * nothing ("..._not_issued"); twins are therefore shown beside their reason, never added to it.
 * "selected" is an issuing warp, not a stall: it is a row of kind "issued". Labels and hints come from
 * analyze/stall-reasons.txt.
 */
#include "analysis.h"
#include "embed.h"
#include "names.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define PREFIX "smsp__pcsamp_warps_issue_stalled_"
#define TWIN "_not_issued"

/* The short key of a raw reason name, and whether it is the _not_issued twin. */
static void reason_key(const char *raw, struct buf *key, int *twin)
{
	size_t n;
	if (!strncmp(raw, PREFIX, strlen(PREFIX)))
		raw += strlen(PREFIX);
	n = strlen(raw);
	*twin = n > strlen(TWIN) && !strcmp(raw + n - strlen(TWIN), TWIN);
	buf_reset(key);
	buf_add(key, raw, *twin ? n - strlen(TWIN) : n);
}

/* Label and hint of a key from the data file; NULL when the file does not list it. */
static const char *reason_info(const char *key, int want_hint, struct buf *out)
{
	const char *p = embed_get("analyze/stall-reasons.txt");
	size_t klen = strlen(key);
	while (p && *p) {
		const char *eol = strchr(p, '\n'), *tab1, *tab2;
		if (!eol)
			eol = p + strlen(p);
		tab1 = memchr(p, '\t', (size_t)(eol - p));
		tab2 = tab1 ? memchr(tab1 + 1, '\t', (size_t)(eol - tab1 - 1)) : NULL;
		if (*p != '#' && tab1 && tab2 && (size_t)(tab1 - p) == klen && !strncmp(p, key, klen)) {
			buf_reset(out);
			if (want_hint)
				buf_add(out, tab2 + 1, (size_t)(eol - tab2 - 1));
			else
				buf_add(out, tab1 + 1, (size_t)(tab2 - tab1 - 1));
			return out->s;
		}
		p = *eol ? eol + 1 : eol;
	}
	return NULL;
}

struct reason {
	char *key;
	int64_t samples, not_issued;
};

struct reasons {
	struct reason *v;
	size_t n, alloc;
};

static struct reason *reason_get(struct reasons *rs, const char *key)
{
	size_t i;
	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].key, key))
			return &rs->v[i];
	ALLOC_GROW(rs->v, rs->n + 1, rs->alloc);
	memset(&rs->v[rs->n], 0, sizeof(*rs->v));
	rs->v[rs->n].key = xstrdup(key);
	return &rs->v[rs->n++];
}

static void reasons_free(struct reasons *rs)
{
	size_t i;
	for (i = 0; i < rs->n; i++)
		free(rs->v[i].key);
	free(rs->v);
}

static int cmp_reason(const void *a, const void *b)
{
	const struct reason *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Add a raw (name, samples) to the folded reasons. */
static void add_raw(struct reasons *rs, const char *raw, int64_t samples, struct buf *key)
{
	int twin;
	struct reason *r;
	reason_key(raw, key, &twin);
	r = reason_get(rs, key->s);
	if (twin)
		r->not_issued += samples;
	else
		r->samples += samples;
}

static const struct colspec stalls_cols[] = {
	{ "reason", "Reason", C_TEXT },
	{ "kind", "Kind", C_TEXT },
	{ "samples", "Samples", C_INT },
	{ "pct", "Share %", C_PCT },
	{ "not_issued", "Not issued", C_INT },
	{ "label", "Meaning", C_TEXT },
	{ "hint", "Usual cause", C_TEXT },
};

int run_stalls(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("stalls", "Warp states sampled (PC sampling): where warps wait");
	struct reasons rs = { NULL, 0, 0 };
	struct buf key, info;
	sqlite3_stmt *st;
	int64_t all = 0;
	size_t i;
	int rc;

	tables_add(out, t);
	table_cols(t, stalls_cols, NCOLS(stalls_cols));
	if (!(st = script_next(&sc)))
		return -1;
	buf_init(&key);
	buf_init(&info);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		add_raw(&rs, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1), &key);
	if (rc != SQLITE_DONE) {
		step_error(st);
		goto out;
	}
	sqlite3_finalize(st);
	for (i = 0; i < rs.n; i++)
		all += rs.v[i].samples;
	xqsort(rs.v, rs.n, sizeof(*rs.v), cmp_reason);
	for (i = 0; i < rs.n && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		table_set_text(t, r, 0, rs.v[i].key);
		table_set_text(t, r, 1, !strcmp(rs.v[i].key, "selected") ? "issued" : "stall");
		table_set_int(t, r, 2, rs.v[i].samples);
		if (all > 0)
			table_set_real(t, r, 3, 100.0 * (double)rs.v[i].samples / (double)all);
		table_set_int(t, r, 4, rs.v[i].not_issued);
		table_set_text(t, r, 5, reason_info(rs.v[i].key, 0, &info));
		table_set_text(t, r, 6, reason_info(rs.v[i].key, 1, &info));
	}
	rc = 0;
out:
	reasons_free(&rs);
	buf_release(&key);
	buf_release(&info);
	return rc == 0 ? 0 : -1;
}

/* Samples of one function, folded by reason. */
struct func {
	char *name;
	struct reasons rs;
	int64_t samples;
};

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * stall_kernels: the top kernels by samples with their reason mix, a kernel x reason matrix: one column
 * per reason (the ten most sampled overall), each the share of that kernel's samples.
 */
int run_stall_kernels(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("stall_kernels", "Stall reasons per kernel (share of each kernel's samples, %)");
	struct reasons total = { NULL, 0, 0 };
	struct func *f = NULL;
	size_t nf = 0, af = 0, i, j, ncols;
	struct buf key, folded;
	sqlite3_stmt *st;
	int rc = -1, c;

	tables_add(out, t);
	buf_init(&key);
	buf_init(&folded);
	if (!(st = script_next(&sc)))
		return -1;
	sqlite3_finalize(st);	/* statement 1 belongs to stalls */
	if (!(st = script_next(&sc)))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0), *raw = (const char *)sqlite3_column_text(st, 1);
		int64_t n = sqlite3_column_int64(st, 2);
		if (names_folded(o)) {
			if (name_fold(o, name, &folded)) {
				sqlite3_finalize(st);	/* its message is out: no "sqlite:" one after it */
				rc = -1;
				goto out;
			}
			name = folded.s;
		}
		for (i = 0; i < nf && strcmp(f[i].name, name); i++)
			;
		if (i == nf) {
			ALLOC_GROW(f, nf + 1, af);
			memset(&f[nf], 0, sizeof(*f));
			f[nf].name = xstrdup(name);
			nf++;
		}
		add_raw(&f[i].rs, raw, n, &key);
		add_raw(&total, raw, n, &key);
	}
	if (rc != SQLITE_DONE) {
		step_error(st);
		rc = -1;
		goto out;
	}
	sqlite3_finalize(st);
	for (i = 0; i < nf; i++)
		for (j = 0; j < f[i].rs.n; j++)
			f[i].samples += f[i].rs.v[j].samples;
	xqsort(f, nf, sizeof(*f), cmp_func);
	xqsort(total.v, total.n, sizeof(*total.v), cmp_reason);
	ncols = total.n < 10 ? total.n : 10;
	table_col(t, "samples", "Samples", C_INT);
	for (c = 0; c < (int)ncols; c++) {
		char k[160];
		snprintf(k, sizeof(k), "%s_pct", total.v[c].key);
		table_col(t, k, total.v[c].key, C_PCT);
	}
	table_col(t, "name", "Kernel", C_TEXT);
	for (i = 0; i < nf && (o->top <= 0 || i < (size_t)o->top); i++) {
		size_t r = table_row(t);
		table_set_int(t, r, 0, f[i].samples);
		for (c = 0; c < (int)ncols; c++)
			for (j = 0; j < f[i].rs.n; j++)
				if (!strcmp(f[i].rs.v[j].key, total.v[c].key) && f[i].samples > 0)
					table_set_real(t, r, 1 + c, 100.0 * (double)f[i].rs.v[j].samples / (double)f[i].samples);
		table_set_text(t, r, 1 + (int)ncols, f[i].name);
	}
	rc = 0;
out:
	for (i = 0; i < nf; i++) {
		free(f[i].name);
		reasons_free(&f[i].rs);
	}
	free(f);
	reasons_free(&total);
	buf_release(&key);
	buf_release(&folded);
	return rc;
}

/* One instruction: (function, PC, source line) with its samples by reason. */
struct pc {
	char *name, *file;
	int64_t offset, line, samples, top;
	char *top_key;
};

static int cmp_pc(const void *a, const void *b)
{
	const struct pc *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const struct colspec pcs_cols[] = {
	{ "samples", "Samples", C_INT },
	{ "pc_offset", "PC offset", C_INT },
	{ "source", "Source", C_TEXT },
	{ "reason", "Dominant reason", C_TEXT },
	{ "reason_pct", "Its share %", C_PCT },
	{ "function", "Kernel", C_TEXT },
};

/* stall_pcs: the most sampled instructions, each with the reason most of its samples had. */
int run_stall_pcs(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("stall_pcs", "Most sampled instructions and why they waited");
	struct pc *v = NULL;
	size_t n = 0, a = 0, i;
	struct buf key;
	sqlite3_stmt *st;
	int rc, twin, k;

	tables_add(out, t);
	table_cols(t, pcs_cols, NCOLS(pcs_cols));
	buf_init(&key);
	for (k = 0; k < 3; k++) {
		if (!(st = script_next(&sc)))
			return -1;
		if (k < 2)
			sqlite3_finalize(st);
	}
	/* Rows come grouped per instruction and reason; fold them per instruction. */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0), *file = (const char *)sqlite3_column_text(st, 2);
		int64_t off = sqlite3_column_int64(st, 1), line = sqlite3_column_int64(st, 3), s = sqlite3_column_int64(st, 5);
		struct pc *p = n ? &v[n - 1] : NULL;
		reason_key((const char *)sqlite3_column_text(st, 4), &key, &twin);
		if (twin)
			continue;
		if (!p || p->offset != off || p->line != line || strcmp(p->name, name) ||
		    strcmp(p->file ? p->file : "", file ? file : "")) {
			ALLOC_GROW(v, n + 1, a);
			p = &v[n++];
			memset(p, 0, sizeof(*p));
			p->name = xstrdup(name);
			p->file = file ? xstrdup(file) : NULL;
			p->offset = off;
			p->line = line;
		}
		p->samples += s;
		if (s > p->top) {
			p->top = s;
			free(p->top_key);
			p->top_key = xstrdup(key.s);
		}
	}
	if (rc != SQLITE_DONE)
		step_error(st);
	else
		sqlite3_finalize(st);
	xqsort(v, n, sizeof(*v), cmp_pc);
	for (i = 0; rc == SQLITE_DONE && i < n && i < (size_t)(o->top > 0 ? o->top : 20); i++) {
		size_t r = table_row(t);
		struct buf src;
		buf_init(&src);
		if (v[i].file)
			buf_addf(&src, "%s:%lld", v[i].file, (long long)v[i].line);
		table_set_int(t, r, 0, v[i].samples);
		table_set_int(t, r, 1, v[i].offset);
		table_set_text(t, r, 2, src.len ? src.s : NULL);
		table_set_text(t, r, 3, v[i].top_key);
		if (v[i].samples)
			table_set_real(t, r, 4, 100.0 * (double)v[i].top / (double)v[i].samples);
		table_set_text(t, r, 5, v[i].name);
		buf_release(&src);
	}
	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].file);
		free(v[i].top_key);
	}
	free(v);
	buf_release(&key);
	return rc == SQLITE_DONE ? 0 : -1;
}
