/*
 * classes: kernels sorted into classes by name (compute, communication, memory; the rules are data, in
 * analyze/kernel-classes.rules, or the file GPUPROF_CLASS_RULES names), with per class the kernels,
 * their summed time and their busy time (the union of the class's kernel intervals per device, summed
 * over devices), and per pair of classes the time both run at once on one device ("compute+communication"
 * is the overlap distributed training wants large). A last row "all" is the union of every kernel shown.
 * pct is a share of all kernels' busy time (summary's kernel_busy_ns, filters or not). Every figure here is
 * kernels only, so the busy key is kernel_busy_ns as in summary, devices and idle; their busy_ns (GPU busy
 * time with copies and memsets, busy.h) is another figure.
 *
 * Pair rows have no kernels or total (NULL); when three classes run at once, that time counts in each
 * of their pairs. Only kernels count: copies and memsets of the copy engines (tables memcpys, memsets)
 * are not kernels and are left to `memcpy` and `idle`.
 *
 * The rules are loaded and checked on every run: a rule without samples, a sample its own rule does not
 * match, or a sample that an earlier rule of another class takes, fails the analysis with a message
 * naming the file, line and rule (gpuprof-analyze exits 4).
 */
#include "analysis.h"
#include "columns.h"
#include "stats.h"
#include "embed.h"
#include "intmap.h"
#include "util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RULES_FILE "analyze/kernel-classes.rules"
#define MAX_CLASSES 16

/* One `class NAME PATTERN` line. */
struct rule {
	int cls;		/* index into ruleset.classes */
	int line;
	char *pattern;
	pcre2_code *re;
	int samples;		/* sample lines that follow it */
};

/* The rules of one file, in order. Class 0 is always "compute", the class of names no rule matches. */
struct ruleset {
	const char *file;	/* for messages */
	char *classes[MAX_CLASSES];
	int nclasses;
	struct rule *v;
	size_t n, alloc;
	pcre2_match_data *md;
};

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

/* The class of a name: its first matching rule's, else compute (0). */
static int ruleset_classify(const struct ruleset *rs, const char *name, size_t len)
{
	int r = ruleset_match(rs, name, len);
	return r < 0 ? 0 : rs->v[r].cls;
}

/* Index of class `name`, added if new; -1 with a message when there are too many. */
static int class_index(struct ruleset *rs, const char *name, size_t len, int line)
{
	int c;
	for (c = 0; c < rs->nclasses; c++)
		if (strlen(rs->classes[c]) == len && !memcmp(rs->classes[c], name, len))
			return c;
	if (rs->nclasses == MAX_CLASSES)
		return error("%s:%d: too many classes (at most %d)", rs->file, line, MAX_CLASSES);
	rs->classes[rs->nclasses] = xstrndup(name, len);
	return rs->nclasses++;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* A class name: a lowercase letter, then up to 31 lowercase letters, digits and "_"; not "all". */
static int valid_class(const char *s, size_t len)
{
	size_t i;
	if (!len || len > 32 || s[0] < 'a' || s[0] > 'z' || (len == 3 && !memcmp(s, "all", 3)))
		return 0;
	for (i = 1; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
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
static int check_samples(const struct ruleset *rs, const struct sample *s, size_t n)
{
	char a[96], b[96], c[96];
	size_t i;
	for (i = 0; i < rs->n; i++)
		if (!rs->v[i].samples)
			return error("%s:%d: rule '%s %s' has no sample (add a 'sample %s KERNEL' line after it)",
				     rs->file, rs->v[i].line, rs->classes[rs->v[i].cls],
				     excerpt(rs->v[i].pattern, a), rs->classes[rs->v[i].cls]);
	for (i = 0; i < n; i++) {
		const struct rule *own = &rs->v[s[i].rule];
		size_t len = strlen(s[i].name);
		int first;
		if (pcre2_match(own->re, (PCRE2_SPTR)s[i].name, len, 0, 0, rs->md, NULL) < 0)
			return error("%s:%d: rule '%s %s' (line %d) does not match its sample '%s'", rs->file,
				     s[i].line, rs->classes[own->cls], excerpt(own->pattern, a), own->line,
				     excerpt(s[i].name, b));
		first = ruleset_match(rs, s[i].name, len);
		if (rs->v[first].cls != s[i].cls)
			return error("%s:%d: sample '%s' of rule '%s %s' (line %d) is taken first by rule '%s %s' "
				     "(line %d)", rs->file, s[i].line, excerpt(s[i].name, b), rs->classes[own->cls],
				     excerpt(own->pattern, a), own->line, rs->classes[rs->v[first].cls],
				     excerpt(rs->v[first].pattern, c), rs->v[first].line);
	}
	return 0;
}

/* Parse one `class` line's fields into a new rule; -1 with a message. */
static int add_rule(struct ruleset *rs, const char *name, size_t nlen, const char *pat, size_t plen, int line)
{
	struct rule *r;
	int errcode, cls;
	PCRE2_SIZE erroff;
	if (!valid_class(name, nlen))
		return error("%s:%d: bad class name '%.*s' (up to 32 lowercase letters, digits and _; not 'all')",
			     rs->file, line, (int)nlen, name);
	if (!plen)
		return error("%s:%d: class '%.*s' has no pattern", rs->file, line, (int)nlen, name);
	if ((cls = class_index(rs, name, nlen, line)) < 0)
		return -1;
	ALLOC_GROW(rs->v, rs->n + 1, rs->alloc);
	r = &rs->v[rs->n];
	memset(r, 0, sizeof(*r));
	r->cls = cls;
	r->line = line;
	r->pattern = xstrndup(pat, plen);
	r->re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode, &erroff, NULL);
	if (!r->re) {
		char msg[256];
		pcre2_get_error_message(errcode, (PCRE2_UCHAR *)msg, sizeof(msg));
		error("%s:%d: bad regular expression '%s' in rule of class '%s': %s at offset %zu", rs->file, line,
		      r->pattern, rs->classes[cls], msg, (size_t)erroff);
		free(r->pattern);
		return -1;
	}
	pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE);
	rs->n++;
	return 0;
}

/*
 * Load rules from text (the contents of `file`), compile and check them. Returns 0, or -1 with a
 * message naming the file, line and rule; rs is then released.
 */
static int ruleset_load(struct ruleset *rs, const char *text, const char *file)
{
	struct sample *s = NULL;
	size_t ns = 0, salloc = 0, i;
	int line = 0, rc = -1;
	const char *p = text;

	memset(rs, 0, sizeof(*rs));
	rs->file = file;
	rs->md = pcre2_match_data_create(1, NULL);
	rs->classes[rs->nclasses++] = xstrdup("compute");
	while (*p) {
		const char *eol = strchr(p, '\n'), *kw, *name, *rest, *end;
		size_t kwlen, nlen;
		if (!eol)
			eol = p + strlen(p);
		line++;
		end = eol;
		while (end > p && is_blank(end[-1]))
			end--;
		kw = p;
		while (kw < end && is_blank(*kw))
			kw++;
		p = *eol ? eol + 1 : eol;
		if (kw == end || *kw == '#')
			continue;
		for (name = kw; name < end && !is_blank(*name); name++)
			;
		kwlen = (size_t)(name - kw);
		while (name < end && is_blank(*name))
			name++;
		for (rest = name; rest < end && !is_blank(*rest); rest++)
			;
		nlen = (size_t)(rest - name);
		while (rest < end && is_blank(*rest))
			rest++;
		if (kwlen == 5 && !memcmp(kw, "class", 5)) {
			if (add_rule(rs, name, nlen, rest, (size_t)(end - rest), line))
				goto done;
		} else if (kwlen == 6 && !memcmp(kw, "sample", 6)) {
			int cls;
			if (!rs->n) {
				error("%s:%d: sample before any class rule", file, line);
				goto done;
			}
			if (!valid_class(name, nlen) || rest == end) {
				error("%s:%d: a sample needs a class name and a kernel name", file, line);
				goto done;
			}
			if ((cls = class_index(rs, name, nlen, line)) < 0)
				goto done;
			if (cls != rs->v[rs->n - 1].cls) {
				error("%s:%d: sample of class '%s' follows a rule of class '%s' (line %d)", file, line,
				      rs->classes[cls], rs->classes[rs->v[rs->n - 1].cls], rs->v[rs->n - 1].line);
				goto done;
			}
			ALLOC_GROW(s, ns + 1, salloc);
			s[ns].rule = (int)rs->n - 1;
			s[ns].cls = cls;
			s[ns].line = line;
			s[ns].name = xstrndup(rest, (size_t)(end - rest));
			ns++;
			rs->v[rs->n - 1].samples++;
		} else {
			error("%s:%d: unknown directive '%.*s' (class or sample)", file, line, (int)kwlen, kw);
			goto done;
		}
	}
	rc = check_samples(rs, s, ns);
done:
	for (i = 0; i < ns; i++)
		free(s[i].name);
	free(s);
	if (rc)
		ruleset_release(rs);
	return rc;
}

/* Read the rules GPUPROF_CLASS_RULES names, else the built-in ones. Returns 0, or -1 with a message. */
static int rules_open(struct ruleset *rs)
{
	const char *path = getenv("GPUPROF_CLASS_RULES");
	struct buf b;
	char chunk[8192];
	size_t n;
	FILE *f;
	int rc;

	if (!path || !*path) {
		const char *text = embed_get(RULES_FILE);
		if (!text)
			return error("internal: no embedded %s", RULES_FILE);
		return ruleset_load(rs, text, RULES_FILE);
	}
	if (!(f = fopen(path, "rb")))
		return error("cannot read class rules '%s' (GPUPROF_CLASS_RULES): %s", path, strerror(errno));
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(f) || memchr(b.s, '\0', b.len)) {
		int bad_nul = !ferror(f);
		fclose(f);
		buf_release(&b);
		return error("cannot read class rules '%s' (GPUPROF_CLASS_RULES): %s", path,
			     bad_nul ? "not a text file" : "read error");
	}
	fclose(f);
	rc = ruleset_load(rs, b.s, path);
	buf_release(&b);
	return rc;
}

/*
 * One device's kernel intervals by slot: slots 0..nclasses-1 hold the kernels of each class that pass
 * the name filters, slot nclasses those the filters leave out (they count in the base of pct only).
 */
struct device_spans {
	int64_t id;
	struct ivlist slot[MAX_CLASSES + 1];
};

/* The slot of name id (its class, or nclasses when the name filters leave it out), through statement `name`. */
static int name_slot(sqlite3_stmt *name, const struct ruleset *rs, int64_t id, int filtered, int *err)
{
	int slot, rc;
	sqlite3_bind_int64(name, sqlite3_bind_parameter_index(name, ":id"), id);
	rc = sqlite3_step(name);
	if (rc == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(name, 0);
		size_t len = (size_t)sqlite3_column_bytes(name, 0);
		slot = sqlite3_column_int(name, 1) ? ruleset_classify(rs, s ? s : "", s ? len : 0) : rs->nclasses;
	} else if (rc == SQLITE_DONE) {
		slot = filtered ? rs->nclasses : 0;	/* a name not in strings: compute, no name to match */
	} else {
		*err = 1;
		error("sqlite: %s", sqlite3_errmsg(sqlite3_db_handle(name)));
		slot = 0;
	}
	sqlite3_reset(name);
	return slot;
}

static const struct colspec classes_cols[] = {
	{ "class", "Class", C_TEXT },
	{ "kernels", "Kernels", C_INT },
	{ "total_ns", "Kernel time (sum)", C_NS },
	{ "kernel_busy_ns", "Kernel busy (union)", C_NS },
	{ "pct", "% of kernel busy", C_PCT },
};

/* Add a result row; kernels and total are left NULL when negative. */
static void classes_row(struct table *t, const char *cls, int64_t kernels, int64_t total, int64_t busy,
			int64_t base)
{
	size_t r = table_row(t);
	table_set_text(t, r, 0, cls);
	if (kernels >= 0)
		table_set_int(t, r, 1, kernels);
	if (total >= 0)
		table_set_int(t, r, 2, total);
	table_set_int(t, r, 3, busy);
	if (base > 0)
		table_set_real(t, r, 4, 100.0 * (double)busy / (double)base);
}

int run_classes(sqlite3 *db, const char *sql, const struct analysis_opts *o, struct tables *out)
{
	struct script sc = { db, sql, o };
	struct table *t = table_new("classes", "Kernel classes: busy time and overlap per device, summed");
	struct ruleset rs;
	struct device_spans *dev = NULL;
	const struct kcols *kc;
	size_t ndev = 0, i, j;
	int *slots = NULL;
	int64_t kernels[MAX_CLASSES] = { 0 }, total[MAX_CLASSES] = { 0 }, busy[MAX_CLASSES] = { 0 };
	int64_t overlap[MAX_CLASSES][MAX_CLASSES], all_busy = 0, base = 0, all_kernels = 0, all_total = 0;
	int filtered = o->match || o->exclude, err = 0, status = -1, a, b, k;
	sqlite3_stmt *name = NULL;

	tables_add(out, t);
	table_cols(t, classes_cols, NCOLS(classes_cols));
	if (rules_open(&rs))
		return -1;
	memset(overlap, 0, sizeof(overlap));
	if (!(kc = kernels_get(db, o->session, KC_SPAN | KC_NAME)) || !(name = script_next(&sc)))
		goto done;
	/* The slot of every name id, then every kernel into its device's slot. */
	slots = xmalloc((kc->nnames ? kc->nnames : 1) * sizeof(*slots));
	for (j = 0; j < kc->nnames; j++)
		slots[j] = -1;
	ndev = kc->ndevices;
	dev = xcalloc(ndev ? ndev : 1, sizeof(*dev));
	for (j = 0; j < ndev; j++)
		dev[j].id = kc->devices[j];
	for (j = 0; j < kc->n; j++) {
		int32_t id = kc->name[j];
		struct ivlist *s;
		int slot = slots[id];
		if (slot < 0) {
			slot = slots[id] = name_slot(name, &rs, id, filtered, &err);
			if (err)
				goto done;
		}
		s = &dev[kc->dev[j]].slot[slot];
		if (s->n == s->alloc)
			ivlist_grow(s);
		s->v[s->n].start = kc->start[j];
		s->v[s->n].end = kc->start[j] + kc->dur[j];
		if (slot < rs.nclasses) {
			kernels[slot]++;
			total[slot] += kc->dur[j];
		}
		s->n++;
	}

	for (i = 0; i < ndev; i++) {
		for (k = 0; k <= rs.nclasses; k++) {
			int64_t len = spans_merge(&dev[i].slot[k]);
			if (k < rs.nclasses)
				busy[k] += len;
		}
		for (a = 0; a < rs.nclasses; a++)
			for (b = a + 1; b < rs.nclasses; b++)
				overlap[a][b] += spans_intersect(&dev[i].slot[a], &dev[i].slot[b]);
		all_busy += spans_union(dev[i].slot, (size_t)rs.nclasses, NULL, NULL);
		base += filtered ? spans_union(dev[i].slot, (size_t)rs.nclasses + 1, NULL, NULL) : 0;
	}
	if (!filtered)
		base = all_busy;

	for (k = 0; k < rs.nclasses; k++) {
		classes_row(t, rs.classes[k], kernels[k], total[k], busy[k], base);
		all_kernels += kernels[k];
		all_total += total[k];
	}
	for (a = 0; a < rs.nclasses; a++)
		for (b = a + 1; b < rs.nclasses; b++) {
			char pair[80];
			snprintf(pair, sizeof(pair), "%s+%s", rs.classes[a], rs.classes[b]);
			classes_row(t, pair, -1, -1, overlap[a][b], base);
		}
	classes_row(t, "all", all_kernels, all_total, all_busy, base);
	status = 0;
done:
	sqlite3_finalize(name);
	free(slots);
	for (i = 0; i < ndev; i++)
		for (k = 0; k <= MAX_CLASSES; k++)
			ivlist_release(&dev[i].slot[k]);
	free(dev);
	ruleset_release(&rs);
	return status;
}
