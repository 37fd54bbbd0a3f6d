#include "decode.h"
#include "intmap.h"
#include "json.h"
#include "lines.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DECODE_SLOTS 4
#define DECODE_INLINE_MAX (256 << 10)	/* files up to this size on disk are decoded on the caller's thread */

struct decoder {
	char *path;			/* for messages */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, emptied;
	struct item slots[DECODE_SLOTS];
	size_t head, tail, count;	/* head: next to fill; tail: next to hand out */
	int stop;			/* the consumer gave up */
	int handed;			/* the consumer holds slots[tail - 1] */
	int threaded;			/* 0: no thread, decode_next decodes into slots[0] */
	int last;			/* unthreaded: the last item was handed out */

	struct lines *in;
	struct json_doc doc;
	int header_seen;
	int64_t version, origin;
	struct intmap ids;		/* declared wire string ids */
};

static int id_declared(const struct decoder *d, int64_t id)
{
	int64_t unused;
	return intmap_get(&d->ids, id, &unused);
}

static int rejectf(struct item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rejectf(struct item *it, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(it->reason, sizeof(it->reason), fmt, ap);
	va_end(ap);
	it->kind = IT_REJECT;
	return 0;
}

static const char *kind_name(enum field_kind k)
{
	switch (k) {
	case F_TIME: case F_INT: case F_OPT: return "an integer";
	case F_TIMEN: case F_INTN: case F_OPTN: return "an integer or null";
	case F_NUM: return "a number or null";
	case F_STR: case F_STRTEXT: return "a string id";
	case F_TEXT: return "a string";
	}
	return "a value";
}

static int kind_accepts(enum field_kind k, const struct jnode *v)
{
	switch (k) {
	case F_TIME: case F_INT: case F_OPT: case F_STR: case F_STRTEXT:
		return v->type == J_INT;
	case F_TIMEN: case F_INTN: case F_OPTN:
		return v->type == J_INT || v->type == J_NULL;
	case F_NUM:
		return v->type == J_INT || v->type == J_REAL || v->type == J_NULL;
	case F_TEXT:
		return v->type == J_STRING;
	}
	return 0;
}

/* Out of memory decoding line it->line: said once, the file's reading ends (IT_FAIL). */
static int oom_fail(struct decoder *d, struct item *it)
{
	error_oom("out of memory reading %s:%lld", d->path, (long long)it->line);
	it->kind = IT_FAIL;
	return 1;
}

/* A lazy array that ended early: out of memory, or its JSON is invalid (the line is rejected). */
static void iter_fail(struct decoder *d, struct item *it, const struct json_iter *ji)
{
	if (ji->one.oom)
		oom_fail(d, it);
	else
		rejectf(it, "invalid JSON: %s at column %zu", ji->one.err, ji->one.err_off + 1);
}

/* Read every value of the root's lazy arrays that are not fields of r: their JSON is checked as a whole
 * line's was. 0, or -1 with it rejected (or failed). */
static int check_other_arrays(struct decoder *d, struct item *it, const struct jnode *root, const struct rec_spec *r)
{
	const struct jnode *a;
	for (a = json_first(&d->doc, root); a; a = json_next(&d->doc, a)) {
		struct json_iter ji;
		int c;
		if (!a->lazy)
			continue;
		if (r) {
			for (c = 0; c < r->nfields && strcmp(a->key, r->fields[c].wire); c++)
				;
			if (c < r->nfields && json_get(&d->doc, root, a->key) == a)
				continue;	/* a field, read already */
		} else if ((!strcmp(a->key, "ids") || !strcmp(a->key, "values")) && json_get(&d->doc, root, a->key) == a) {
			continue;
		}
		json_iter_init(&ji, &d->doc, a);
		while (json_iter_next(&ji))
			;
		if (ji.one.err)
			iter_fail(d, it, &ji);
		json_iter_release(&ji);
		if (it->kind == IT_REJECT || it->kind == IT_FAIL)
			return -1;
	}
	return 0;
}

/*
 * Check a batch line whole and decode it into columns; a bad line becomes IT_REJECT, no memory IT_FAIL.
 * The columns are lazy arrays (json.h), read one value at a time: the memory a batch line costs is its
 * text and its decoded columns, not a node per value.
 */
static void decode_batch(struct decoder *d, struct item *it, const struct jnode *root, int t)
{
	const struct rec_spec *r = &rec_specs[t];
	const struct json_doc *doc = &d->doc;
	const struct jnode *cols[REC_MAX_FIELDS];
	int64_t n, i;
	int c, nf = r->nfields;

	if (json_get_i64(doc, root, "seq", &it->seq) || it->seq < 0) {
		rejectf(it, "%s batch: missing or bad \"seq\"", r->wire);
		return;
	}
	if (json_get_i64(doc, root, "n", &n) || n < 1 || n > UINT32_MAX) {
		rejectf(it, "%s batch: missing or bad \"n\"", r->wire);
		return;
	}
	for (c = 0; c < nf; c++) {
		const struct jnode *a = json_get(doc, root, r->fields[c].wire);
		if (!a && r->fields[c].kind == F_OPTN) {
			cols[c] = NULL;	/* an optional key left out: every row NULL */
			continue;
		}
		if (!a) {
			rejectf(it, "%s batch: missing field \"%s\"", r->wire, r->fields[c].wire);
			return;
		}
		if (a->type != J_ARRAY) {
			rejectf(it, "%s batch: field \"%s\" is not an array", r->wire, r->fields[c].wire);
			return;
		}
		if (a->len != n) {
			rejectf(it, "%s batch: field \"%s\" has %u values, expected n = %lld", r->wire,
				r->fields[c].wire, a->len, (long long)n);
			return;
		}
		cols[c] = a;
	}
	if (ALLOC_GROW_SOFT(it->vals, (size_t)(n * nf), it->vals_alloc) ||
	    ALLOC_GROW_SOFT(it->nulls, (size_t)(n * nf), it->nulls_alloc)) {
		oom_fail(d, it);
		return;
	}
	buf_reset(&it->texts);
	/* Column by column: one kind per loop. */
	for (c = 0; c < nf; c++) {
		enum field_kind k = r->fields[c].kind;
		int64_t *out = it->vals + c;
		uint8_t *null = it->nulls + c;
		struct json_iter ji;
		const struct jnode *v;
		if (!cols[c]) {
			for (i = 0; i < n; i++, null += nf)
				*null = 1;
			continue;
		}
		json_iter_init(&ji, doc, cols[c]);
		for (i = 0; i < n; i++, out += nf, null += nf) {
			if (!(v = json_iter_next(&ji))) {
				iter_fail(d, it, &ji);
				json_iter_release(&ji);
				return;
			}
			if (!kind_accepts(k, v)) {
				rejectf(it, "%s batch: field \"%s\" value %lld is not %s", r->wire, r->fields[c].wire,
					(long long)i, kind_name(k));
				json_iter_release(&ji);
				return;
			}
			*null = v->type == J_NULL;
			switch (k) {
			case F_TIME:
			case F_TIMEN:
				if (*null)
					break;
				if (__builtin_add_overflow(d->origin, v->u.i, out)) {
					rejectf(it, "%s batch: field \"%s\" value %lld overflows the time origin", r->wire,
						r->fields[c].wire, (long long)i);
					json_iter_release(&ji);
					return;
				}
				break;
			case F_OPT:
				*out = v->u.i;
				*null = v->u.i < 0;
				break;
			case F_NUM:
				memcpy(out, &v->num, sizeof(double));
				break;
			case F_STR:
			case F_STRTEXT:
				if (!v->u.i && r->fields[c].required) {
					rejectf(it, "%s batch: field \"%s\" needs a string id, not 0", r->wire,
						r->fields[c].wire);
					json_iter_release(&ji);
					return;
				}
				if (v->u.i && !id_declared(d, v->u.i)) {
					rejectf(it, "%s batch: field \"%s\" uses undeclared string id %lld", r->wire,
						r->fields[c].wire, (long long)v->u.i);
					json_iter_release(&ji);
					return;
				}
				*out = v->u.i;
				*null = v->u.i == 0;
				break;
			case F_TEXT:
				*out = (int64_t)it->texts.len;
				if (buf_add_soft(&it->texts, v->u.s, v->len + 1)) {
					json_iter_release(&ji);
					oom_fail(d, it);
					return;
				}
				break;
			default:
				*out = v->u.i;
			}
		}
		it->nuls += ji.one.nuls;
		json_iter_release(&ji);
	}
	if (check_other_arrays(d, it, root, r))
		return;
	it->kind = IT_BATCH;
	it->type = t;
	it->n = n;
}

/* A strings line: its ids become declared if the line is well formed (the writer thread stores them). */
static void check_strings(struct decoder *d, struct item *it, const struct jnode *root)
{
	const struct json_doc *doc = &d->doc;
	const struct jnode *ids = json_get(doc, root, "ids"), *vals = json_get(doc, root, "values"), *a, *b;
	struct json_iter ia, ib;
	int64_t *got = NULL;
	size_t n = 0, alloc = 0, i;
	if (!ids || !vals || ids->type != J_ARRAY || vals->type != J_ARRAY) {
		rejectf(it, "strings: \"ids\" and \"values\" must be arrays");
		return;
	}
	if (ids->len != vals->len) {
		rejectf(it, "strings: %u ids but %u values", ids->len, vals->len);
		return;
	}
	json_iter_init(&ia, doc, ids);
	json_iter_init(&ib, doc, vals);
	for (;;) {
		a = json_iter_next(&ia);
		b = json_iter_next(&ib);
		if (!a || !b) {
			if (ia.one.err || ib.one.err)
				iter_fail(d, it, ia.one.err ? &ia : &ib);
			break;
		}
		if (a->type != J_INT || a->u.i <= 0) {
			rejectf(it, "strings: ids must be positive integers");
			break;
		}
		if (b->type != J_STRING) {
			rejectf(it, "strings: values must be strings");
			break;
		}
		if (ALLOC_GROW_SOFT(got, n + 1, alloc)) {
			oom_fail(d, it);
			break;
		}
		got[n++] = a->u.i;
	}
	it->nuls += ia.one.nuls + ib.one.nuls;
	json_iter_release(&ia);
	json_iter_release(&ib);
	if (it->kind == IT_LINE && !check_other_arrays(d, it, root, NULL))
		for (i = 0; i < n; i++)
			intmap_put(&d->ids, got[i], 1);
	free(got);
}

/*
 * Whether a line is a batch by its first bytes, {"type":"NAME", as the collector writes every line: such
 * a line is not kept as text (the writer needs the text only of other records), so that a big batch line
 * costs its bytes once. Another spelling is kept as text whatever its type.
 */
static int batch_by_prefix(const char *line, size_t len)
{
	static const char head[] = "{\"type\":\"";
	const char *name = line + sizeof(head) - 1, *q;
	char type[64];
	if (len < sizeof(head) + 1 || memcmp(line, head, sizeof(head) - 1))
		return 0;
	q = memchr(name, '"', len - (sizeof(head) - 1));
	if (!q || (size_t)(q - name) >= sizeof(type) || memchr(name, '\\', (size_t)(q - name)))
		return 0;
	memcpy(type, name, (size_t)(q - name));
	type[q - name] = '\0';
	return rec_by_wire(type) >= 0;
}

/* Fill one item from the next line(s); returns 0 to go on, 1 after the last item. */
static int decode_line(struct decoder *d, struct item *it)
{
	char *line;
	size_t len;
	int complete, rc, t;
	const struct jnode *root;
	const char *type;
	int64_t v;

	for (;;) {
		rc = lines_next(d->in, &line, &len, &complete);
		if (rc <= 0) {
			it->kind = rc < 0 ? IT_FAIL : IT_EOF;
			it->line = lines_number(d->in);
			return 1;
		}
		if (strspn(line, " \t\r") != len)
			break;
	}
	it->line = lines_number(d->in);
	it->first = !d->header_seen;
	snprintf(it->excerpt, sizeof(it->excerpt), "%.*s", (int)(len < EXCERPT ? len : EXCERPT), line);
	buf_reset(&it->text);
	/* Kept (parsing changes the line in place) but for a batch, whose text nothing reads again. */
	if (!batch_by_prefix(line, len) && buf_add_soft(&it->text, line, len))
		return oom_fail(d, it);
	it->nuls = d->doc.nuls;
	rc = json_parse(&d->doc, line, len);
	it->nuls = d->doc.nuls - it->nuls;	/* (a batch's columns add theirs as they are read) */
	if (rc) {
		if (d->doc.oom)
			return oom_fail(d, it);
		if (!complete) {
			it->kind = IT_CUT;
			return 1;
		}
		if (it->first)
			return rejectf(it, "not a gpuprof wire-format file: %s at column %zu", d->doc.err,
				       d->doc.err_off + 1);
		return rejectf(it, "invalid JSON: %s at column %zu", d->doc.err, d->doc.err_off + 1);
	}
	root = json_root(&d->doc);
	type = root->type == J_OBJECT ? json_get_str(&d->doc, root, "type") : NULL;
	if (!type || json_get_i64(&d->doc, root, "v", &v)) {
		if (it->first)
			return rejectf(it, "not a gpuprof wire-format file: the first line has no \"type\" and \"v\"");
		return rejectf(it, "record has no \"type\" (string) and \"v\" (integer)");
	}
	if (!d->header_seen) {
		const char *origin = json_get_str(&d->doc, root, "origin_ns");
		if (strcmp(type, "header"))
			return rejectf(it, "the first line must be the session header, not \"%s\"", type);
		d->header_seen = 1;
		d->version = v;
		if (origin)
			parse_i64(origin, strlen(origin), &d->origin);	/* the writer thread checks it */
		it->kind = IT_LINE;
		return 0;
	}
	if (v > d->version || v < 1)
		return rejectf(it, "record version %lld is newer than the file's header (%lld)", (long long)v,
			       (long long)d->version);
	if ((t = rec_by_wire(type)) >= 0) {
		decode_batch(d, it, root, t);
		return it->kind == IT_FAIL;
	}
	if (!strcmp(type, "strings")) {
		it->kind = IT_LINE;	/* (a slot used again may hold an earlier line's IT_REJECT) */
		check_strings(d, it, root);
		if (it->kind != IT_LINE)
			return it->kind == IT_FAIL;
	} else if (strcmp(type, "header") && strcmp(type, "drops") && strcmp(type, "error") && strcmp(type, "end") &&
		   strcmp(type, "window")) {
		return rejectf(it, "unknown record type \"%s\"", type);
	}
	it->kind = IT_LINE;	/* the writer thread parses its copy in it->text */
	return 0;
}

static void *decode_main(void *arg)
{
	struct decoder *d = arg;
	int last = 0;
	while (!last) {
		struct item *it;
		pthread_mutex_lock(&d->lock);
		while (d->count == DECODE_SLOTS && !d->stop)
			pthread_cond_wait(&d->emptied, &d->lock);
		if (d->stop) {
			pthread_mutex_unlock(&d->lock);
			break;
		}
		it = &d->slots[d->head];
		pthread_mutex_unlock(&d->lock);

		last = decode_line(d, it);

		pthread_mutex_lock(&d->lock);
		d->head = (d->head + 1) % DECODE_SLOTS;
		d->count++;
		pthread_cond_signal(&d->filled);
		pthread_mutex_unlock(&d->lock);
	}
	return NULL;
}

/*
 * A small file is decoded on the caller's thread, a line at a time as decode_next asks: starting a thread
 * and handing each line across costs more than the overlap saves (the same decode_line either way).
 */
struct decoder *decode_start(const char *path)
{
	struct decoder *d;
	struct lines *in = lines_open(path);
	struct stat st;
	int i;
	if (!in)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	d->in = in;
	d->path = xstrdup(path);
	json_doc_init(&d->doc);
	d->doc.lazy = 1;
	d->doc.soft = 1;
	for (i = 0; i < DECODE_SLOTS; i++) {
		buf_init(&d->slots[i].text);
		buf_init(&d->slots[i].texts);
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->filled, NULL);
	pthread_cond_init(&d->emptied, NULL);
	if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size <= DECODE_INLINE_MAX)
		return d;
	d->threaded = 1;
	if (pthread_create(&d->thread, NULL, decode_main, d)) {
		error("%s: cannot start the decoding thread", path);
		lines_close(in);
		free(d->path);
		free(d);
		return NULL;
	}
	return d;
}

const struct item *decode_next(struct decoder *d)
{
	const struct item *it;
	if (!d->threaded) {
		if (!d->last)
			d->last = decode_line(d, &d->slots[0]);
		return &d->slots[0];
	}
	pthread_mutex_lock(&d->lock);
	if (d->handed) {
		/* The consumer is done with the previous item: its slot may be filled again. */
		d->handed = 0;
		d->tail = (d->tail + 1) % DECODE_SLOTS;
		d->count--;
		pthread_cond_signal(&d->emptied);
	}
	while (d->count == 0)
		pthread_cond_wait(&d->filled, &d->lock);
	it = &d->slots[d->tail];
	d->handed = 1;
	pthread_mutex_unlock(&d->lock);
	return it;
}

void decode_finish(struct decoder *d)
{
	int i;
	if (!d)
		return;
	if (d->threaded) {
		pthread_mutex_lock(&d->lock);
		d->stop = 1;
		pthread_cond_broadcast(&d->emptied);
		pthread_mutex_unlock(&d->lock);
		pthread_join(d->thread, NULL);
	}
	for (i = 0; i < DECODE_SLOTS; i++) {
		buf_release(&d->slots[i].text);
		buf_release(&d->slots[i].texts);
		free(d->slots[i].vals);
		free(d->slots[i].nulls);
	}
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->filled);
	pthread_cond_destroy(&d->emptied);
	json_doc_release(&d->doc);
	intmap_release(&d->ids);
	lines_close(d->in);
	free(d->path);
	free(d);
}
