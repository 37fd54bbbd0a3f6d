/*
 * gpuprof's SQL functions (see sqlext.h). Compiled twice: plainly for gpuprof's programs, and with
 * GPUPROF_SQLITE_LOADABLE for build/lib/gpuprof_sqlite.so, where every sqlite3_* call goes through the
 * API pointer the host hands to sqlext_load.c's entry point.
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "dstats.h"
#include "spans.h"
#include "symname.h"
#include "table.h"
#include "util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- median, stddev_samp, percentile: one group's values ---- */

/* A value: an integer until the group's first REAL, then every value a double (converted in place). */
union val {
	int64_t i;
	double d;
};

struct vals {
	union val *v;	/* sqlite3_realloc64'd */
	size_t n, alloc;
	int real;	/* v holds doubles */
	int have_p;	/* percentile: p was seen (the same on every row) */
	double p;
};

/*
 * Add x to the group (NULLs skipped). Numbers as SQLite's sum() reads them: integers stay exact, anything
 * else is a double. 0, or -1 with the error set on ctx.
 */
static int vals_add(sqlite3_context *ctx, struct vals *s, sqlite3_value *x)
{
	int type = sqlite3_value_numeric_type(x);
	size_t i;
	if (type == SQLITE_NULL)
		return 0;
	if (s->n == s->alloc) {
		size_t alloc = s->alloc ? 2 * s->alloc : 1024;
		union val *v = sqlite3_realloc64(s->v, alloc * sizeof(*v));
		if (!v) {
			sqlite3_result_error_nomem(ctx);
			return -1;
		}
		s->v = v;
		s->alloc = alloc;
	}
	if (type == SQLITE_INTEGER && !s->real) {
		s->v[s->n++].i = sqlite3_value_int64(x);
		return 0;
	}
	if (!s->real) {
		for (i = 0; i < s->n; i++)
			s->v[i].d = (double)s->v[i].i;
		s->real = 1;
	}
	s->v[s->n++].d = sqlite3_value_double(x);
	return 0;
}

static void vals_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct vals *s = sqlite3_aggregate_context(ctx, sizeof(*s));
	(void)argc;
	if (!s) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	vals_add(ctx, s, argv[0]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The group's values as int64 (NULL when they are doubles: then sorted, as doubles). */
static int64_t *vals_ints(struct vals *s)
{
	if (!s->real)
		return (int64_t *)s->v;
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	return NULL;
}

/* The group of ctx when it has values, else NULL (the result stays NULL; a group with no rows has none). */
static struct vals *vals_final(sqlite3_context *ctx)
{
	struct vals *s = sqlite3_aggregate_context(ctx, 0);
	if (s && !s->n) {
		sqlite3_free(s->v);
		return NULL;
	}
	return s;
}

static void median_final(sqlite3_context *ctx)
{
	struct vals *s = vals_final(ctx);
	int64_t *iv;
	if (!s)
		return;
	if ((iv = vals_ints(s)))
		sqlite3_result_double(ctx, stats_median(iv, s->n));
	else if (s->n % 2)
		sqlite3_result_double(ctx, s->v[s->n / 2].d);
	else
		sqlite3_result_double(ctx, (s->v[s->n / 2 - 1].d + s->v[s->n / 2].d) / 2.0);
	sqlite3_free(s->v);
}

static void stddev_final(sqlite3_context *ctx)
{
	struct vals *s = vals_final(ctx);
	size_t i;
	if (!s)
		return;
	if (!s->real) {
		const int64_t *iv = (const int64_t *)s->v;
		int64_t total = 0;
		for (i = 0; i < s->n; i++)
			if (__builtin_add_overflow(total, iv[i], &total))
				break;
		if (i < s->n)
			sqlite3_result_error(ctx, "stddev_samp: integer overflow", -1);
		else
			sqlite3_result_double(ctx, stats_stddev(iv, s->n, total));
	} else {
		double sum = 0, mean, ss = 0;
		for (i = 0; i < s->n; i++)
			sum += s->v[i].d;
		mean = sum / (double)s->n;
		for (i = 0; i < s->n; i++)
			ss += (s->v[i].d - mean) * (s->v[i].d - mean);
		sqlite3_result_double(ctx, s->n > 1 ? sqrt(ss / (double)(s->n - 1)) : 0.0);
	}
	sqlite3_free(s->v);
}

static void percentile_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct vals *s = sqlite3_aggregate_context(ctx, sizeof(*s));
	int type = sqlite3_value_numeric_type(argv[1]);
	double p = sqlite3_value_double(argv[1]);
	(void)argc;
	if (!s) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || !(p >= 0 && p <= 100)) {
		sqlite3_result_error(ctx, "percentile: p must be a number from 0 to 100", -1);
		return;
	}
	if (s->have_p && p != s->p) {
		sqlite3_result_error(ctx, "percentile: p must be the same on every row of a group", -1);
		return;
	}
	s->p = p;
	s->have_p = 1;
	vals_add(ctx, s, argv[0]);
}

static void percentile_final(sqlite3_context *ctx)
{
	struct vals *s = vals_final(ctx);
	int64_t *iv;
	if (!s)
		return;
	if ((iv = vals_ints(s))) {
		sqlite3_result_double(ctx, stats_percentile(iv, s->n, s->p));
	} else {
		double t;
		size_t k = stats_rank(s->n, s->p, &t);
		sqlite3_result_double(ctx, t > 0 ? stats_lerp(s->v[k].d, s->v[k + 1].d, t) : s->v[k].d);
	}
	sqlite3_free(s->v);
}

/* ---- busy_union(start, end) ---- */

struct busy {
	struct ivlist l;
	int rows;	/* rows with both ends (NULL result without any) */
};

/* An interval end as an integer: INTEGER, or a REAL that is a whole number in range. 0, or -1. */
static int int_arg(sqlite3_value *x, int64_t *out)
{
	int type = sqlite3_value_numeric_type(x);
	double d;
	if (type == SQLITE_INTEGER) {
		*out = sqlite3_value_int64(x);
		return 0;
	}
	d = sqlite3_value_double(x);
	if (type != SQLITE_FLOAT || d != floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
		return -1;
	*out = (int64_t)d;
	return 0;
}

static void busy_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct busy *b = sqlite3_aggregate_context(ctx, sizeof(*b));
	struct interval x;
	(void)argc;
	if (!b) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if (int_arg(argv[0], &x.start) || int_arg(argv[1], &x.end)) {
		sqlite3_result_error(ctx, "busy_union: start and end must be integers", -1);
		return;
	}
	b->rows = 1;
	if (x.end <= x.start)
		return;		/* empty or inverted: covers nothing */
	if (b->l.n == b->l.alloc)
		ivlist_grow(&b->l);
	b->l.v[b->l.n++] = x;
}

static void busy_final(sqlite3_context *ctx)
{
	struct busy *b = sqlite3_aggregate_context(ctx, 0);
	uint64_t total = 0;
	size_t i;
	if (!b)
		return;
	if (b->rows) {
		spans_merge(&b->l);
		/* Disjoint spans within int64 sum to at most 2^64 - 1: only the int64 result can overflow. */
		for (i = 0; i < b->l.n; i++)
			total += (uint64_t)b->l.v[i].end - (uint64_t)b->l.v[i].start;
		if (total > INT64_MAX)
			sqlite3_result_error(ctx, "busy_union: integer overflow", -1);
		else
			sqlite3_result_int64(ctx, (int64_t)total);
	}
	ivlist_release(&b->l);
}

/* ---- scalars ---- */

/* A compiled pattern with its match data. */
struct regex {
	pcre2_code *re;
	pcre2_match_data *md;
};

static void regex_free(void *p)
{
	struct regex *r = p;
	pcre2_match_data_free(r->md);
	pcre2_code_free(r->re);
	sqlite3_free(r);
}

/*
 * The patterns a connection's regexp compiled last, for patterns that are not constant in a statement
 * (SQLite keeps auxdata only for those): classifying names by a table of rules calls it with a few
 * patterns in turn, and compiling one costs a hundred matches.
 */
#define REGEX_CACHE 16
struct regex_cache {
	struct regex *e[REGEX_CACHE];
	char *pat[REGEX_CACHE];		/* sqlite3_malloc'd, NUL-ended */
	int next;			/* the slot to replace next */
};

static void regex_cache_free(void *p)
{
	struct regex_cache *c = p;
	int i;
	for (i = 0; i < REGEX_CACHE; i++)
		if (c->e[i]) {
			regex_free(c->e[i]);
			sqlite3_free(c->pat[i]);
		}
	sqlite3_free(c);
}

/* Compile pattern pat, or NULL with the error set on ctx. */
static struct regex *regex_compile(sqlite3_context *ctx, const unsigned char *pat, int len)
{
	struct regex *r = sqlite3_malloc(sizeof(*r));
	int errcode;
	PCRE2_SIZE erroff;
	if (!r) {
		sqlite3_result_error_nomem(ctx);
		return NULL;
	}
	r->re = pcre2_compile(pat, (PCRE2_SIZE)len, PCRE2_UTF, &errcode, &erroff, NULL);
	if (!r->re) {
		char msg[256], full[512];
		pcre2_get_error_message(errcode, (PCRE2_UCHAR *)msg, sizeof(msg));
		snprintf(full, sizeof(full), "bad regular expression '%s': %s at offset %zu", (const char *)pat, msg,
			 (size_t)erroff);
		sqlite3_free(r);
		sqlite3_result_error(ctx, full, -1);
		return NULL;
	}
	pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE);
	if (!(r->md = pcre2_match_data_create_from_pattern(r->re, NULL))) {
		pcre2_code_free(r->re);
		sqlite3_free(r);
		sqlite3_result_error_nomem(ctx);
		return NULL;
	}
	return r;
}

/* The compiled pattern of argument 0, from the connection's cache; NULL for a NULL pattern or on error. */
static struct regex *regex_get(sqlite3_context *ctx, sqlite3_value *arg)
{
	struct regex_cache *c = sqlite3_user_data(ctx);
	const unsigned char *pat = sqlite3_value_text(arg);
	struct regex *r;
	char *copy;
	int len, i;
	if (!pat)
		return NULL;	/* NULL, as SQL operators give for a NULL operand */
	len = sqlite3_value_bytes(arg);
	for (i = 0; i < REGEX_CACHE; i++)
		if (c->e[i] && (int)strlen(c->pat[i]) == len && !memcmp(c->pat[i], pat, (size_t)len))
			return c->e[i];
	if (!(copy = sqlite3_mprintf("%s", (const char *)pat))) {
		sqlite3_result_error_nomem(ctx);
		return NULL;
	}
	if (!(r = regex_compile(ctx, pat, len))) {
		sqlite3_free(copy);
		return NULL;
	}
	i = c->next;
	c->next = (c->next + 1) % REGEX_CACHE;
	if (c->e[i]) {
		regex_free(c->e[i]);
		sqlite3_free(c->pat[i]);
	}
	c->e[i] = r;
	c->pat[i] = copy;
	return r;
}

/* regexp(pattern, text): 1 when text matches the PCRE2 pattern anywhere, 0 if not; NULL when either is NULL. */
static void sql_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct regex *r = regex_get(ctx, argv[0]);
	const unsigned char *text;
	int rc;
	(void)argc;
	if (!r || !(text = sqlite3_value_text(argv[1])))
		return;
	rc = pcre2_match(r->re, text, (PCRE2_SIZE)sqlite3_value_bytes(argv[1]), 0, 0, r->md, NULL);
	sqlite3_result_int(ctx, rc >= 0);
}

/* A scalar of one text argument that rewrites it into a buffer: NULL stays NULL. */
static void text_fn(sqlite3_context *ctx, sqlite3_value *x, void (*fn)(const char *, struct buf *))
{
	const char *s = (const char *)sqlite3_value_text(x);
	struct buf b;
	if (!s)
		return;
	buf_init(&b);
	fn(s, &b);
	sqlite3_result_text(ctx, b.s, (int)b.len, SQLITE_TRANSIENT);
	buf_release(&b);
}

static void sql_short_name(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	text_fn(ctx, argv[0], name_short);
}

static void sql_fold_name(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	text_fn(ctx, argv[0], range_name_clean);
}

/* fmt_ns(ns): a time as gpuprof's tables show one (lib/table.c): "850 ns", "1.234 us", "12.345 ms", "2.500 s". */
static void sql_fmt_ns(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char out[48];
	(void)argc;
	if (sqlite3_value_numeric_type(argv[0]) == SQLITE_NULL)
		return;
	fmt_ns(out, sizeof(out), sqlite3_value_double(argv[0]));
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* ---- registration ---- */

static const struct sqlfn {
	const char *name;
	int nargs;
	void (*fn)(sqlite3_context *, int, sqlite3_value **);		/* scalars */
	void (*step)(sqlite3_context *, int, sqlite3_value **);		/* aggregates */
	void (*final)(sqlite3_context *);
} functions[] = {
	{ "median", 1, NULL, vals_step, median_final },
	{ "stddev_samp", 1, NULL, vals_step, stddev_final },
	{ "percentile", 2, NULL, percentile_step, percentile_final },
	{ "busy_union", 2, NULL, busy_step, busy_final },
	{ "regexp", 2, sql_regexp, NULL, NULL },
	{ "short_name", 1, sql_short_name, NULL, NULL },
	{ "fold_name", 1, sql_fold_name, NULL, NULL },
	{ "fmt_ns", 1, sql_fmt_ns, NULL, NULL },
};

int gpuprof_sqlite_register(sqlite3 *db)
{
	size_t i;
	int rc;
	for (i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		const struct sqlfn *f = &functions[i];
		struct regex_cache *cache = NULL;
		if (f->fn == sql_regexp) {
			if (!(cache = sqlite3_malloc(sizeof(*cache))))
				return SQLITE_NOMEM;
			memset(cache, 0, sizeof(*cache));
		}
		/* The cache is freed with the function (at once when registering it fails). */
		rc = sqlite3_create_function_v2(db, f->name, f->nargs, SQLITE_UTF8 | SQLITE_DETERMINISTIC |
						SQLITE_INNOCUOUS, cache, f->fn, f->step, f->final,
						cache ? regex_cache_free : NULL);
		if (rc != SQLITE_OK)
			return rc;
	}
	if ((rc = gpuprof_sqlite_fmt(db)) != SQLITE_OK || (rc = gpuprof_sqlite_memory(db)) != SQLITE_OK ||
	    (rc = gpuprof_sqlite_nest(db)) != SQLITE_OK || (rc = gpuprof_sqlite_ops(db)) != SQLITE_OK ||
	    (rc = gpuprof_sqlite_module(db)) != SQLITE_OK)
		return rc;
	return gpuprof_sqlite_tables(db);
}
