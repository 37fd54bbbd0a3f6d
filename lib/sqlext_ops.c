/*
 * The operator layer's SQL functions (see sqlext.h): op_nest, the nesting of PyTorch ops and the ops of
 * runtime calls, as a window function; op_flops and op_bytes, an op's FLOPs and bytes from its recorded
 * shapes. Compiled twice like lib/sqlext.c: into gpuprof's programs and into the extension.
 *
 * op_nest is a stack walk over one thread's ops and calls in time order. Said in plain SQL (tests/ops.py
 * holds the two equal on every shared trace), an op's parent is
 *   SELECT p.op FROM ops p WHERE <same pid, thread> AND p.start_ns <= o.start_ns AND p.end_ns >= o.end_ns
 *     AND p sorts before o ORDER BY p.start_ns DESC, p.end_ns, p.ord DESC LIMIT 1
 * and a call's op the same with p.start_ns <= c.start_ns AND p.end_ns >= c.start_ns (every op sorts before
 * the calls that start with it): a correlated search per row, minutes over a million ops; the walk is one
 * pass.
 *
 * op_flops counts as torch.utils.flop_counter does (mm_flop, addmm_flop, bmm_flop, baddbmm_flop,
 * conv_flop_count, sdpa_flop_count, sdpa_backward_flop_count), from Kineto's "Input Dims" (and "Concrete
 * Inputs" for a convolution's stride, padding and dilation, and attention's is_causal), with one change:
 * causal attention counts half (flop_counter counts it whole).
 */
#ifdef GPUPROF_SQLITE_LOADABLE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#endif

#include "sqlext.h"
#include "sqlext_int.h"
#include "json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- op_nest ---- */

struct opn_open {
	int64_t end;
	sqlite3_value *id;	/* sqlite3_value_dup'd */
};

struct opn {
	struct opn_open *stack;
	size_t depth, cap;
	sqlite3_value *row;	/* the current row's answer (borrowed from the stack), or NULL */
};

static void opn_pop(struct opn *n)
{
	sqlite3_value_free(n->stack[--n->depth].id);
}

/*
 * op_nest(kind, id, start_ns, end_ns): kind 0, an op: pops the open ops that end before it ends (they do
 * not contain it), answers the top's id (its parent; NULL when none) and is pushed. Kind 1, a call: pops
 * the open ops that end before it starts and answers the top's id (the innermost op containing its start).
 */
static void opn_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct opn *n = sqlite3_aggregate_context(ctx, sizeof(*n));
	int kind = sqlite3_value_int(argv[0]);
	int64_t start = sqlite3_value_int64(argv[2]), end = sqlite3_value_int64(argv[3]);
	int64_t bound = kind == 0 ? end : start;
	(void)argc;
	if (!n)
		goto nomem;
	while (n->depth && n->stack[n->depth - 1].end < bound)
		opn_pop(n);
	n->row = n->depth ? n->stack[n->depth - 1].id : NULL;
	if (kind != 0)
		return;
	if (sqlext_grow((void **)&n->stack, &n->cap, n->depth + 1, sizeof(*n->stack)))
		goto nomem;
	/* The parent's value is kept on the stack below the new top. */
	if (!(n->stack[n->depth].id = sqlite3_value_dup(argv[1])))
		goto nomem;
	n->stack[n->depth].end = end;
	n->depth++;
	return;
nomem:
	sqlite3_result_error_nomem(ctx);
}

static void opn_value(sqlite3_context *ctx)
{
	struct opn *n = sqlite3_aggregate_context(ctx, 0);
	if (n && n->row)
		sqlite3_result_value(ctx, n->row);
}

static void opn_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc, (void)argv;
	sqlite3_result_error(ctx, "op_nest() needs a frame from the partition's first row (ROWS UNBOUNDED PRECEDING)",
			     -1);
}

static void opn_final(sqlite3_context *ctx)
{
	struct opn *n = sqlite3_aggregate_context(ctx, 0);
	if (!n)
		return;
	opn_value(ctx);
	while (n->depth)
		opn_pop(n);
	sqlite3_free(n->stack);
}

/* ---- op_flops, op_bytes ---- */

enum opf_kind { OPF_MM, OPF_ADDMM, OPF_BMM, OPF_BADDBMM, OPF_CONV, OPF_SDPA, OPF_SDPA_BWD };

/*
 * An op with a formula, and where its arguments are in "Input Dims" / "Concrete Inputs" (positions as the
 * op's schema in native_functions.yaml; -1 none). Convolutions: input 0, weight 1.
 */
static const struct opf_rule {
	const char *name;
	enum opf_kind kind;
	int a, b;		/* the two matrices (mm family); SDPA: query (key, value follow) */
	int stride, padding, dilation, transposed;	/* convolutions */
	int causal;		/* SDPA: is_causal */
	int transposed_always;	/* cudnn_convolution_transpose */
} opf_rules[] = {
	{ "aten::mm", OPF_MM, 0, 1, -1, -1, -1, -1, -1, 0 },
	{ "aten::addmm", OPF_ADDMM, 1, 2, -1, -1, -1, -1, -1, 0 },
	{ "aten::bmm", OPF_BMM, 0, 1, -1, -1, -1, -1, -1, 0 },
	{ "aten::baddbmm", OPF_BADDBMM, 1, 2, -1, -1, -1, -1, -1, 0 },
	/* (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, ...) */
	{ "aten::convolution", OPF_CONV, 0, 1, 3, 4, 5, 6, -1, 0 },
	{ "aten::_convolution", OPF_CONV, 0, 1, 3, 4, 5, 6, -1, 0 },
	/* (self, weight, padding, stride, dilation, groups, ...) */
	{ "aten::cudnn_convolution", OPF_CONV, 0, 1, 3, 2, 4, -1, -1, 0 },
	/* (self, weight, padding, output_padding, stride, dilation, groups, ...) */
	{ "aten::cudnn_convolution_transpose", OPF_CONV, 0, 1, 4, 2, 5, -1, -1, 1 },
	/* (self, weight, bias, padding, stride, dilation, groups, ...) */
	{ "aten::miopen_convolution", OPF_CONV, 0, 1, 4, 3, 5, -1, -1, 0 },
	/* (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, ...) */
	{ "aten::_scaled_dot_product_efficient_attention", OPF_SDPA, 0, 0, -1, -1, -1, -1, 6, 0 },
	/* (query, key, value, dropout_p, is_causal, ...) */
	{ "aten::_scaled_dot_product_flash_attention", OPF_SDPA, 0, 0, -1, -1, -1, -1, 4, 0 },
	/* (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, ...) */
	{ "aten::_scaled_dot_product_cudnn_attention", OPF_SDPA, 0, 0, -1, -1, -1, -1, 6, 0 },
	/* (grad_out, query, key, value, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p,
	   grad_input_mask, is_causal, ...) */
	{ "aten::_scaled_dot_product_efficient_attention_backward", OPF_SDPA_BWD, 1, 0, -1, -1, -1, -1, 11, 0 },
	/* (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
	   is_causal, ...) */
	{ "aten::_scaled_dot_product_flash_attention_backward", OPF_SDPA_BWD, 1, 0, -1, -1, -1, -1, 11, 0 },
	/* (grad_out, query, key, value, out, logsumexp, philox_seed, philox_offset, attn_bias, cum_seq_q,
	   cum_seq_k, max_q, max_k, dropout_p, is_causal, ...) */
	{ "aten::_scaled_dot_product_cudnn_attention_backward", OPF_SDPA_BWD, 1, 0, -1, -1, -1, -1, 14, 0 },
};

#define OPF_MAXDIMS 8

/* One argument's dims: n of them (-1: not a list of integers). */
struct opf_dims {
	int n;
	int64_t d[OPF_MAXDIMS];
};

/* A parsed "Input Dims" (or a Concrete Inputs list's one element) in a sqlite3_malloc'd copy. */
struct opf_args {
	struct json_doc doc;
	char *text;
	const struct jnode *root;
};

static int opf_parse(struct opf_args *a, sqlite3_value *v)
{
	const char *s = (const char *)sqlite3_value_text(v);
	int n = sqlite3_value_bytes(v);
	json_doc_init(&a->doc);
	a->text = NULL;
	a->root = NULL;
	if (!s || !(a->text = sqlite3_malloc(n + 1)))
		return -1;
	memcpy(a->text, s, (size_t)n + 1);
	if (json_parse(&a->doc, a->text, (size_t)n) || json_root(&a->doc)->type != J_ARRAY)
		return -1;
	a->root = json_root(&a->doc);
	return 0;
}

static void opf_release(struct opf_args *a)
{
	json_doc_release(&a->doc);
	sqlite3_free(a->text);
}

/* Element i of array a's root (NULL past the end). */
static const struct jnode *opf_at(const struct opf_args *a, int i)
{
	const struct jnode *c;
	if (!a->root || i < 0)
		return NULL;
	for (c = json_first(&a->doc, a->root); c && i > 0; i--)
		c = json_next(&a->doc, c);
	return c;
}

/* Node n (an array of integers) as dims; -1 when it is none. */
static int opf_node_dims(const struct json_doc *doc, const struct jnode *n, struct opf_dims *out)
{
	const struct jnode *c;
	out->n = 0;
	if (!n || n->type != J_ARRAY)
		return out->n = -1;
	for (c = json_first(doc, n); c; c = json_next(doc, c)) {
		if (c->type != J_INT || out->n == OPF_MAXDIMS || c->u.i < 0)
			return out->n = -1;
		out->d[out->n++] = c->u.i;
	}
	return 0;
}

static int opf_dims(const struct opf_args *a, int i, struct opf_dims *out)
{
	return opf_node_dims(&a->doc, opf_at(a, i), out);
}

/* Concrete Inputs element i ("[1, 1]", "2", "True") parsed: an int list into out; -1 when not one. */
static int opf_concrete_ints(const struct opf_args *c, int i, struct opf_dims *out)
{
	const struct jnode *s = opf_at(c, i);
	struct opf_args inner;
	char buf[256];
	int rc;
	out->n = -1;
	if (!s || s->type != J_STRING || !s->len || s->len + 3 > sizeof(buf))
		return -1;
	if (s->u.s[0] == '[')
		snprintf(buf, sizeof(buf), "%s", s->u.s);
	else
		snprintf(buf, sizeof(buf), "[%s]", s->u.s);
	json_doc_init(&inner.doc);
	inner.text = NULL;
	rc = json_parse(&inner.doc, buf, strlen(buf)) ? -1 : opf_node_dims(&inner.doc, json_root(&inner.doc), out);
	json_doc_release(&inner.doc);
	return rc;
}

/* Concrete Inputs element i is "True" (1), "False" (0), or neither / absent (-1). */
static int opf_concrete_bool(const struct opf_args *c, int i)
{
	const struct jnode *s = opf_at(c, i);
	if (!s || s->type != J_STRING)
		return -1;
	return !strcmp(s->u.s, "True") ? 1 : !strcmp(s->u.s, "False") ? 0 : -1;
}

/* List l's element i, its only element broadcast; -1 when it has neither. */
static int64_t opf_elem(const struct opf_dims *l, int i)
{
	if (l->n == 1)
		return l->d[0];
	return i < l->n ? l->d[i] : -1;
}

static const struct opf_rule *opf_rule(const char *name)
{
	size_t i;
	for (i = 0; name && i < sizeof(opf_rules) / sizeof(opf_rules[0]); i++)
		if (!strcmp(opf_rules[i].name, name))
			return &opf_rules[i];
	return NULL;
}

/*
 * The FLOPs of op r from its dims and concrete inputs, and its output's dims (out); -1 when the shapes
 * do not allow it (missing, malformed, or not what the formula needs). Products beyond 2^63 are refused.
 */
static int opf_count(const struct opf_rule *r, const struct opf_args *d, const struct opf_args *c,
		     int64_t *flops, struct opf_dims *out)
{
	struct opf_dims x, w, q, k, v;
	__int128 f = 0;
	int i, transposed, causal;
	switch (r->kind) {
	case OPF_MM:
	case OPF_ADDMM:
		if (opf_dims(d, r->a, &x) || opf_dims(d, r->b, &w) || x.n != 2 || w.n != 2 || x.d[1] != w.d[0])
			return -1;
		f = (__int128)2 * x.d[0] * w.d[1] * x.d[1];
		out->n = 2, out->d[0] = x.d[0], out->d[1] = w.d[1];
		break;
	case OPF_BMM:
	case OPF_BADDBMM:
		if (opf_dims(d, r->a, &x) || opf_dims(d, r->b, &w) || x.n != 3 || w.n != 3 || x.d[0] != w.d[0] ||
		    x.d[2] != w.d[1])
			return -1;
		f = (__int128)2 * x.d[0] * x.d[1] * w.d[2] * x.d[2];
		out->n = 3, out->d[0] = x.d[0], out->d[1] = x.d[1], out->d[2] = w.d[2];
		break;
	case OPF_CONV: {
		struct opf_dims st, pad, dil;
		transposed = r->transposed_always ? 1 : r->transposed >= 0 ? opf_concrete_bool(c, r->transposed) : 0;
		if (transposed < 0 || opf_dims(d, r->a, &x) || opf_dims(d, r->b, &w) || x.n < 3 || w.n != x.n)
			return -1;
		/* flop_counter: 2 * N * w[0] * w[1] * prod(kernel) * prod(spatial), the spatial dims the
		   output's, or a transposed convolution's input's. */
		f = (__int128)2 * x.d[0] * w.d[0] * w.d[1];
		for (i = 2; i < w.n; i++)
			f *= w.d[i];
		out->n = x.n;
		out->d[0] = x.d[0];
		out->d[1] = transposed ? -1 : w.d[0];	/* a transposed one's output is not needed */
		if (!transposed && (opf_concrete_ints(c, r->stride, &st) || opf_concrete_ints(c, r->padding, &pad) ||
				    opf_concrete_ints(c, r->dilation, &dil)))
			return -1;
		for (i = 2; i < x.n; i++) {
			int64_t o = x.d[i];
			if (!transposed) {
				int64_t s = opf_elem(&st, i - 2), p = opf_elem(&pad, i - 2), dl = opf_elem(&dil, i - 2);
				if (s <= 0 || p < 0 || dl < 0)
					return -1;
				o = (x.d[i] + 2 * p - dl * (w.d[i] - 1) - 1) / s + 1;
				if (o < 0)
					return -1;
			}
			out->d[i] = o;
			f *= o;
		}
		if (transposed)
			out->n = -1;
		break;
	}
	case OPF_SDPA:
	case OPF_SDPA_BWD:
		if (opf_dims(d, r->a, &q) || opf_dims(d, r->a + 1, &k) || opf_dims(d, r->a + 2, &v) || q.n != 4 ||
		    k.n != 4 || v.n != 4 || q.d[3] != k.d[3] || k.d[2] != v.d[2])
			return -1;
		/* bmm(q, k^T) + bmm(scores, v); the backward five such products */
		f = (__int128)2 * q.d[0] * q.d[1] * q.d[2] * k.d[2] * q.d[3] +
		    (__int128)2 * q.d[0] * q.d[1] * q.d[2] * k.d[2] * v.d[3];
		if (r->kind == OPF_SDPA_BWD)
			f = (__int128)2 * q.d[0] * q.d[1] * q.d[2] * k.d[2] * (3 * q.d[3] + 2 * v.d[3]);
		causal = opf_concrete_bool(c, r->causal);
		if (causal == 1)
			f /= 2;
		out->n = 4, out->d[0] = q.d[0], out->d[1] = q.d[1], out->d[2] = q.d[2], out->d[3] = v.d[3];
		if (r->kind == OPF_SDPA_BWD)
			out->n = -1;
		break;
	}
	if (f < 0 || f > INT64_MAX)
		return -1;
	*flops = (int64_t)f;
	return 0;
}

/* Bytes per element of a PyTorch type as "Input type" names it; 0 when it is no tensor type we know. */
static int opf_elsize(const char *t)
{
	static const struct {
		const char *name;
		int size;
	} sizes[] = {
		{ "double", 8 }, { "long int", 8 }, { "c10::complex<float>", 8 }, { "c10::complex<double>", 16 },
		{ "float", 4 }, { "int", 4 }, { "unsigned int", 4 },
		{ "c10::Half", 2 }, { "c10::BFloat16", 2 }, { "short int", 2 }, { "c10::complex<c10::Half>", 4 },
		{ "c10::Float8_e4m3fn", 1 }, { "c10::Float8_e5m2", 1 }, { "c10::Float8_e4m3fnuz", 1 },
		{ "c10::Float8_e5m2fnuz", 1 }, { "signed char", 1 }, { "unsigned char", 1 }, { "bool", 1 },
	};
	size_t i;
	for (i = 0; t && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcmp(sizes[i].name, t))
			return sizes[i].size;
	return 0;
}

/*
 * op_flops(name, input_dims, concrete_inputs) and op_bytes(name, input_dims, input_types,
 * concrete_inputs): see sqlext.h.
 */
static void opf_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct opf_rule *r = opf_rule((const char *)sqlite3_value_text(argv[0]));
	int bytes = argc == 4;
	struct opf_args d, c, t;
	struct opf_dims out = { -1, { 0 } }, in;
	int64_t flops;
	__int128 total = 0;
	int have_c, elsize = 0, i;
	const struct jnode *tn;
	if (!r || sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	memset(&t, 0, sizeof(t));
	json_doc_init(&t.doc);
	have_c = !opf_parse(&c, argv[argc - 1]);
	if (!have_c)
		c.root = NULL;
	if (opf_parse(&d, argv[1]) || opf_count(r, &d, &c, &flops, &out))
		goto done;
	if (!bytes) {
		sqlite3_result_int64(ctx, flops);
		goto done;
	}
	/* Bytes: each tensor input (a known element type) and the output, in the first input's type. */
	if (opf_parse(&t, argv[2]) || out.n < 0)
		goto done;
	for (i = 0, tn = json_first(&t.doc, t.root); tn; tn = json_next(&t.doc, tn), i++) {
		int size = tn->type == J_STRING ? opf_elsize(tn->u.s) : 0, j;
		__int128 n = 1;
		if (!size || opf_dims(&d, i, &in))
			continue;
		for (j = 0; j < in.n; j++)
			n *= in.d[j];
		total += n * size;
		if (!elsize)
			elsize = size;
	}
	if (elsize) {
		__int128 n = 1;
		for (i = 0; i < out.n; i++)
			n *= out.d[i];
		total += n * elsize;
		if (total <= INT64_MAX)
			sqlite3_result_int64(ctx, (int64_t)total);
	}
done:
	opf_release(&d);
	opf_release(&c);
	opf_release(&t);
}

int gpuprof_sqlite_ops(sqlite3 *db)
{
	int rc, flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	if ((rc = sqlite3_create_window_function(db, "op_nest", 4, flags, NULL, opn_step, opn_final, opn_value,
						 opn_inverse, NULL)) != SQLITE_OK ||
	    (rc = sqlite3_create_function(db, "op_flops", 3, flags, NULL, opf_sql, NULL, NULL)) != SQLITE_OK)
		return rc;
	return sqlite3_create_function(db, "op_bytes", 4, flags, NULL, opf_sql, NULL, NULL);
}
