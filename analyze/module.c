/*
 * module: parsing a module's header (module.h says the format). One pass over the header's lines; each
 * declaration is checked as it comes, so every message names the line at fault.
 */
#include "module.h"
#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kinds of a column line, by name; count and int are both C_INT (a count, an id). */
static const struct kind {
	const char *name;
	enum col_type type;
} kinds[] = {
	{ "count", C_INT }, { "int", C_INT }, { "ns", C_NS }, { "time", C_TIME }, { "bytes", C_BYTES },
	{ "pct", C_PCT }, { "real", C_REAL }, { "text", C_TEXT },
};
#define NKINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))
#define KIND_NAMES "count, int, ns, time, bytes, pct, real, text"

static const struct flag {
	const char *name;
	int flag;
} flags[] = { { "hide-null", C_HIDE_NULL }, { "hide-group", C_HIDE_GROUP } };

int module_kind(const char *name)
{
	int i;
	for (i = 0; i < NKINDS; i++)
		if (!strcmp(kinds[i].name, name))
			return (int)kinds[i].type;
	return -1;
}

int module_kind_from_name(const char *key)
{
	if (ends_with(key, "_ns"))
		return C_NS;
	if (ends_with(key, "_bytes"))
		return C_BYTES;
	if (ends_with(key, "_pct"))
		return C_PCT;
	if (!strcmp(key, "calls") || !strcmp(key, "count"))
		return C_INT;
	return -1;
}

char *module_default_title(const char *key)
{
	size_t n = strlen(key);
	struct buf b;
	char *title;
	buf_init(&b);
	if (ends_with(key, "_ns") && n > 3)
		n -= 3;
	else if (ends_with(key, "_pct") && n > 4)
		n -= 4;
	buf_add(&b, key, n);
	if (n < strlen(key) && ends_with(key, "_pct"))
		buf_addstr(&b, " %");
	for (n = 0; n < b.len; n++)
		if (b.s[n] == '_')
			b.s[n] = ' ';
	if (b.len)
		b.s[0] = (char)toupper((unsigned char)b.s[0]);
	title = xstrdup(b.s);	/* (an empty buf's bytes are static) */
	buf_release(&b);
	return title;
}

/* The parse of one header: where it is, and what it has seen. */
struct parser {
	struct module *m;
	int line;		/* the line being read, 1-based */
	int declared;		/* the analysis or module line was seen */
	int has_title, has_gate, has_section, has_baseline, has_cache, has_usage;
	int first_loose;	/* line of the first column line before any table, 0 when none */
	int pivot_line;		/* line of the current table's pivot line, 0 when none */
	struct buf doc;
};

/* error("FILE:LINE: what") for the line being read; returns -1. */
static int fail(const struct parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(const struct parser *p, int line, const char *fmt, ...)
{
	struct buf b;
	va_list ap;
	buf_init(&b);
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	error("%s:%d: %s", p->m->file, line, b.s);
	buf_release(&b);
	return -1;
}

/* The next word of *s (spaces and tabs between words) into a new string, *s after it; NULL at the end. */
static char *word(const char **s)
{
	const char *p = *s, *start;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		*s = p;
		return NULL;
	}
	start = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	*s = p;
	return xstrndup(start, (size_t)(p - start));
}

/* What is left of s, without its leading spaces, copied ("" when nothing). */
static char *rest(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return xstrdup(s);
}

/* Whether s is a name: letters, digits, '_' (and '-' when dash), not beginning with a digit. */
static int is_name(const char *s, int dash)
{
	const char *p;
	if (!s || !*s || isdigit((unsigned char)*s))
		return 0;
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && !(dash && *p == '-'))
			return 0;
	return 1;
}

static void column_release(struct module_column *c)
{
	free(c->key);
	free(c->title);
	free(c->doc);
}

/* The table being declared: the last one. */
static struct module_table *current(struct parser *p)
{
	return p->m->ntables ? &p->m->tables[p->m->ntables - 1] : NULL;
}

/* The checks made when table t's declaration ends (another table, or the end of the header). */
static int table_end(struct parser *p, struct module_table *t)
{
	int c;
	if (!t)
		return 0;
	if (!t->ncols)
		return fail(p, p->line, "table '%s' has no columns", t->key);
	if (t->pivot_at) {
		for (c = 0; c < t->ncols && strcmp(t->cols[c].key, t->pivot_at); c++)
			;
		if (c == t->ncols)
			return fail(p, p->pivot_line, "pivot of table '%s' at '%s', which is none of its columns", t->key,
				    t->pivot_at);
	}
	return 0;
}

/* KIND[,FLAG...] into c; 0 or -1 with a message. */
static int kind_flags(struct parser *p, const char *spec, struct module_column *c)
{
	const char *comma = strchr(spec, ','), *f;
	char *kind = comma ? xstrndup(spec, (size_t)(comma - spec)) : xstrdup(spec);
	int k = module_kind(kind), rc = 0;
	if (k < 0)
		rc = fail(p, p->line, "unknown kind '%s' (%s)", kind, KIND_NAMES);
	free(kind);
	if (rc)
		return -1;
	c->type = (enum col_type)k;
	for (f = comma; f && !rc; f = comma) {
		const char *end;
		size_t n, i;
		f++;
		end = strchr(f, ',');
		n = end ? (size_t)(end - f) : strlen(f);
		for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (strlen(flags[i].name) == n && !strncmp(flags[i].name, f, n))
				break;
		if (i == sizeof(flags) / sizeof(flags[0]))
			rc = fail(p, p->line, "unknown column flag '%.*s' (hide-null, hide-group)", (int)n, f);
		else
			c->flags |= flags[i].flag;
		comma = end;
	}
	return rc;
}

/* KEY KIND[,FLAG] ["Title"] DOC into c (zeroed); 0 or -1 with a message (c released). */
static int column_parse(struct parser *p, const char *v, struct module_column *c, const char *what)
{
	char *spec = NULL;
	memset(c, 0, sizeof(*c));
	c->key = word(&v);
	if (!is_name(c->key, 0)) {
		fail(p, p->line, "%s needs a KEY (letters, digits, '_'), not '%s'", what, c->key ? c->key : "");
		goto bad;
	}
	if (!(spec = word(&v))) {
		fail(p, p->line, "%s '%s' needs a KIND (%s)", what, c->key, KIND_NAMES);
		goto bad;
	}
	if (kind_flags(p, spec, c))
		goto bad;
	while (*v == ' ' || *v == '\t')
		v++;
	if (*v == '"') {
		const char *end = strchr(v + 1, '"');
		if (!end) {
			fail(p, p->line, "%s '%s': its title has no closing '\"'", what, c->key);
			goto bad;
		}
		c->title = xstrndup(v + 1, (size_t)(end - v - 1));
		v = end + 1;
		if (*v && *v != ' ' && *v != '\t') {
			fail(p, p->line, "%s '%s': a space after its title, please", what, c->key);
			goto bad;
		}
	} else {
		c->title = module_default_title(c->key);
	}
	c->doc = rest(v);
	free(spec);
	return 0;
bad:
	free(spec);
	column_release(c);
	memset(c, 0, sizeof(*c));
	return -1;
}

static int decl_name(struct parser *p, const char *key, const char *v)
{
	struct module *m = p->m;
	char *name = word(&v), *more = word(&v);
	int rc = 0;
	if (p->declared)
		rc = fail(p, p->line, "a second name: '-- %s: %s' after '-- %s: %s' (a module is one analysis or one prelude)",
			  key, name ? name : "", m->is_analysis ? "analysis" : "module", m->name);
	else if (!is_name(name, 1) || more)
		rc = fail(p, p->line, "'%s' needs one NAME (letters, digits, '_', '-')", key);
	if (rc) {
		free(name);
		free(more);
		return -1;
	}
	m->name = name;
	m->is_analysis = !strcmp(key, "analysis");
	p->declared = 1;
	return 0;
}

/* Whether a gate's second word is its DEFAULT: '-' (none) or a number-like word. */
static int is_default_word(const char *w)
{
	return w && (!strcmp(w, "-") || isdigit((unsigned char)w[0]) ||
		     (w[0] == '-' && isdigit((unsigned char)w[1])));
}

static int decl_param(struct parser *p, const char *key, const char *v, int is_gate)
{
	struct module *m = p->m;
	struct module_param q = { NULL, NULL, NULL };
	const char *after;
	char *def;
	int i;
	q.name = word(&v);
	if (!is_name(q.name, 0)) {
		fail(p, p->line, "'%s' needs a NAME (letters, digits, '_'), not '%s'", key, q.name ? q.name : "");
		free(q.name);
		return -1;
	}
	for (i = 0; i < m->nparams; i++)
		if (!strcmp(m->params[i].name, q.name))
			break;
	if (i < m->nparams || (m->gate.name && !strcmp(m->gate.name, q.name))) {
		fail(p, p->line, "duplicate option '%s'", q.name);
		free(q.name);
		return -1;
	}
	after = v;
	def = word(&after);
	if (is_gate && !is_default_word(def)) {
		free(def);
		def = NULL;
		after = v;
	} else if (!def) {
		fail(p, p->line, "option '%s' needs a DEFAULT ('-' for none)", q.name);
		free(q.name);
		return -1;
	}
	if (def && !strcmp(def, "-")) {
		free(def);
		def = NULL;
	}
	q.def = def;
	q.doc = rest(after);
	if (is_gate) {
		if (p->has_gate) {
			fail(p, p->line, "a second gate '%s' (an analysis has one)", q.name);
			free(q.name);
			free(q.def);
			free(q.doc);
			return -1;
		}
		p->has_gate = 1;
		m->gate = q;
		return 0;
	}
	m->params = xrealloc(m->params, (size_t)(m->nparams + 1) * sizeof(*m->params));
	m->params[m->nparams++] = q;
	return 0;
}

/* N [top K] [multi-gpu] */
static int decl_section(struct parser *p, const char *v)
{
	struct module *m = p->m;
	char *w = word(&v);
	int64_t n;
	int rc = 0;
	if (p->has_section) {
		free(w);
		return fail(p, p->line, "a second 'section' line");
	}
	p->has_section = 1;
	if (!w || parse_i64(w, strlen(w), &n) || n < 1 || n > 1000) {
		rc = fail(p, p->line, "bad section '%s': N [top K] [multi-gpu], N a place from 1", w ? w : "");
		free(w);
		return rc;
	}
	m->section = (int)n;
	free(w);
	while (!rc && (w = word(&v))) {
		if (!strcmp(w, "top")) {
			char *k = word(&v);
			if (!k || parse_i64(k, strlen(k), &n) || n < 1 || n > 1000000)
				rc = fail(p, p->line, "bad section: 'top' needs a count of rows, not '%s'", k ? k : "");
			else
				m->section_top = (int)n;
			free(k);
		} else if (!strcmp(w, "multi-gpu")) {
			m->multi_gpu = 1;
		} else {
			rc = fail(p, p->line, "bad section: '%s' (N [top K] [multi-gpu])", w);
		}
		free(w);
	}
	return rc;
}

static int decl_table(struct parser *p, const char *v)
{
	struct module *m = p->m;
	struct module_table t;
	const char *after;
	char *w;
	int i;
	if (p->first_loose)
		return fail(p, p->first_loose, "column before any table (a module with tables declares each column "
			    "after its table's line)");
	if (table_end(p, current(p)))
		return -1;
	memset(&t, 0, sizeof(t));
	t.key = word(&v);
	if (!is_name(t.key, 0)) {
		fail(p, p->line, "'table' needs a KEY (letters, digits, '_'), not '%s'", t.key ? t.key : "");
		free(t.key);
		return -1;
	}
	for (i = 0; i < m->ntables; i++)
		if (!strcmp(m->tables[i].key, t.key)) {
			fail(p, p->line, "duplicate table '%s'", t.key);
			free(t.key);
			return -1;
		}
	after = v;
	w = word(&after);
	if (w && !strcmp(w, "vertical")) {
		t.vertical = 1;
		v = after;
	}
	free(w);
	t.title = rest(v);
	if (!*t.title) {
		free(t.title);
		t.title = xstrdup(t.key);
	}
	p->pivot_line = 0;
	m->tables = xrealloc(m->tables, (size_t)(m->ntables + 1) * sizeof(*m->tables));
	m->tables[m->ntables++] = t;
	return 0;
}

static int decl_column(struct parser *p, const char *v)
{
	struct module *m = p->m;
	struct module_table *t = current(p);
	struct module_column c, **cols = t ? &t->cols : &m->columns;
	int *n = t ? &t->ncols : &m->ncolumns, i;
	if (column_parse(p, v, &c, "column"))
		return -1;
	for (i = 0; i < *n; i++)
		if (!strcmp((*cols)[i].key, c.key)) {
			fail(p, p->line, "duplicate column '%s'%s%s", c.key, t ? " in table " : "", t ? t->key : "");
			column_release(&c);
			return -1;
		}
	if (!t && !p->first_loose)
		p->first_loose = p->line;
	*cols = xrealloc(*cols, (size_t)(*n + 1) * sizeof(**cols));
	(*cols)[(*n)++] = c;
	return 0;
}

/* KEY KIND at COLUMN */
static int decl_pivot(struct parser *p, const char *v)
{
	struct module_table *t = current(p);
	struct module_column c;
	char *key, *kind, *at, *col, *more;
	int k, rc = 0;
	if (!t)
		return fail(p, p->line, "pivot before any table");
	if (t->pivot)
		return fail(p, p->line, "a second pivot in table '%s'", t->key);
	key = word(&v);
	kind = word(&v);
	at = word(&v);
	col = word(&v);
	more = word(&v);
	k = kind ? module_kind(kind) : -1;
	if (!key || !is_name(key, 0) || !kind || !at || strcmp(at, "at") || !col || more)
		rc = fail(p, p->line, "bad pivot: KEY KIND at COLUMN");
	else if (k < 0)
		rc = fail(p, p->line, "unknown kind '%s' (%s)", kind, KIND_NAMES);
	free(kind);
	free(at);
	free(more);
	if (rc) {
		free(key);
		free(col);
		return -1;
	}
	memset(&c, 0, sizeof(c));
	c.key = key;
	c.type = (enum col_type)k;
	c.doc = xstrdup("");
	t->pivot = xmalloc(sizeof(*t->pivot));
	*t->pivot = c;
	t->pivot_at = col;
	p->pivot_line = p->line;
	return 0;
}

/* The keys a prelude (`-- module:`) may not have: they make an analysis. */
static int analysis_only(const char *key)
{
	static const char *const keys[] = { "gate", "section", "baseline", "kernel-cache", "usage", "table",
					     "column", "pivot" };
	size_t i;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i], key))
			return 1;
	return 0;
}

/* One declaration, KEY: v. */
static int declare(struct parser *p, const char *key, const char *v)
{
	struct module *m = p->m;
	if (!strcmp(key, "analysis") || !strcmp(key, "module"))
		return decl_name(p, key, v);
	if (!p->declared)
		return fail(p, p->line, "'%s' before the module's name (its first declaration is '-- analysis: NAME' "
			    "or '-- module: NAME')", key);
	if (!m->is_analysis && analysis_only(key))
		return fail(p, p->line, "'%s' in a prelude ('-- module:'); only an analysis has it", key);
	if (!strcmp(key, "title")) {
		if (p->has_title)
			return fail(p, p->line, "a second 'title' line");
		p->has_title = 1;
		m->title = rest(v);
		return *m->title ? 0 : fail(p, p->line, "an empty title");
	}
	if (!strcmp(key, "include")) {
		char *name = word(&v), *more = word(&v);
		int i, rc = 0;
		if (!is_name(name, 1) || more)
			rc = fail(p, p->line, "'include' needs one module NAME");
		for (i = 0; !rc && i < m->nincludes; i++)
			if (!strcmp(m->includes[i], name))
				rc = fail(p, p->line, "'%s' included twice", name);
		if (!rc && !strcmp(name, m->name))
			rc = fail(p, p->line, "module '%s' includes itself", name);
		free(more);
		if (rc) {
			free(name);
			return -1;
		}
		m->includes = xrealloc(m->includes, (size_t)(m->nincludes + 1) * sizeof(*m->includes));
		m->includes[m->nincludes++] = name;
		return 0;
	}
	if (!strcmp(key, "option"))
		return decl_param(p, key, v, 0);
	if (!strcmp(key, "gate"))
		return decl_param(p, key, v, 1);
	if (!strcmp(key, "section"))
		return decl_section(p, v);
	if (!strcmp(key, "baseline")) {
		char *w = word(&v), *more = word(&v);
		int ok = w && !strcmp(w, "required") && !more && !p->has_baseline;
		free(w);
		free(more);
		p->has_baseline = 1;
		m->needs_baseline = 1;
		return ok ? 0 : fail(p, p->line, "bad baseline: the one form is '-- baseline: required', once");
	}
	if (!strcmp(key, "kernel-cache")) {
		char *w = word(&v), *more = word(&v);
		int ok = w && (!strcmp(w, "yes") || !strcmp(w, "no")) && !more && !p->has_cache;
		m->kernel_cache = w && !strcmp(w, "yes");
		free(w);
		free(more);
		p->has_cache = 1;
		return ok ? 0 : fail(p, p->line, "bad kernel-cache: 'yes' or 'no', once");
	}
	if (!strcmp(key, "usage")) {
		/* A second usage line goes on on a new line of --help. */
		char *more = rest(v);
		struct buf b;
		buf_init(&b);
		if (m->usage)
			buf_addf(&b, "%s\n", m->usage);
		buf_addstr(&b, more);
		free(more);
		free(m->usage);
		m->usage = xstrdup(b.s);
		buf_release(&b);
		p->has_usage = 1;
		return 0;
	}
	if (!strcmp(key, "table"))
		return decl_table(p, v);
	if (!strcmp(key, "column"))
		return decl_column(p, v);
	return decl_pivot(p, v);
}

/* The declaration keys; any other `-- word:` line is prose. */
static const char *const keys[] = { "analysis", "module", "title", "include", "option", "gate", "section", "baseline",
				    "kernel-cache", "usage", "table", "column", "pivot" };

/* The key of a declaration line ("-- KEY: VALUE", s after "--"), its value in *v; NULL for prose. */
static const char *decl_key(const char *s, const char **v)
{
	size_t i, n;
	if (*s != ' ')
		return NULL;
	s++;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		n = strlen(keys[i]);
		if (!strncmp(s, keys[i], n) && s[n] == ':' && (s[n + 1] == ' ' || s[n + 1] == '\t' || !s[n + 1])) {
			*v = s + n + 1;
			return keys[i];
		}
	}
	return NULL;
}

int module_parse(const char *file, const char *text, struct module *m)
{
	struct parser p;
	const char *line = text;
	int rc = 0, blank = 0;
	memset(m, 0, sizeof(*m));
	memset(&p, 0, sizeof(p));
	m->file = xstrdup(file);
	p.m = m;
	buf_init(&p.doc);
	for (p.line = 1; !rc && line && !strncmp(line, "--", 2); p.line++) {
		const char *end = strchr(line, '\n'), *v, *key;
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *s;
		while (n > 2 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
		s = xstrndup(line + 2, n - 2);
		if ((key = decl_key(s, &v))) {
			rc = declare(&p, key, v);
		} else {
			const char *prose = s[0] == ' ' ? s + 1 : s;
			if (!*prose) {
				blank += p.doc.len > 0;	/* blank lines inside the prose, not before it */
			} else {
				for (; blank > 0; blank--)
					buf_addch(&p.doc, '\n');
				buf_addf(&p.doc, "%s%s", p.doc.len ? "\n" : "", prose);
			}
		}
		free(s);
		line = end ? end + 1 : NULL;
	}
	m->body_line = p.line;
	p.line--;	/* the header's last line, for what is checked at its end */
	if (p.line < 1)
		p.line = 1;
	if (!rc && !p.declared)
		rc = fail(&p, 1, "no '-- analysis: NAME' or '-- module: NAME' line in the header (the comment lines "
			  "before the first statement)");
	if (!rc && m->is_analysis && !p.has_title)
		rc = fail(&p, p.line, "analysis '%s' has no '-- title:' line", m->name);
	if (!rc)
		rc = table_end(&p, current(&p));
	m->doc = xstrdup(p.doc.s);
	buf_release(&p.doc);
	if (rc) {
		module_release(m);
		return -1;
	}
	return 0;
}

void module_release(struct module *m)
{
	int i, c;
	free(m->file);
	free(m->name);
	free(m->title);
	free(m->doc);
	free(m->usage);
	for (i = 0; i < m->nincludes; i++)
		free(m->includes[i]);
	free(m->includes);
	for (i = 0; i < m->nparams; i++) {
		free(m->params[i].name);
		free(m->params[i].def);
		free(m->params[i].doc);
	}
	free(m->params);
	free(m->gate.name);
	free(m->gate.def);
	free(m->gate.doc);
	for (i = 0; i < m->ntables; i++) {
		struct module_table *t = &m->tables[i];
		free(t->key);
		free(t->title);
		for (c = 0; c < t->ncols; c++)
			column_release(&t->cols[c]);
		free(t->cols);
		if (t->pivot) {
			column_release(t->pivot);
			free(t->pivot);
		}
		free(t->pivot_at);
	}
	free(m->tables);
	for (c = 0; c < m->ncolumns; c++)
		column_release(&m->columns[c]);
	free(m->columns);
	memset(m, 0, sizeof(*m));
}

int module_decl_line(const char *text, const char *key, const char *value)
{
	const char *line = text;
	size_t nk = strlen(key), nv = value ? strlen(value) : 0;
	int n;
	for (n = 1; line && !strncmp(line, "--", 2); n++) {
		if (line[2] == ' ' && !strncmp(line + 3, key, nk) && line[3 + nk] == ':') {
			const char *v = line + 3 + nk + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			if (!value || (!strncmp(v, value, nv) && (!v[nv] || strchr(" \t\r\n", v[nv]))))
				return n;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return 1;
}
