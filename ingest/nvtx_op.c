/*
 * nvtx_op: emit_nvtx's range text parsed (see nvtx_op.h).
 */
#include "nvtx_op.h"

#include <string.h>

/* A cursor over the text. */
struct cur {
	const char *p, *end;
};

/* Consume s when the text continues with it: 1, else 0 (nothing consumed). */
static int eat(struct cur *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return 0;
	c->p += n;
	return 1;
}

/* A decimal integer (a '-' allowed: ROCm's sequence numbers) into *v: 1, or 0 when none or it overflows. */
static int integer(struct cur *c, int64_t *v)
{
	int neg = c->p < c->end && *c->p == '-';
	uint64_t x = 0;
	const char *start = c->p + neg, *q;
	for (q = start; q < c->end && *q >= '0' && *q <= '9'; q++) {
		if (x > (UINT64_MAX - 9) / 10)
			return 0;
		x = x * 10 + (uint64_t)(*q - '0');
	}
	if (q == start || x > (uint64_t)INT64_MAX + (uint64_t)neg)
		return 0;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	c->p = q;
	return 1;
}

/* "[a, b, ...]" of elements that elem reads ("[]" when none): 1, or 0 (cursor then undefined). */
static int list(struct cur *c, int (*elem)(struct cur *c))
{
	if (!eat(c, "["))
		return 0;
	if (eat(c, "]"))
		return 1;
	do {
		if (!elem(c))
			return 0;
	} while (eat(c, ", "));
	return eat(c, "]");
}

static int dim(struct cur *c)
{
	int64_t v;
	return integer(c, &v);
}

/* One input's shape: "[8, 4]", "[]" for an input that is no tensor. */
static int shape(struct cur *c)
{
	return list(c, dim);
}

/* One input edge: "(id,output)". */
static int edge(struct cur *c)
{
	int64_t v;
	return eat(c, "(") && integer(c, &v) && eat(c, ",") && integer(c, &v) && eat(c, ")");
}

/* The fields after the name, from its ", " on, to the end: 1 with op filled, else 0. */
static int tail(struct cur c, struct nvtx_op *op)
{
	const char *at;
	op->has_seq = op->has_op_id = 0;
	op->sizes = NULL;
	op->sizes_len = 0;
	if (eat(&c, ", seq = ")) {
		if (!integer(&c, &op->seq))
			return 0;
		op->has_seq = 1;
	}
	if (eat(&c, ", op_id = ")) {
		if (!integer(&c, &op->op_id))
			return 0;
		op->has_op_id = 1;
	}
	if (eat(&c, ", sizes = ")) {
		at = c.p;
		if (!list(&c, shape))
			return 0;
		op->sizes = at;
		op->sizes_len = (size_t)(c.p - at);
	}
	if (eat(&c, ", input_op_ids = ") && !list(&c, edge))
		return 0;
	return c.p == c.end && (op->has_seq || op->has_op_id || op->sizes);
}

int nvtx_op_parse(const char *text, size_t len, struct nvtx_op *op)
{
	const char *p = text, *end = text + len;
	while ((p = memchr(p, ',', (size_t)(end - p))) != NULL) {
		struct cur c = { p, end };
		if (p > text && tail(c, op)) {
			op->name_len = (size_t)(p - text);
			return 1;
		}
		p++;
	}
	return 0;
}
