/*
 * Kernel classes (see sqlext.h): class_rules, the rules of a kernel-classes.rules text as rows, checked
 * against their samples; and kernel_busy, per device and class of kernel names, the busy time (the union
 * of the class's kernel intervals) and the time two classes run at once. Compiled twice like analyze/ext/sqlext.c.
 *
 * Accelerators of plain-SQL references: analyze/ref/{kernel_busy,kernels_of}.sql (tests/refs.py checks they
 * agree). Measured on the 5M-kernel bench session in the sqlite3 shell (C best of 3, reference one run, 2
 * shared cores under load, 2026-11-28): kernel_busy 1.58 s against 120.11 s (76x); kernels_of 3.00 s against
 * 4.74 s (1.6x).
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"
#include "spans.h"
#include "util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- class_rules(text, file) ---- */

#define MAX_CLASSES 16

/* One `class NAME PATTERN` line. */
struct rule {
	int cls;		/* index into ruleset.classes */
	int line;
	char *pattern;
	pcre2_code *re;
	int samples;		/* sample lines that follow it */
};

/* The rules of one text, in order. Class 0 is always "compute", the class of names no rule matches. */
struct ruleset {
	const char *file;	/* for messages */
	char *classes[MAX_CLASSES];
	int nclasses;
	struct rule *v;
	size_t n, alloc;
	pcre2_match_data *md;
	char *msg;		/* what went wrong (sqlite3_malloc'd), or NULL */
};

/* Keep the message for the caller; returns -1. */
#define rules_error(rs, ...) sqlext_fail(&(rs)->msg, __VA_ARGS__)

int sqlext_fail(char **msg, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sqlite3_free(*msg);
	*msg = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	return -1;
}

static void ruleset_release(struct ruleset *rs)
{
	size_t i;
	int c;
	for (i = 0; i < rs->n; i++) {
		free(rs->v[i].pattern);
		pcre2_code_free(rs->v[i].re);
	}
	free(rs->v);
	for (c = 0; c < rs->nclasses; c++)
		free(rs->classes[c]);
	pcre2_match_data_free(rs->md);
	sqlite3_free(rs->msg);
	memset(rs, 0, sizeof(*rs));
}

/* Index of the first rule matching name[0..len), or -1. */
static int ruleset_match(const struct ruleset *rs, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < rs->n; i++)
		if (pcre2_match(rs->v[i].re, (PCRE2_SPTR)name, len, 0, 0, rs->md, NULL) >= 0)
			return (int)i;
	return -1;
}

/* Index of class `name`, added if new; -1 with a message when there are too many. */
static int class_index(struct ruleset *rs, const char *name, size_t len, int line)
{
	int c;
	for (c = 0; c < rs->nclasses; c++)
		if (strlen(rs->classes[c]) == len && !memcmp(rs->classes[c], name, len))
			return c;
	if (rs->nclasses == MAX_CLASSES)
		return rules_error(rs, "%s:%d: too many classes (at most %d)", rs->file, line, MAX_CLASSES);
	rs->classes[rs->nclasses] = xstrndup(name, len);
	return rs->nclasses++;
}

int sqlext_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

int sqlext_valid_name(const char *s, size_t len)
{
	size_t i;
	if (!len || len > 32 || s[0] < 'a' || s[0] > 'z')
		return 0;
	for (i = 1; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/* A class name: a name (sqlext_valid_name), not "all". */
static int valid_class(const char *s, size_t len)
{
	return sqlext_valid_name(s, len) && !(len == 3 && !memcmp(s, "all", 3));
}

int sqlext_rules_line(const char **text, int *line, const char **kw, const char **end)
{
	const char *p = *text;
	while (*p) {
		const char *eol = strchr(p, '\n'), *e;
		if (!eol)
			eol = p + strlen(p);
		++*line;
		e = eol;
		while (e > p && sqlext_is_blank(e[-1]))
			e--;
		while (p < e && sqlext_is_blank(*p))
			p++;
		*text = *eol ? eol + 1 : eol;
		if (p < e && *p != '#') {
			*kw = p;
			*end = e;
			return 1;
		}
		p = *text;
	}
	return 0;
}

void sqlext_split(const char *s, const char *end, int n, struct sqlext_words *out)
{
	int k;
	out->n = 0;
	while (out->n < n) {
		const char *e;
		while (s < end && sqlext_is_blank(*s))
			s++;
		if (s == end)
			break;
		e = s;
		if (out->n == n - 1)
			e = end;
		else
			while (e < end && !sqlext_is_blank(*e))
				e++;
		out->w[out->n] = s;
		out->len[out->n++] = (size_t)(e - s);
		s = e;
	}
	for (k = out->n; k < n; k++) {
		out->w[k] = end;
		out->len[k] = 0;
	}
}

void *sqlext_regex(const char *pattern, char why[300])
{
	int errcode;
	PCRE2_SIZE erroff;
	char msg[256];
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode, &erroff, NULL);
	if (!re) {
		pcre2_get_error_message(errcode, (PCRE2_UCHAR *)msg, sizeof(msg));
		snprintf(why, 300, "%s at offset %llu", msg, (unsigned long long)erroff);
	}
	return re;
}

/* At most 80 bytes of s, with "..." when cut, for messages. */
static const char *excerpt(const char *s, char out[96])
{
	size_t n = strlen(s);
	if (n <= 80)
		return s;
	snprintf(out, 96, "%.77s...", s);
	return out;
}

/* A sample line, kept until every rule is known. */
struct sample {
	int rule, cls, line;
	char *name;
};

/*
 * Check the samples against the whole rule set: each must be matched by its own rule, and the first
 * rule that matches it must be of the sample's class. Returns 0, or -1 with a message.
 */
static int check_samples(struct ruleset *rs, const struct sample *s, size_t n)
{
	char a[96], b[96], c[96];
	size_t i;
	for (i = 0; i < rs->n; i++)
		if (!rs->v[i].samples)
			return rules_error(rs, "%s:%d: rule '%s %s' has no sample (add a 'sample %s KERNEL' line after it)",
					   rs->file, rs->v[i].line, rs->classes[rs->v[i].cls],
					   excerpt(rs->v[i].pattern, a), rs->classes[rs->v[i].cls]);
	for (i = 0; i < n; i++) {
		const struct rule *own = &rs->v[s[i].rule];
		size_t len = strlen(s[i].name);
		int first;
		if (pcre2_match(own->re, (PCRE2_SPTR)s[i].name, len, 0, 0, rs->md, NULL) < 0)
			return rules_error(rs, "%s:%d: rule '%s %s' (line %d) does not match its sample '%s'", rs->file,
					   s[i].line, rs->classes[own->cls], excerpt(own->pattern, a), own->line,
					   excerpt(s[i].name, b));
		first = ruleset_match(rs, s[i].name, len);
		if (rs->v[first].cls != s[i].cls)
			return rules_error(rs, "%s:%d: sample '%s' of rule '%s %s' (line %d) is taken first by rule "
					   "'%s %s' (line %d)", rs->file, s[i].line, excerpt(s[i].name, b),
					   rs->classes[own->cls], excerpt(own->pattern, a), own->line,
					   rs->classes[rs->v[first].cls], excerpt(rs->v[first].pattern, c),
					   rs->v[first].line);
	}
	return 0;
}

/* Parse one `class` line's fields into a new rule; -1 with a message. */
static int add_rule(struct ruleset *rs, const char *name, size_t nlen, const char *pat, size_t plen, int line)
{
	struct rule *r;
	char why[300];
	int cls;
	if (!valid_class(name, nlen))
		return rules_error(rs, "%s:%d: bad class name '%.*s' (up to 32 lowercase letters, digits and _; "
				   "not 'all')", rs->file, line, (int)nlen, name);
	if (!plen)
		return rules_error(rs, "%s:%d: class '%.*s' has no pattern", rs->file, line, (int)nlen, name);
	if ((cls = class_index(rs, name, nlen, line)) < 0)
		return -1;
	ALLOC_GROW(rs->v, rs->n + 1, rs->alloc);
	r = &rs->v[rs->n];
	memset(r, 0, sizeof(*r));
	r->cls = cls;
	r->line = line;
	r->pattern = xstrndup(pat, plen);
	if (!(r->re = sqlext_regex(r->pattern, why))) {
		rules_error(rs, "%s:%d: bad regular expression '%s' in rule of class '%s': %s", rs->file, line,
			    r->pattern, rs->classes[cls], why);
		free(r->pattern);
		return -1;
	}
	pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE);
	rs->n++;
	return 0;
}

/*
 * Load rules from text (the contents of `file`), compile and check them. Returns 0, or -1 with the
 * message naming the file, line and rule in rs->msg (the rest of rs released).
 */
static int ruleset_load(struct ruleset *rs, const char *text, const char *file)
{
	struct sample *s = NULL;
	size_t ns = 0, salloc = 0, i;
	int line = 0, rc = -1;
	const char *p = text, *kw, *end;

	memset(rs, 0, sizeof(*rs));
	rs->file = file;
	rs->md = pcre2_match_data_create(1, NULL);
	rs->classes[rs->nclasses++] = xstrdup("compute");
	while (sqlext_rules_line(&p, &line, &kw, &end)) {
		struct sqlext_words w;
		sqlext_split(kw, end, 3, &w);	/* the keyword, the class name, the rest */
		if (w.len[0] == 5 && !memcmp(kw, "class", 5)) {
			if (add_rule(rs, w.w[1], w.len[1], w.w[2], w.len[2], line))
				goto done;
		} else if (w.len[0] == 6 && !memcmp(kw, "sample", 6)) {
			int cls;
			if (!rs->n) {
				rules_error(rs, "%s:%d: sample before any class rule", file, line);
				goto done;
			}
			if (!valid_class(w.w[1], w.len[1]) || !w.len[2]) {
				rules_error(rs, "%s:%d: a sample needs a class name and a kernel name", file, line);
				goto done;
			}
			if ((cls = class_index(rs, w.w[1], w.len[1], line)) < 0)
				goto done;
			if (cls != rs->v[rs->n - 1].cls) {
				rules_error(rs, "%s:%d: sample of class '%s' follows a rule of class '%s' (line %d)", file,
					    line, rs->classes[cls], rs->classes[rs->v[rs->n - 1].cls],
					    rs->v[rs->n - 1].line);
				goto done;
			}
			ALLOC_GROW(s, ns + 1, salloc);
			s[ns].rule = (int)rs->n - 1;
			s[ns].cls = cls;
			s[ns].line = line;
			s[ns].name = xstrndup(w.w[2], w.len[2]);
			ns++;
			rs->v[rs->n - 1].samples++;
		} else {
			rules_error(rs, "%s:%d: unknown directive '%.*s' (class or sample)", file, line, (int)w.len[0],
				    kw);
			goto done;
		}
	}
	rc = check_samples(rs, s, ns);
done:
	for (i = 0; i < ns; i++)
		free(s[i].name);
	free(s);
	if (rc) {
		char *msg = rs->msg;
		rs->msg = NULL;
		ruleset_release(rs);
		rs->msg = msg;
	}
	return rc;
}

enum { CR_ORD, CR_LINE, CR_CLASS, CR_CLASS_ORD, CR_PATTERN, CR_TEXT, CR_FILE };

struct cr_cursor {
	struct sqlext_list_cursor l;	/* over rs.v */
	struct ruleset rs;
};

static int cr_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	return sqlext_connect(db, "CREATE TABLE x(ord INTEGER, line INTEGER, class TEXT, class_ord INTEGER, "
			      "pattern TEXT, text HIDDEN, file HIDDEN)", NULL, out);
}

int sqlext_args_best_index(sqlite3_index_info *ix, int first, int nargs, int required)
{
	int i, k, have = 0, n = 0, at[8];
	for (k = 0; k < nargs; k++)
		at[k] = -1;
	for (i = 0; i < ix->nConstraint; i++) {
		k = ix->aConstraint[i].iColumn - first;
		if (k < 0 || k >= nargs || ix->aConstraint[i].op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (!ix->aConstraint[i].usable)
			return SQLITE_CONSTRAINT;
		at[k] = i;
	}
	for (k = 0; k < nargs; k++)
		if (at[k] >= 0) {
			ix->aConstraintUsage[at[k]].argvIndex = ++n;
			ix->aConstraintUsage[at[k]].omit = 1;
			have |= 1 << k;
		}
	if ((have & required) != required)
		return SQLITE_CONSTRAINT;
	ix->idxNum = have;
	ix->estimatedCost = 1000;
	return SQLITE_OK;
}

static int cr_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	(void)v;
	return sqlext_args_best_index(ix, CR_TEXT, 2, 1);
}

static int cr_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	(void)v;
	return sqlext_list_open(out, sizeof(struct cr_cursor));
}

int sqlext_list_open(sqlite3_vtab_cursor **out, size_t size)
{
	void *c = sqlite3_malloc64(size);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, size);
	*out = c;
	return SQLITE_OK;
}

int sqlext_list_next(sqlite3_vtab_cursor *cur)
{
	((struct sqlext_list_cursor *)cur)->i++;
	return SQLITE_OK;
}

int sqlext_list_eof(sqlite3_vtab_cursor *cur)
{
	struct sqlext_list_cursor *c = (struct sqlext_list_cursor *)cur;
	return c->i >= c->n;
}

int sqlext_list_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct sqlext_list_cursor *)cur)->i + 1;
	return SQLITE_OK;
}

static int cr_close(sqlite3_vtab_cursor *cur)
{
	struct cr_cursor *c = (struct cr_cursor *)cur;
	ruleset_release(&c->rs);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int cr_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct cr_cursor *c = (struct cr_cursor *)cur;
	const char *text = (const char *)sqlite3_value_text(argv[0]);
	const char *file = idx & 2 && argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
	(void)idxstr;
	ruleset_release(&c->rs);
	c->l.i = c->l.n = 0;
	if (!text)
		return SQLITE_OK;	/* NULL rules: none */
	if (ruleset_load(&c->rs, text, file ? file : "rules"))
		return sqlext_vt_error(cur, SQLITE_ERROR, c->rs.msg);
	c->l.n = c->rs.n;
	return SQLITE_OK;
}

static int cr_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct cr_cursor *c = (struct cr_cursor *)cur;
	const struct rule *r = &c->rs.v[c->l.i];
	switch (k) {
	case CR_ORD: sqlite3_result_int64(ctx, (sqlite3_int64)c->l.i + 1); break;
	case CR_LINE: sqlite3_result_int(ctx, r->line); break;
	case CR_CLASS: sqlite3_result_text(ctx, c->rs.classes[r->cls], -1, SQLITE_TRANSIENT); break;
	case CR_CLASS_ORD: sqlite3_result_int(ctx, r->cls); break;
	case CR_PATTERN: sqlite3_result_text(ctx, r->pattern, -1, SQLITE_TRANSIENT); break;
	default: break;	/* the arguments read back NULL */
	}
	return SQLITE_OK;
}

static sqlite3_module cr_module = {
	.iVersion = 0,
	.xConnect = cr_connect,
	.xBestIndex = cr_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = cr_open,
	.xClose = cr_close,
	.xFilter = cr_filter,
	.xNext = sqlext_list_next,
	.xEof = sqlext_list_eof,
	.xColumn = cr_column,
	.xRowid = sqlext_list_rowid,
};

/* ---- kernel_busy(session_id, classes, default_class) ---- */

#define MAX_BUSY_CLASSES 64

enum { KB_SESSION, KB_DEV, KB_CLASS, KB_OTHER, KB_KERNELS, KB_TOTAL, KB_BUSY, KB_DEVICE_BUSY, KB_NODE, KB_CLASSES,
       KB_DEFAULT };

/* A name id and its class (index into kb_cursor.names, -1 none). */
struct name_class {
	int64_t id;
	int cls;
};

/* One device's kernels: per class a list (the last one, nclasses, those in no class). */
struct kb_device {
	int64_t node, id;	/* a GPU: node (analyze/ext/sqlext_nodes.c) and device id */
	struct ivlist *lists;	/* nclasses + 1 */
	int64_t *kernels, *total;	/* per class */
};

/* One result row. */
struct kb_row {
	int64_t node, dev;
	int a, b;		/* classes, -1 for none */
	int64_t kernels, total;	/* -1: NULL */
	int64_t busy, device_busy;
};

/*
 * What a connection keeps of kernel_busy: the last session's rows, for the same arguments, while the
 * database stays as it was (sqlext_data_version). A report asks it twice with the same arguments
 * (classes, then ranks): 0.4 s on the 5M-kernel bench session the second time, otherwise.
 */
struct kb_keep {
	int64_t key[3];		/* session, data version, hash of the arguments; key[1] -1: nothing kept */
	struct kb_row *rows;	/* malloc'd */
	size_t n;
};

/* The module's client data, one per connection: the schema every table of it declares, and what it keeps. */
struct kb_aux {
	struct vt_def def;	/* first: sqlext_vt_connect's aux */
	struct kb_keep keep;
};

struct kb_cursor {
	struct session_cursor s;	/* its rows: rows[0..s.n) */
	struct kb_keep *keep;	/* the connection's */
	int64_t args;		/* the hash of this scan's arguments */
	char *classes[MAX_BUSY_CLASSES];
	int nclasses, dflt;	/* dflt: the default class, -1 none */
	struct name_class *map;	/* sorted by id */
	size_t nmap;
	unsigned char *dense;	/* kb_dense: the slot of name ids 0..ndense-1, or NULL */
	size_t ndense;
	struct kb_device *devs;
	size_t ndevs;
	struct sqlext_nodes nodes;	/* the session's */
	size_t last;		/* the previous kernel's device index */
	int64_t last_name;	/* and name id, with its class */
	int last_cls;
	struct kb_row *rows;
};

static int cmp_name_class(const void *a, const void *b)
{
	const struct name_class *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Index of class `name`, added if new; -1 when there are too many. */
static int kb_class(struct kb_cursor *c, const char *name)
{
	int k;
	for (k = 0; k < c->nclasses; k++)
		if (!strcmp(c->classes[k], name))
			return k;
	if (c->nclasses == MAX_BUSY_CLASSES)
		return -1;
	c->classes[c->nclasses] = xstrdup(name);
	return c->nclasses++;
}

static void kb_free_session(struct kb_cursor *c)
{
	size_t d;
	int k;
	for (d = 0; d < c->ndevs; d++) {
		for (k = 0; k <= c->nclasses; k++)
			ivlist_release(&c->devs[d].lists[k]);
		free(c->devs[d].lists);
		free(c->devs[d].kernels);
		free(c->devs[d].total);
	}
	free(c->devs);
	c->devs = NULL;
	sqlext_nodes_free(&c->nodes);
	c->ndevs = 0;
	free(c->rows);
	c->rows = NULL;
	c->s.n = c->s.i = 0;
}

static void kb_reset(struct kb_cursor *c)
{
	int k;
	kb_free_session(c);
	for (k = 0; k < c->nclasses; k++)
		free(c->classes[k]);
	c->nclasses = 0;
	free(c->map);
	c->map = NULL;
	c->nmap = 0;
	free(c->dense);
	c->dense = NULL;
	c->ndense = 0;
	sqlext_session_reset(&c->s);
}

/* The classes argument, a JSON object {"name_id": "class", ...} (null: no class), into c->map. */
static int kb_map(struct kb_cursor *c, sqlite3_value *json)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;
	if (sqlite3_value_type(json) == SQLITE_NULL)
		return SQLITE_OK;
	rc = sqlite3_prepare_v2(sqlext_vt_db(&c->s.base), "SELECT key, value, type FROM json_each(?1)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sqlext_vt_error(&c->s.base, rc, sqlite3_errmsg(sqlext_vt_db(&c->s.base)));
	sqlite3_bind_value(st, 1, json);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 2);
		int64_t id;
		int cls = -1;
		if (!key || parse_i64(key, strlen(key), &id)) {
			sqlite3_finalize(st);
			return sqlext_vt_error(&c->s.base, SQLITE_ERROR, "kernel_busy: classes must be a JSON object of "
					       "name ids: {\"12\": \"compute\", ...}");
		}
		if (type && !strcmp(type, "text") &&
		    (cls = kb_class(c, (const char *)sqlite3_column_text(st, 1))) < 0) {
			sqlite3_finalize(st);
			return sqlext_vt_error(&c->s.base, SQLITE_ERROR, "kernel_busy: more than 64 classes");
		}
		ALLOC_GROW(c->map, c->nmap + 1, alloc);
		c->map[c->nmap].id = id;
		c->map[c->nmap++].cls = cls;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlext_vt_error(&c->s.base, rc, sqlite3_errmsg(sqlext_vt_db(&c->s.base)));
	if (c->nmap)
		qsort(c->map, c->nmap, sizeof(*c->map), cmp_name_class);
	return SQLITE_OK;
}

/*
 * Name ids are strings.id, small: then a byte a name id up to the largest mapped one (a few MB at most),
 * its slot (class, or nclasses for none) with the default resolved, beats a search. Once the default is known.
 */
static void kb_dense(struct kb_cursor *c)
{
	size_t i;
	int none = c->dflt >= 0 ? c->dflt : c->nclasses;
	if (!c->nmap || c->map[0].id < 0 || c->map[c->nmap - 1].id >= (1 << 22))
		return;
	c->ndense = (size_t)c->map[c->nmap - 1].id + 1;
	c->dense = xmalloc(c->ndense);
	memset(c->dense, none, c->ndense);
	for (i = 0; i < c->nmap; i++)
		c->dense[c->map[i].id] = (unsigned char)(c->map[i].cls >= 0 ? c->map[i].cls : c->nclasses);
}

/* The class of name id (the default for ids the map lacks); nclasses for none. */
static int kb_class_of(struct kb_cursor *c, int64_t id)
{
	struct name_class key = { id, 0 }, *m;
	int cls;
	if (id >= 0 && (size_t)id < c->ndense)
		return c->dense[id];
	if (id == c->last_name && c->last_cls >= 0)
		return c->last_cls;
	m = c->nmap ? bsearch(&key, c->map, c->nmap, sizeof(*c->map), cmp_name_class) : NULL;
	cls = m ? m->cls : c->dflt;
	c->last_name = id;
	c->last_cls = cls < 0 ? c->nclasses : cls;
	return c->last_cls;
}

/* The GPU of process pid's device id, added if new. */
static struct kb_device *kb_device(struct kb_cursor *c, int64_t pid, int64_t id)
{
	int64_t node = sqlext_node(&c->nodes, pid);
	struct kb_device *d;
	size_t i;
	if (c->last < c->ndevs && c->devs[c->last].id == id && c->devs[c->last].node == node)
		return &c->devs[c->last];
	for (i = 0; i < c->ndevs; i++)
		if (c->devs[i].id == id && c->devs[i].node == node) {
			c->last = i;
			return &c->devs[i];
		}
	c->devs = xrealloc(c->devs, (c->ndevs + 1) * sizeof(*c->devs));
	d = &c->devs[c->ndevs];
	d->id = id;
	d->node = node;
	d->lists = xcalloc((size_t)c->nclasses + 1, sizeof(*d->lists));
	d->kernels = xcalloc((size_t)c->nclasses + 1, sizeof(*d->kernels));
	d->total = xcalloc((size_t)c->nclasses + 1, sizeof(*d->total));
	c->last = c->ndevs++;
	return d;
}

static int kb_block(void *arg, const int64_t *const *col, size_t n)
{
	struct kb_cursor *c = arg;
	size_t i;
	for (i = 0; i < n; i++) {
		struct kb_device *d = kb_device(c, col[KC_PID] ? col[KC_PID][i] : 0, col[KC_DEV][i]);
		int cls = kb_class_of(c, col[KC_NAME][i]);
		struct ivlist *l = &d->lists[cls];
		if (l->n == l->alloc)
			ivlist_grow(l);
		l->v[l->n].start = col[KC_START][i];
		l->v[l->n++].end = col[KC_START][i] + col[KC_DUR][i];
		d->kernels[cls]++;
		d->total[cls] += col[KC_DUR][i];
	}
	return SQLITE_OK;
}

static int cmp_device(const void *a, const void *b)
{
	const struct kb_device *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void kb_add_row(struct kb_cursor *c, size_t *alloc, const struct kb_row *r)
{
	ALLOC_GROW(c->rows, c->s.n + 1, *alloc);
	c->rows[c->s.n++] = *r;
}

/* Session sessions[at]: its kernels into the devices' lists, then the rows. */
static int kb_session(struct session_cursor *sc)
{
	struct kb_cursor *c = (struct kb_cursor *)sc;
	size_t d, alloc = 0;
	int a, b, k, rc, nc = c->nclasses;
	kb_free_session(c);
	c->last = 0;
	c->last_name = -1;
	c->last_cls = -1;
	{
		int64_t key[3] = { sc->sessions[sc->at], sqlext_data_version(sqlext_vt_db(&sc->base), "main"), c->args };
		if (key[1] >= 0 && !memcmp(key, c->keep->key, sizeof(key))) {	/* kept: the same rows */
			c->rows = xmalloc((c->keep->n ? c->keep->n : 1) * sizeof(*c->rows));
			memcpy(c->rows, c->keep->rows, c->keep->n * sizeof(*c->rows));
			c->s.n = c->keep->n;
			return SQLITE_OK;
		}
	}
	rc = sqlext_nodes_read(sqlext_vt_db(&sc->base), NULL, sc->sessions[sc->at], &c->nodes);
	if (rc != SQLITE_OK)
		return sqlext_vt_error(&sc->base, rc, sqlite3_errmsg(sqlext_vt_db(&sc->base)));
	rc = sqlext_kernels(sc->base.pVtab, sqlext_vt_db(&sc->base), sc->sessions[sc->at],
			    (c->nodes.count > 1 ? 1u << KC_PID : 0) | 1u << KC_DEV | 1u << KC_NAME | 1u << KC_START |
			    1u << KC_DUR, kb_block, c);
	if (rc != SQLITE_OK)
		return rc;
	if (c->ndevs)
		qsort(c->devs, c->ndevs, sizeof(*c->devs), cmp_device);
	for (d = 0; d < c->ndevs; d++) {
		struct kb_device *dev = &c->devs[d];
		struct kb_row r;
		int64_t kernels = 0, total = 0, every;
		int64_t busy[MAX_BUSY_CLASSES + 1];
		for (k = 0; k <= nc; k++)
			busy[k] = spans_merge(&dev->lists[k]);
		every = spans_union(dev->lists, (size_t)nc + 1, NULL, NULL);
		for (k = 0; k < nc; k++) {
			r = (struct kb_row){ dev->node, dev->id, k, -1, dev->kernels[k], dev->total[k], busy[k], every };
			kb_add_row(c, &alloc, &r);
			kernels += dev->kernels[k];
			total += dev->total[k];
		}
		for (a = 0; a < nc; a++)
			for (b = a + 1; b < nc; b++) {
				r = (struct kb_row){ dev->node, dev->id, a, b, -1, -1,
						     spans_intersect(&dev->lists[a], &dev->lists[b]), every };
				kb_add_row(c, &alloc, &r);
			}
		r = (struct kb_row){ dev->node, dev->id, -1, -1, kernels, total, spans_union(dev->lists, (size_t)nc, NULL, NULL),
				     every };
		kb_add_row(c, &alloc, &r);
	}
	/* Kept for the next scan with these arguments. */
	free(c->keep->rows);
	c->keep->rows = xmalloc((c->s.n ? c->s.n : 1) * sizeof(*c->rows));
	if (c->s.n)	/* (no rows: c->rows may be NULL, which memcpy may not be given) */
		memcpy(c->keep->rows, c->rows, c->s.n * sizeof(*c->rows));
	c->keep->n = c->s.n;
	c->keep->key[0] = sc->sessions[sc->at];
	c->keep->key[1] = sqlext_data_version(sqlext_vt_db(&sc->base), "main");
	c->keep->key[2] = c->args;
	return SQLITE_OK;
}

static int kb_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	return sqlext_vt_connect(db, aux, argc, argv, out, err);
}

/*
 * A table of a session's rows with arguments (hidden columns from first on, as sqlext_args_best_index takes
 * them): idxNum bit 0 says session_id (column 0) = argv[0], the bits above the arguments, after it.
 */
static int session_args_best_index(sqlite3_index_info *ix, int first, int nargs, int required)
{
	int i, rc, eq = -1;
	if ((rc = sqlext_args_best_index(ix, first, nargs, required)) != SQLITE_OK)
		return rc;
	for (i = 0; i < ix->nConstraint; i++)
		if (ix->aConstraint[i].usable && ix->aConstraint[i].iColumn == 0 &&
		    ix->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ)
			eq = i;
	ix->idxNum <<= 1;
	if (eq >= 0) {
		for (i = 0; i < ix->nConstraint; i++)
			if (ix->aConstraintUsage[i].argvIndex)
				ix->aConstraintUsage[i].argvIndex++;
		ix->aConstraintUsage[eq].argvIndex = 1;
		ix->aConstraintUsage[eq].omit = 1;
		ix->idxNum |= 1;
		ix->estimatedCost = 1e5;
	} else {
		ix->estimatedCost = 1e7;
	}
	return SQLITE_OK;
}

/* idxNum: bit 0 session_id = argv[0]; bits 1 and 2 classes and default_class, the arguments after it. */
static int kb_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	(void)v;
	return session_args_best_index(ix, KB_CLASSES, 2, 0);
}

static int kb_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct kb_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->keep = &((struct kb_aux *)((struct sqlext_vtab *)v)->def)->keep;
	c->s.load = kb_session;
	*out = &c->s.base;
	return SQLITE_OK;
}

static int kb_close(sqlite3_vtab_cursor *cur)
{
	kb_reset((struct kb_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int kb_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct kb_cursor *c = (struct kb_cursor *)cur;
	int arg = idx & 1, rc = SQLITE_OK;
	(void)idxstr;
	(void)argc;
	kb_reset(c);
	c->dflt = -1;
	/* The arguments as a key of what is kept: the map's text and the default, each with its length. */
	{
		uint64_t h = FNV1A_INIT;
		int k;
		for (k = 0; k < 2; k++) {
			sqlite3_value *v = idx & (2 << k) ? argv[arg + (k && idx & 2)] : NULL;
			int64_t len = v && sqlite3_value_type(v) != SQLITE_NULL ? sqlite3_value_bytes(v) : -1;
			h = fnv1a(h, &len, sizeof(len));
			if (len > 0)
				h = fnv1a(h, sqlite3_value_text(v), (size_t)len);
		}
		c->args = (int64_t)(h >> 1);
	}
	if (idx & 2)
		rc = kb_map(c, argv[arg++]);
	if (rc == SQLITE_OK && idx & 4 && sqlite3_value_type(argv[arg]) != SQLITE_NULL &&
	    (c->dflt = kb_class(c, (const char *)sqlite3_value_text(argv[arg]))) < 0)
		rc = sqlext_vt_error(cur, SQLITE_ERROR, "kernel_busy: more than 64 classes");
	if (rc != SQLITE_OK) {
		c->s.eof = 1;
		return rc;
	}
	kb_dense(c);
	return sqlext_session_filter(&c->s, idx & 1 ? argv[0] : NULL);
}

static int kb_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct kb_cursor *c = (struct kb_cursor *)cur;
	const struct kb_row *r = &c->rows[c->s.i];
	switch (k) {
	case KB_SESSION: sqlite3_result_int64(ctx, c->s.sessions[c->s.at]); break;
	case KB_DEV: sqlite3_result_int64(ctx, r->dev); break;
	case KB_CLASS:
		if (r->a >= 0)
			sqlite3_result_text(ctx, c->classes[r->a], -1, SQLITE_TRANSIENT);
		break;
	case KB_OTHER:
		if (r->b >= 0)
			sqlite3_result_text(ctx, c->classes[r->b], -1, SQLITE_TRANSIENT);
		break;
	case KB_KERNELS:
		if (r->kernels >= 0)
			sqlite3_result_int64(ctx, r->kernels);
		break;
	case KB_TOTAL:
		if (r->kernels >= 0)
			sqlite3_result_int64(ctx, r->total);
		break;
	case KB_BUSY: sqlite3_result_int64(ctx, r->busy); break;
	case KB_DEVICE_BUSY: sqlite3_result_int64(ctx, r->device_busy); break;
	case KB_NODE: sqlite3_result_int64(ctx, r->node); break;
	default: break;	/* the arguments read back NULL */
	}
	return SQLITE_OK;
}

static sqlite3_module kb_module = {
	.iVersion = 0,
	.xConnect = kb_connect,
	.xBestIndex = kb_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = kb_open,
	.xClose = kb_close,
	.xFilter = kb_filter,
	.xNext = sqlext_session_next,
	.xEof = sqlext_session_eof,
	.xColumn = kb_column,
	.xRowid = sqlext_session_rowid,
};

/*
 * ---- kernels_of: a session's kernels of some names ----
 *
 * kernels_of(ids) WHERE session_id = S: the kernels whose name id is in ids (a JSON array of name ids),
 * in table order, read as kernel_busy reads them (the connection's kept columns when a report keeps
 * them). The plain form, kernel_columns WHERE name_id IN (...), decodes every column chunk again: for
 * the few communication kernels of the 5M-kernel bench session, 0.5 s against a pass over the kept ones.
 */
enum { KO_SESSION, KO_PID, KO_DEV, KO_NAME, KO_START, KO_END, KO_IDS };

struct ko_row {
	int64_t pid, dev, name, start, end;
};

struct ko_cursor {
	struct session_cursor s;	/* its rows: rows[0..s.n) */
	int64_t *ids;		/* sorted */
	size_t nids;
	unsigned char *dense;	/* ids below ndense as a bitmap's bytes (one a name id), or NULL */
	size_t ndense;
	struct ko_row *rows;
	size_t alloc;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int ko_wanted(const struct ko_cursor *c, int64_t id)
{
	if (id >= 0 && (size_t)id < c->ndense)
		return c->dense[id];
	return c->nids && bsearch(&id, c->ids, c->nids, sizeof(*c->ids), cmp_i64) != NULL;
}

static int ko_block(void *arg, const int64_t *const *col, size_t n)
{
	struct ko_cursor *c = arg;
	size_t i;
	for (i = 0; i < n; i++) {
		struct ko_row *r;
		if (!ko_wanted(c, col[KC_NAME][i]))
			continue;
		ALLOC_GROW(c->rows, c->s.n + 1, c->alloc);
		r = &c->rows[c->s.n++];
		r->pid = col[KC_PID][i];
		r->dev = col[KC_DEV][i];
		r->name = col[KC_NAME][i];
		r->start = col[KC_START][i];
		r->end = col[KC_START][i] + col[KC_DUR][i];
	}
	return SQLITE_OK;
}

static int ko_session(struct session_cursor *sc)
{
	struct ko_cursor *c = (struct ko_cursor *)sc;
	c->s.n = 0;
	if (!c->nids)
		return SQLITE_OK;
	return sqlext_kernels(sc->base.pVtab, sqlext_vt_db(&sc->base), sc->sessions[sc->at],
			      1u << KC_PID | 1u << KC_DEV | 1u << KC_NAME | 1u << KC_START | 1u << KC_DUR, ko_block, c);
}

static int ko_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	static const struct vt_def def = {
		.schema = "CREATE TABLE x(session_id INTEGER, pid INTEGER, device_id INTEGER, name_id INTEGER, "
			  "start_ns INTEGER, end_ns INTEGER, ids HIDDEN)",
	};
	(void)aux;
	return sqlext_vt_connect(db, (void *)&def, argc, argv, out, err);
}

/* idxNum: bit 0 session_id = argv[0]; bit 1 ids, the argument after it (required). */
static int ko_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	(void)v;
	return session_args_best_index(ix, KO_IDS, 1, 1);
}

static void ko_reset(struct ko_cursor *c)
{
	free(c->ids);
	c->ids = NULL;
	c->nids = 0;
	free(c->dense);
	c->dense = NULL;
	c->ndense = 0;
	free(c->rows);
	c->rows = NULL;
	c->alloc = 0;
	c->s.n = c->s.i = 0;
	sqlext_session_reset(&c->s);
}

static int ko_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct ko_cursor *c = sqlite3_malloc(sizeof(*c));
	(void)v;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->s.load = ko_session;
	*out = &c->s.base;
	return SQLITE_OK;
}

static int ko_close(sqlite3_vtab_cursor *cur)
{
	ko_reset((struct ko_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* The ids argument, a JSON array of name ids, into c->ids (and c->dense when they are small). */
static int ko_ids(struct ko_cursor *c, sqlite3_value *json)
{
	sqlite3 *db = sqlext_vt_db(&c->s.base);
	sqlite3_stmt *st;
	size_t alloc = 0, i;
	int rc;
	if (sqlite3_value_type(json) == SQLITE_NULL)
		return SQLITE_OK;
	if ((rc = sqlite3_prepare_v2(db, "SELECT value, type, json_type(?1) FROM json_each(?1)", -1, &st, NULL)) !=
	    SQLITE_OK)
		return sqlext_vt_error(&c->s.base, rc, sqlite3_errmsg(db));
	sqlite3_bind_value(st, 1, json);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 1), *of = (const char *)sqlite3_column_text(st, 2);
		if (!type || strcmp(type, "integer") || !of || strcmp(of, "array")) {
			sqlite3_finalize(st);
			return sqlext_vt_error(&c->s.base, SQLITE_ERROR, "kernels_of: ids must be a JSON array of name ids");
		}
		ALLOC_GROW(c->ids, c->nids + 1, alloc);
		c->ids[c->nids++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlext_vt_error(&c->s.base, rc, sqlite3_errmsg(db));
	if (c->nids)
		qsort(c->ids, c->nids, sizeof(*c->ids), cmp_i64);
	if (c->nids && c->ids[0] >= 0 && c->ids[c->nids - 1] < (1 << 22)) {
		c->ndense = (size_t)c->ids[c->nids - 1] + 1;
		c->dense = xcalloc(c->ndense, 1);
		for (i = 0; i < c->nids; i++)
			c->dense[c->ids[i]] = 1;
	}
	return SQLITE_OK;
}

static int ko_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct ko_cursor *c = (struct ko_cursor *)cur;
	int rc;
	(void)idxstr;
	(void)argc;
	ko_reset(c);
	if ((rc = ko_ids(c, argv[idx & 1])) != SQLITE_OK) {
		c->s.eof = 1;
		return rc;
	}
	return sqlext_session_filter(&c->s, idx & 1 ? argv[0] : NULL);
}

static int ko_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct ko_cursor *c = (struct ko_cursor *)cur;
	const struct ko_row *r = &c->rows[c->s.i];
	switch (k) {
	case KO_SESSION: sqlite3_result_int64(ctx, c->s.sessions[c->s.at]); break;
	case KO_PID: sqlite3_result_int64(ctx, r->pid); break;
	case KO_DEV: sqlite3_result_int64(ctx, r->dev); break;
	case KO_NAME: sqlite3_result_int64(ctx, r->name); break;
	case KO_START: sqlite3_result_int64(ctx, r->start); break;
	case KO_END: sqlite3_result_int64(ctx, r->end); break;
	default: break;	/* the argument reads back NULL */
	}
	return SQLITE_OK;
}

static sqlite3_module ko_module = {
	.iVersion = 0,
	.xConnect = ko_connect,
	.xBestIndex = ko_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = ko_open,
	.xClose = ko_close,
	.xFilter = ko_filter,
	.xNext = sqlext_session_next,
	.xEof = sqlext_session_eof,
	.xColumn = ko_column,
	.xRowid = sqlext_session_rowid,
};

/* kernel_busy's client data is let go (its connection closes). */
static void kb_aux_free(void *p)
{
	struct kb_aux *a = p;
	free(a->keep.rows);
	free(a);
}

int gpuprof_sqlite_classes(sqlite3 *db)
{
	struct kb_aux *aux;
	int rc = sqlite3_create_module(db, "class_rules", &cr_module, NULL);
	if (rc == SQLITE_OK) {
		aux = xcalloc(1, sizeof(*aux));
		aux->def.schema = "CREATE TABLE x(session_id INTEGER, device_id INTEGER, class TEXT, other_class TEXT, "
				  "kernels INTEGER, total_ns INTEGER, busy_ns INTEGER, device_busy_ns INTEGER, node INTEGER, "
				  "classes HIDDEN, default_class HIDDEN)";
		aux->keep.key[1] = -1;
		rc = sqlite3_create_module_v2(db, "kernel_busy", &kb_module, aux, kb_aux_free);
	}
	return rc == SQLITE_OK ? sqlite3_create_module(db, "kernels_of", &ko_module, NULL) : rc;
}
