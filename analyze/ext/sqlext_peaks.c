/*
 * GPU peaks (see sqlext.h): gpu_peaks(text [, file]), the directives of a text in analyze/gpu-peaks.rules'
 * format as rows (each `type` line, then each `peak` line with its model's pattern), checked at load: every
 * field, every model's samples against the patterns, nothing twice. Compiled twice like analyze/ext/sqlext.c.
 *
 * Ownership: a cursor owns its parsed lines (freed by xClose or the next xFilter).
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The data types a peak or a type line may name. */
static const char *const dtypes[] = { "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8" };

/* One `gpu` line: a model and its compiled pattern. */
struct model {
	char *name, *pattern;
	pcre2_code *re;
	int line, samples, peaks;
};

/* One row: a `type` line (gpu NULL) or a `peak` line. */
struct peak_row {
	int line, gpu;		/* gpu: index into models, -1 for a type line */
	char *dtype, *torch;	/* type line: the data type and PyTorch's name */
	double tflops;		/* peak line */
	char *source;
};

struct peaks {
	const char *file;	/* for messages */
	struct model *m;
	size_t nm, am;
	struct peak_row *r;
	size_t nr, ar;
	pcre2_match_data *md;
	char *msg;		/* what went wrong (sqlite3_malloc'd), or NULL */
};

/* Keep the message for the caller; returns -1. */
#define peaks_error(p, ...) sqlext_fail(&(p)->msg, __VA_ARGS__)

static void peaks_release(struct peaks *p)
{
	size_t i;
	for (i = 0; i < p->nm; i++) {
		free(p->m[i].name);
		free(p->m[i].pattern);
		pcre2_code_free(p->m[i].re);
	}
	for (i = 0; i < p->nr; i++) {
		free(p->r[i].dtype);
		free(p->r[i].torch);
		free(p->r[i].source);
	}
	sqlite3_free(p->m);	/* sqlext_grow's */
	sqlite3_free(p->r);
	pcre2_match_data_free(p->md);
	sqlite3_free(p->msg);
	memset(p, 0, sizeof(*p));
}

/* A field: s[0..len) copied, NUL-terminated (sqlite3-independent malloc); NULL when out of memory. */
static char *field_dup(const char *s, size_t len)
{
	char *d = malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

static int valid_dtype(const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (strlen(dtypes[i]) == len && !memcmp(dtypes[i], s, len))
			return 1;
	return 0;
}

/* The model named s[0..len), or -1. */
static int model_index(const struct peaks *p, const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < p->nm; i++)
		if (strlen(p->m[i].name) == len && !memcmp(p->m[i].name, s, len))
			return (int)i;
	return -1;
}

/* The first model whose pattern matches name, or -1. */
static int model_match(const struct peaks *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->nm; i++)
		if (pcre2_match(p->m[i].re, (PCRE2_SPTR)name, strlen(name), 0, 0, p->md, NULL) >= 0)
			return (int)i;
	return -1;
}

static struct peak_row *add_row(struct peaks *p, int line, int gpu)
{
	struct peak_row *r;
	if (sqlext_grow((void **)&p->r, &p->ar, p->nr + 1, sizeof(*p->r)))
		return NULL;
	r = &p->r[p->nr++];
	memset(r, 0, sizeof(*r));
	r->line = line;
	r->gpu = gpu;
	return r;
}

/* A `gpu NAME PATTERN` line; -1 with a message. */
static int add_model(struct peaks *p, const struct sqlext_words *w, int line)
{
	struct model *m;
	char why[300];
	if (w->n < 3)
		return peaks_error(p, "%s:%d: a gpu line needs a name and a pattern", p->file, line);
	if (!sqlext_valid_name(w->w[1], w->len[1]))
		return peaks_error(p, "%s:%d: bad GPU name '%.*s' (up to 32 lowercase letters, digits and _)", p->file,
				   line, (int)w->len[1], w->w[1]);
	if (model_index(p, w->w[1], w->len[1]) >= 0)
		return peaks_error(p, "%s:%d: GPU '%.*s' is declared twice", p->file, line, (int)w->len[1], w->w[1]);
	if (sqlext_grow((void **)&p->m, &p->am, p->nm + 1, sizeof(*p->m)))
		return peaks_error(p, "out of memory");
	m = &p->m[p->nm];
	memset(m, 0, sizeof(*m));
	m->line = line;
	if (!(m->name = field_dup(w->w[1], w->len[1])) || !(m->pattern = field_dup(w->w[2], w->len[2]))) {
		free(m->name);
		return peaks_error(p, "out of memory");
	}
	if (!(m->re = sqlext_regex(m->pattern, why))) {
		peaks_error(p, "%s:%d: bad regular expression '%s' of GPU '%s': %s", p->file, line, m->pattern,
			    m->name, why);
		free(m->name);
		free(m->pattern);
		return -1;
	}
	p->nm++;
	return 0;
}

/* A `sample NAME DEVICE` line: the last gpu line's, claimed by its pattern first; -1 with a message. */
static int check_sample(struct peaks *p, const struct sqlext_words *w, int line)
{
	struct model *m = p->nm ? &p->m[p->nm - 1] : NULL;
	char *device;
	int first;
	if (!m)
		return peaks_error(p, "%s:%d: sample before any gpu line", p->file, line);
	if (w->n < 3)
		return peaks_error(p, "%s:%d: a sample needs a GPU name and a device name", p->file, line);
	if (model_index(p, w->w[1], w->len[1]) != (int)p->nm - 1)
		return peaks_error(p, "%s:%d: sample of '%.*s' follows gpu '%s' (line %d)", p->file, line,
				   (int)w->len[1], w->w[1], m->name, m->line);
	if (!(device = field_dup(w->w[2], w->len[2])))
		return peaks_error(p, "out of memory");
	first = model_match(p, device);
	if (first < 0)
		peaks_error(p, "%s:%d: GPU '%s' (line %d) does not match its sample '%s'", p->file, line, m->name,
			    m->line, device);
	else if (first != (int)p->nm - 1)
		peaks_error(p, "%s:%d: sample '%s' of GPU '%s' (line %d) is claimed first by GPU '%s' (line %d)",
			    p->file, line, device, m->name, m->line, p->m[first].name, p->m[first].line);
	free(device);
	if (first != (int)p->nm - 1)
		return -1;
	m->samples++;
	return 0;
}

/* A `peak NAME DTYPE TFLOPS SOURCE` line; -1 with a message. */
static int add_peak(struct peaks *p, const char *s, const char *end, int line)
{
	struct sqlext_words w;
	struct peak_row *r;
	char num[64], *stop;
	double v;
	int gpu;
	size_t i;
	sqlext_split(s, end, 4, &w);	/* "peak" was taken off */
	if (w.n < 4)
		return peaks_error(p, "%s:%d: a peak line needs a GPU name, a data type, TFLOP/s and a source", p->file,
				   line);
	if ((gpu = model_index(p, w.w[0], w.len[0])) < 0)
		return peaks_error(p, "%s:%d: peak of GPU '%.*s', which no gpu line before it declares", p->file, line,
				   (int)w.len[0], w.w[0]);
	if (!valid_dtype(w.w[1], w.len[1]))
		return peaks_error(p, "%s:%d: unknown data type '%.*s' (fp64, fp32, tf32, fp16, bf16, fp8 or int8)",
				   p->file, line, (int)w.len[1], w.w[1]);
	snprintf(num, sizeof(num), "%.*s", (int)w.len[2], w.w[2]);
	v = strtod(num, &stop);
	if (stop == num || *stop || !(v > 0) || !isfinite(v) || w.len[2] >= sizeof(num))
		return peaks_error(p, "%s:%d: peak '%.*s' is not a number of TFLOP/s above 0", p->file, line,
				   (int)w.len[2], w.w[2]);
	for (i = 0; i < p->nr; i++)
		if (p->r[i].gpu == gpu && !strncmp(p->r[i].dtype, w.w[1], w.len[1]) && !p->r[i].dtype[w.len[1]])
			return peaks_error(p, "%s:%d: a second %.*s peak of GPU '%s' (the first on line %d)", p->file,
					   line, (int)w.len[1], w.w[1], p->m[gpu].name, p->r[i].line);
	if (!(r = add_row(p, line, gpu)) || !(r->dtype = field_dup(w.w[1], w.len[1])) ||
	    !(r->source = field_dup(w.w[3], w.len[3])))
		return peaks_error(p, "out of memory");
	r->tflops = v;
	p->m[gpu].peaks++;
	return 0;
}

/* A `type DTYPE TORCH_NAME` line; -1 with a message. */
static int add_type(struct peaks *p, const char *s, const char *end, int line)
{
	struct sqlext_words w;
	struct peak_row *r;
	size_t i;
	sqlext_split(s, end, 2, &w);
	if (w.n < 2)
		return peaks_error(p, "%s:%d: a type line needs a data type and PyTorch's name of it", p->file, line);
	if (!valid_dtype(w.w[0], w.len[0]))
		return peaks_error(p, "%s:%d: unknown data type '%.*s' (fp64, fp32, tf32, fp16, bf16, fp8 or int8)",
				   p->file, line, (int)w.len[0], w.w[0]);
	for (i = 0; i < p->nr; i++)
		if (p->r[i].gpu < 0 && strlen(p->r[i].torch) == w.len[1] && !memcmp(p->r[i].torch, w.w[1], w.len[1]))
			return peaks_error(p, "%s:%d: type '%s' is given twice (the first on line %d)", p->file, line,
					   p->r[i].torch, p->r[i].line);
	if (!(r = add_row(p, line, -1)) || !(r->dtype = field_dup(w.w[0], w.len[0])) ||
	    !(r->torch = field_dup(w.w[1], w.len[1])))
		return peaks_error(p, "out of memory");
	return 0;
}

/*
 * Load text (the contents of `file`) and check it. 0, or -1 with the message naming the file and line in
 * p->msg (the rest of p released).
 */
static int peaks_load(struct peaks *p, const char *text, const char *file)
{
	const char *s = text, *kw, *end;
	int line = 0, rc = 0;
	size_t i;
	memset(p, 0, sizeof(*p));
	p->file = file;
	if (!(p->md = pcre2_match_data_create(1, NULL)))
		return peaks_error(p, "out of memory");
	while (!rc && sqlext_rules_line(&s, &line, &kw, &end)) {
		struct sqlext_words w;
		sqlext_split(kw, end, 3, &w);
		if (w.len[0] == 3 && !memcmp(w.w[0], "gpu", 3))
			rc = add_model(p, &w, line);
		else if (w.len[0] == 6 && !memcmp(w.w[0], "sample", 6))
			rc = check_sample(p, &w, line);
		else if (w.len[0] == 4 && !memcmp(w.w[0], "peak", 4))
			rc = add_peak(p, kw + 4, end, line);
		else if (w.len[0] == 4 && !memcmp(w.w[0], "type", 4))
			rc = add_type(p, kw + 4, end, line);
		else
			rc = peaks_error(p, "%s:%d: unknown directive '%.*s' (type, gpu, sample or peak)", file, line,
					 (int)w.len[0], w.w[0]);
	}
	for (i = 0; i < p->nm && !rc; i++)
		if (!p->m[i].samples || !p->m[i].peaks)
			rc = peaks_error(p, "%s:%d: GPU '%s' has no %s (add a '%s %s ...' line after it)", file,
					 p->m[i].line, p->m[i].name, p->m[i].samples ? "peak" : "sample",
					 p->m[i].samples ? "peak" : "sample", p->m[i].name);
	if (rc) {
		char *msg = p->msg;
		p->msg = NULL;
		peaks_release(p);
		p->msg = msg;
	}
	return rc;
}

enum { GP_KIND, GP_LINE, GP_GPU, GP_GPU_ORD, GP_PATTERN, GP_DTYPE, GP_TORCH, GP_TFLOPS, GP_SOURCE, GP_TEXT, GP_FILE };

struct gp_cursor {
	struct sqlext_list_cursor l;	/* over p.r */
	struct peaks p;
};

static int gp_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	return sqlext_connect(db, "CREATE TABLE x(kind TEXT, line INTEGER, gpu TEXT, gpu_ord INTEGER, pattern TEXT, "
			      "dtype TEXT, torch_name TEXT, tflops REAL, source TEXT, text HIDDEN, file HIDDEN)",
			      NULL, out);
}

static int gp_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	(void)v;
	return sqlext_args_best_index(ix, GP_TEXT, 2, 1);
}

static int gp_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	(void)v;
	return sqlext_list_open(out, sizeof(struct gp_cursor));
}

static int gp_close(sqlite3_vtab_cursor *cur)
{
	struct gp_cursor *c = (struct gp_cursor *)cur;
	peaks_release(&c->p);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int gp_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct gp_cursor *c = (struct gp_cursor *)cur;
	const char *text = (const char *)sqlite3_value_text(argv[0]);
	const char *file = idx & 2 && argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
	(void)idxstr;
	peaks_release(&c->p);
	c->l.i = c->l.n = 0;
	if (!text)
		return SQLITE_OK;	/* NULL text: no rows */
	if (peaks_load(&c->p, text, file ? file : "peaks"))
		return sqlext_vt_error(cur, SQLITE_ERROR, c->p.msg);
	c->l.n = c->p.nr;
	return SQLITE_OK;
}

static int gp_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct gp_cursor *c = (struct gp_cursor *)cur;
	const struct peak_row *r = &c->p.r[c->l.i];
	const struct model *m = r->gpu >= 0 ? &c->p.m[r->gpu] : NULL;
	switch (k) {
	case GP_KIND: sqlite3_result_text(ctx, m ? "peak" : "type", -1, SQLITE_STATIC); break;
	case GP_LINE: sqlite3_result_int(ctx, r->line); break;
	case GP_GPU: if (m) sqlite3_result_text(ctx, m->name, -1, SQLITE_TRANSIENT); break;
	case GP_GPU_ORD: if (m) sqlite3_result_int(ctx, r->gpu + 1); break;
	case GP_PATTERN: if (m) sqlite3_result_text(ctx, m->pattern, -1, SQLITE_TRANSIENT); break;
	case GP_DTYPE: sqlite3_result_text(ctx, r->dtype, -1, SQLITE_TRANSIENT); break;
	case GP_TORCH: if (r->torch) sqlite3_result_text(ctx, r->torch, -1, SQLITE_TRANSIENT); break;
	case GP_TFLOPS: if (m) sqlite3_result_double(ctx, r->tflops); break;
	case GP_SOURCE: if (r->source) sqlite3_result_text(ctx, r->source, -1, SQLITE_TRANSIENT); break;
	default: break;	/* the arguments read back NULL */
	}
	return SQLITE_OK;
}

static sqlite3_module gp_module = {
	.iVersion = 0,
	.xConnect = gp_connect,
	.xBestIndex = gp_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = gp_open,
	.xClose = gp_close,
	.xFilter = gp_filter,
	.xNext = sqlext_list_next,
	.xEof = sqlext_list_eof,
	.xColumn = gp_column,
	.xRowid = sqlext_list_rowid,
};

int gpuprof_sqlite_peaks(sqlite3 *db)
{
	return sqlite3_create_module(db, "gpu_peaks", &gp_module, NULL);
}
