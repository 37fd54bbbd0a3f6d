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

/* Check a batch line whole and decode it into columns; a bad line becomes IT_REJECT. */
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
		cols[c] = json_first(doc, a);
	}
	ALLOC_GROW(it->vals, (size_t)(n * nf), it->vals_alloc);
	ALLOC_GROW(it->nulls, (size_t)(n * nf), it->nulls_alloc);
	buf_reset(&it->texts);
	/* Column by column: one kind per loop, and scalars of an array are consecutive nodes. */
	for (c = 0; c < nf; c++) {
		enum field_kind k = r->fields[c].kind;
		const struct jnode *v = cols[c];
		int64_t *out = it->vals + c;
		uint8_t *null = it->nulls + c;
		if (!v) {
			for (i = 0; i < n; i++, null += nf)
				*null = 1;
			continue;
		}
		for (i = 0; i < n; i++, v++, out += nf, null += nf) {
			if (!kind_accepts(k, v)) {
				rejectf(it, "%s batch: field \"%s\" value %lld is not %s", r->wire, r->fields[c].wire,
					(long long)i, kind_name(k));
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
					return;
				}
				if (v->u.i && !id_declared(d, v->u.i)) {
					rejectf(it, "%s batch: field \"%s\" uses undeclared string id %lld", r->wire,
						r->fields[c].wire, (long long)v->u.i);
					return;
				}
				*out = v->u.i;
				*null = v->u.i == 0;
				break;
			case F_TEXT:
				*out = (int64_t)it->texts.len;
				buf_add(&it->texts, v->u.s, v->len + 1);
				break;
			default:
				*out = v->u.i;
			}
		}
	}
	it->kind = IT_BATCH;
	it->type = t;
	it->n = n;
}

/* A strings line: its ids become declared if the line is well formed (the writer thread stores them). */
static void check_strings(struct decoder *d, struct item *it, const struct jnode *root)
{
	const struct json_doc *doc = &d->doc;
	const struct jnode *ids = json_get(doc, root, "ids"), *vals = json_get(doc, root, "values"), *a, *b;
	if (!ids || !vals || ids->type != J_ARRAY || vals->type != J_ARRAY) {
		rejectf(it, "strings: \"ids\" and \"values\" must be arrays");
		return;
	}
	if (ids->len != vals->len) {
		rejectf(it, "strings: %u ids but %u values", ids->len, vals->len);
		return;
	}
	for (a = json_first(doc, ids), b = json_first(doc, vals); a; a = json_next(doc, a), b = json_next(doc, b)) {
		if (a->type != J_INT || a->u.i <= 0) {
			rejectf(it, "strings: ids must be positive integers");
			return;
		}
		if (b->type != J_STRING) {
			rejectf(it, "strings: values must be strings");
			return;
		}
	}
	for (a = json_first(doc, ids); a; a = json_next(doc, a))
		intmap_put(&d->ids, a->u.i, 1);
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
	buf_add(&it->text, line, len);	/* kept: parsing changes the line in place */
	it->nuls = d->doc.nuls;
	rc = json_parse(&d->doc, line, len);
	it->nuls = d->doc.nuls - it->nuls;
	if (rc) {
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
		return 0;
	}
	if (!strcmp(type, "strings")) {
		it->kind = IT_LINE;	/* (a slot used again may hold an earlier line's IT_REJECT) */
		check_strings(d, it, root);
		if (it->kind == IT_REJECT)
			return 0;
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
	json_doc_init(&d->doc);
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
	free(d);
}
