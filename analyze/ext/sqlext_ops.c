/*
 * The operator layer's SQL functions (see sqlext.h): op_nest, the nesting of PyTorch ops and the ops of
 * runtime calls, as a window function; op_tree, that walk with the GPU time of each op and its subtree, as a
 * table-valued function; op_flops and op_bytes, an op's FLOPs and bytes from its recorded shapes. Compiled twice like analyze/ext/sqlext.c: into gpuprof's programs and into the extension.
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
 *
 * op_tree is an accelerator of its plain-SQL reference, analyze/ref/op_tree.sql (tests/refs.py and tests/ops.py
 * check they agree): 8x without the flops steps (4.7 s against 0.56 s of CPU, the op_tree section below), over
 * 100x with them (the reference's header says how measured).
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

/* ---- op_tree ---- */

/*
 * op_tree(session): the walk, the GPU sums and the subtree sums of analyze/ops.sql in one pass per
 * session, as an eponymous table-valued function. Kind 0 rows are the session's ops (those whose name
 * is in strings), kind 1 rows its runtime calls with a correlation id (none when it has no ops). Said in
 * plain SQL (tests/ops.py holds the two equal on the shared traces and a synthetic session):
 *   owner (kind 0, the op's parent; kind 1, the call's op): op_nest over the ops and calls (above), i.e.
 *     SELECT kind, id, op_nest(kind, id, start_ns, end_ns) OVER (PARTITION BY pid, thread_id
 *       ORDER BY start_ns, kind, end_ns DESC, ord, id ROWS UNBOUNDED PRECEDING) AS owner
 *     FROM (SELECT 0 AS kind, rowid AS id, pid, thread_id, start_ns, end_ns, coalesce(external_id, 0) AS ord
 *           FROM ops WHERE session_id = :s
 *           UNION ALL SELECT 1, rowid, pid, thread_id, start_ns, start_ns, 0 FROM api_calls
 *           WHERE session_id = :s AND correlation_id IS NOT NULL)
 *   pid, corr (kind 1): the call's;
 *   gpu_self_ns (kind 0): sum(end_ns - start_ns) of the kernels (kernel_columns), memcpys and memsets of
 *     the session whose (pid, correlation_id) is a kind-1 row's (the first call by rowid of that pair)
 *     that the op owns;
 *   gpu_total_ns: gpu_self_ns plus the children's gpu_total_ns (WITH RECURSIVE up the owners);
 *   kids_ns: sum(end_ns - start_ns) of the op's children (GROUP BY owner);
 *   flops: op_flops(name, input_dims, concrete_inputs); counted: flops IS NOT NULL AND no descendant (WITH
 *     RECURSIVE down the owners) has flops;
 *   kind 2 rows (id, owner): each op that launched a kernel (kernel_columns through its calls as above) or
 *     is counted, with itself and each of its ancestors as owner.
 * Over the 430,000 ops and 211,000 calls of a 200,000-kernel gpuprof-synth --ops session (2 shared cores,
 * sqlite3 shell) the SQL without flops takes 4.7 s (a sort of both, temp tables, an ancestor walk per op);
 * this, with flops, one sort and three passes: 0.56 s of CPU.
 */

enum { OT_KIND, OT_ID, OT_OWNER, OT_PID, OT_CORR, OT_GPU_SELF, OT_GPU_TOTAL, OT_KIDS, OT_FLOPS, OT_COUNTED,
       OT_SESSION };

/* An op (kind 0) or a call (kind 1) of the walk. */
struct ot_ev {
	int64_t pid, tid, start, end, ord, id;
	int tid_null, kind;
	int64_t owner;		/* index of its owner op in the walk order; -1 none */
	int64_t corr;		/* a call's */
	int64_t gpu_self, gpu_total, kids, kernels, flops;
	int has_flops, below;	/* op_flops is not NULL; an op below has one */
};

/* A call's (pid, correlation id) and its walk index, to find its GPU events. */
struct ot_call {
	int64_t pid, corr, id, ev;
};

struct ot_cursor {
	sqlite3_vtab_cursor base;
	struct ot_ev *ev;
	size_t n, alloc, i;
	struct ot_call *calls;
	size_t ncalls, acalls;
	struct { int64_t op, anc; } *up;	/* kind 2 rows: walk indexes */
	size_t nup, aup;
};

static int ot_cmp3(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* The walk order: per (pid, thread; NULL first), by start, ops before calls, longest first, ord, id. */
static int ot_order(const void *pa, const void *pb)
{
	const struct ot_ev *a = pa, *b = pb;
	int r;
	if ((r = ot_cmp3(a->pid, b->pid)) || (r = ot_cmp3(b->tid_null, a->tid_null)) ||
	    (!a->tid_null && (r = ot_cmp3(a->tid, b->tid))) || (r = ot_cmp3(a->start, b->start)) ||
	    (r = ot_cmp3(a->kind, b->kind)) || (r = ot_cmp3(b->end, a->end)) || (r = ot_cmp3(a->ord, b->ord)))
		return r;
	return ot_cmp3(a->id, b->id);
}

static int ot_call_order(const void *pa, const void *pb)
{
	const struct ot_call *a = pa, *b = pb;
	int r;
	if ((r = ot_cmp3(a->pid, b->pid)) || (r = ot_cmp3(a->corr, b->corr)))
		return r;
	return ot_cmp3(a->id, b->id);
}

/* The walk index of the op owning the first call of (pid, corr); -1 none (or no such call). */
static int64_t ot_gpu_owner(const struct ot_cursor *c, int64_t pid, int64_t corr)
{
	size_t lo = 0, hi = c->ncalls;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ot_call *m = &c->calls[mid];
		if (m->pid < pid || (m->pid == pid && m->corr < corr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->ncalls || c->calls[lo].pid != pid || c->calls[lo].corr != corr)
		return -1;
	return c->ev[c->calls[lo].ev].owner;
}

/* op_flops of the op row st holds (columns 6 name, 7 input_dims, 8 concrete_inputs): 0, or -1 for NULL. */
static int ot_flops(sqlite3_stmt *st, int64_t *flops)
{
	const struct opf_rule *r = opf_rule((const char *)sqlite3_column_text(st, 6));
	struct opf_args d, c;
	struct opf_dims out = { -1, { 0 } };
	int rc = -1;
	if (!r || sqlite3_column_type(st, 7) == SQLITE_NULL)
		return -1;
	if (opf_parse(&c, sqlite3_column_value(st, 8)))
		c.root = NULL;
	if (!opf_parse(&d, sqlite3_column_value(st, 7)) && !opf_count(r, &d, &c, flops, &out))
		rc = 0;
	opf_release(&d);
	opf_release(&c);
	return rc;
}

/* Read the rows of st (pid, thread_id, start_ns, end_ns, ord, rowid[, correlation_id]) as kind. */
static int ot_read(struct ot_cursor *c, sqlite3_stmt *st, int kind)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ot_ev *e;
		if (sqlext_grow((void **)&c->ev, &c->alloc, c->n + 1, sizeof(*c->ev)))
			return SQLITE_NOMEM;
		e = &c->ev[c->n++];
		memset(e, 0, sizeof(*e));
		e->kind = kind;
		e->pid = sqlite3_column_int64(st, 0);
		e->tid_null = sqlite3_column_type(st, 1) == SQLITE_NULL;
		e->tid = sqlite3_column_int64(st, 1);
		e->start = sqlite3_column_int64(st, 2);
		e->end = sqlite3_column_int64(st, 3);
		e->ord = sqlite3_column_int64(st, 4);
		e->id = sqlite3_column_int64(st, 5);
		e->corr = kind ? sqlite3_column_int64(st, 6) : 0;
		e->owner = -1;
		if (!kind)
			e->has_flops = !ot_flops(st, &e->flops);
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Add a GPU event's duration to its op. */
static void ot_gpu(struct ot_cursor *c, int64_t pid, int64_t corr, int64_t dur, int kernel)
{
	int64_t op = ot_gpu_owner(c, pid, corr);
	if (op >= 0) {
		c->ev[op].gpu_self += dur;
		c->ev[op].kernels += kernel;
	}
}

static int ot_kernels(void *arg, const int64_t *const *col, size_t n)
{
	struct ot_cursor *c = arg;
	size_t i;
	for (i = 0; i < n; i++)
		ot_gpu(c, col[KC_PID][i], col[KC_CORR][i], col[KC_DUR][i], 1);
	return 0;
}

static int ot_prepare_run(struct ot_cursor *c, sqlite3 *db, const char *sql, int64_t s, int kind)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(st, 1, s);
	if (kind >= 0) {
		rc = ot_read(c, st, kind);
	} else {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			ot_gpu(c, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), 0);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Session s: read, sort, walk, sum. */
static int ot_load(struct ot_cursor *c, sqlite3 *db, int64_t s)
{
	struct opn_open_ix { int64_t end, ev; } *stack = NULL;
	size_t depth = 0, cap = 0, i, nops;
	int rc;
	rc = ot_prepare_run(c, db, "SELECT o.pid, o.thread_id, o.start_ns, o.end_ns, coalesce(o.external_id, 0), o.rowid, "
			    "n.value, o.input_dims, o.concrete_inputs FROM ops o JOIN strings n "
			    "ON n.session_id = o.session_id AND n.id = o.name_id WHERE o.session_id = ?1", s, 0);
	if (rc != SQLITE_OK || !(nops = c->n))
		return rc;
	rc = ot_prepare_run(c, db, "SELECT pid, thread_id, start_ns, start_ns, 0, rowid, correlation_id FROM api_calls "
			    "WHERE session_id = ?1 AND correlation_id IS NOT NULL", s, 1);
	if (rc != SQLITE_OK)
		return rc;
	qsort(c->ev, c->n, sizeof(*c->ev), ot_order);
	/* The walk: op_nest's stack, over the sorted rows. */
	for (i = 0; i < c->n; i++) {
		struct ot_ev *e = &c->ev[i];
		int64_t bound = e->kind == 0 ? e->end : e->start;
		if (i && (e->pid != e[-1].pid || e->tid_null != e[-1].tid_null || e->tid != e[-1].tid))
			depth = 0;
		while (depth && stack[depth - 1].end < bound)
			depth--;
		e->owner = depth ? stack[depth - 1].ev : -1;
		if (e->kind != 0) {
			struct ot_call *k;
			if (sqlext_grow((void **)&c->calls, &c->acalls, c->ncalls + 1, sizeof(*c->calls)))
				goto nomem;
			k = &c->calls[c->ncalls++];
			k->pid = e->pid, k->corr = e->corr, k->id = e->id, k->ev = (int64_t)i;
			continue;
		}
		if (sqlext_grow((void **)&stack, &cap, depth + 1, sizeof(*stack)))
			goto nomem;
		stack[depth].end = e->end;
		stack[depth++].ev = (int64_t)i;
	}
	sqlite3_free(stack);
	/* The first call (by rowid) of each (pid, correlation id) is the one its GPU events belong to. */
	if (c->ncalls)	/* qsort's array may not be NULL, even empty */
		qsort(c->calls, c->ncalls, sizeof(*c->calls), ot_call_order);
	{
		size_t j = 0;
		for (i = 0; i < c->ncalls; i++)
			if (!j || c->calls[i].pid != c->calls[j - 1].pid || c->calls[i].corr != c->calls[j - 1].corr)
				c->calls[j++] = c->calls[i];
		c->ncalls = j;
	}
	if ((rc = sqlext_kernels(c->base.pVtab, db, s, 1u << KC_PID | 1u << KC_CORR | 1u << KC_DUR, ot_kernels, c)) !=
		    SQLITE_OK ||
	    (rc = ot_prepare_run(c, db, "SELECT pid, correlation_id, end_ns - start_ns FROM memcpys WHERE session_id = ?1 "
				 "AND correlation_id IS NOT NULL", s, -1)) != SQLITE_OK ||
	    (rc = ot_prepare_run(c, db, "SELECT pid, correlation_id, end_ns - start_ns FROM memsets WHERE session_id = ?1 "
				 "AND correlation_id IS NOT NULL", s, -1)) != SQLITE_OK)
		return rc;
	/* Subtree sums: a parent sorts before its children, so from the last row back each adds to its parent. */
	for (i = 0; i < c->n; i++)
		c->ev[i].gpu_total = c->ev[i].gpu_self;
	for (i = c->n; i-- > 0;) {
		struct ot_ev *e = &c->ev[i];
		if (e->kind == 0 && e->owner >= 0) {
			c->ev[e->owner].gpu_total += e->gpu_total;
			c->ev[e->owner].kids += e->end - e->start;
			c->ev[e->owner].below |= e->has_flops || e->below;
		}
	}
	/* Kind 2: the ops with kernels or a counted FLOP figure, each with itself and its ancestors. */
	for (i = 0; i < c->n; i++) {
		const struct ot_ev *e = &c->ev[i];
		int64_t a;
		if (e->kind != 0 || (!e->kernels && !(e->has_flops && !e->below)))
			continue;
		for (a = (int64_t)i; a >= 0; a = c->ev[a].owner) {
			if (sqlext_grow((void **)&c->up, &c->aup, c->nup + 1, sizeof(*c->up)))
				return SQLITE_NOMEM;
			c->up[c->nup].op = (int64_t)i;
			c->up[c->nup++].anc = a;
		}
	}
	return SQLITE_OK;
nomem:
	sqlite3_free(stack);
	return SQLITE_NOMEM;
}

static int ot_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)aux, (void)argc, (void)argv, (void)err;
	return sqlext_connect(db, "CREATE TABLE x(kind INTEGER, id INTEGER, owner INTEGER, pid INTEGER, corr INTEGER, "
			      "gpu_self_ns INTEGER, gpu_total_ns INTEGER, kids_ns INTEGER, flops INTEGER, counted INTEGER, "
			      "session HIDDEN)", NULL, out);
}

static int ot_best_index(sqlite3_vtab *v, sqlite3_index_info *ix)
{
	(void)v;
	return sqlext_args_best_index(ix, OT_SESSION, 1, 1);
}

static int ot_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct ot_cursor *c = sqlite3_malloc(sizeof(*c));
	(void)v;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int ot_close(sqlite3_vtab_cursor *cur)
{
	struct ot_cursor *c = (struct ot_cursor *)cur;
	sqlite3_free(c->ev);
	sqlite3_free(c->calls);
	sqlite3_free(c->up);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int ot_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct ot_cursor *c = (struct ot_cursor *)cur;
	int rc;
	(void)idx, (void)idxstr;
	c->n = c->i = c->ncalls = c->nup = 0;
	if (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER)
		return SQLITE_OK;	/* no such session: no rows */
	rc = ot_load(c, sqlext_vt_db(cur), sqlite3_value_int64(argv[0]));
	if (rc != SQLITE_OK)
		c->n = c->nup = 0;
	return rc;
}

static int ot_next(sqlite3_vtab_cursor *cur)
{
	((struct ot_cursor *)cur)->i++;
	return SQLITE_OK;
}

static int ot_eof(sqlite3_vtab_cursor *cur)
{
	struct ot_cursor *c = (struct ot_cursor *)cur;
	return c->i >= c->n + c->nup;
}

static int ot_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct ot_cursor *c = (struct ot_cursor *)cur;
	const struct ot_ev *e;
	if (c->i >= c->n) {	/* kind 2 */
		if (k == OT_KIND)
			sqlite3_result_int(ctx, 2);
		else if (k == OT_ID || k == OT_OWNER)
			sqlite3_result_int64(ctx, c->ev[k == OT_ID ? c->up[c->i - c->n].op : c->up[c->i - c->n].anc].id);
		return SQLITE_OK;
	}
	e = &c->ev[c->i];
	switch (k) {
	case OT_KIND: sqlite3_result_int(ctx, e->kind); break;
	case OT_ID: sqlite3_result_int64(ctx, e->id); break;
	case OT_OWNER: if (e->owner >= 0) sqlite3_result_int64(ctx, c->ev[e->owner].id); break;
	case OT_PID: sqlite3_result_int64(ctx, e->pid); break;
	case OT_CORR: if (e->kind) sqlite3_result_int64(ctx, e->corr); break;
	case OT_GPU_SELF: if (!e->kind) sqlite3_result_int64(ctx, e->gpu_self); break;
	case OT_GPU_TOTAL: if (!e->kind) sqlite3_result_int64(ctx, e->gpu_total); break;
	case OT_KIDS: if (!e->kind) sqlite3_result_int64(ctx, e->kids); break;
	case OT_FLOPS: if (!e->kind && e->has_flops) sqlite3_result_int64(ctx, e->flops); break;
	case OT_COUNTED: if (!e->kind) sqlite3_result_int(ctx, e->has_flops && !e->below); break;
	default: break;
	}
	return SQLITE_OK;
}

static int ot_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct ot_cursor *)cur)->i + 1;
	return SQLITE_OK;
}

static sqlite3_module ot_module = {
	.iVersion = 0,
	.xCreate = NULL,	/* eponymous only */
	.xConnect = ot_connect,
	.xBestIndex = ot_best_index,
	.xDisconnect = sqlext_vt_disconnect,
	.xDestroy = sqlext_vt_disconnect,
	.xOpen = ot_open,
	.xClose = ot_close,
	.xFilter = ot_filter,
	.xNext = ot_next,
	.xEof = ot_eof,
	.xColumn = ot_column,
	.xRowid = ot_rowid,
};

int gpuprof_sqlite_ops(sqlite3 *db)
{
	int rc, flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	if ((rc = sqlite3_create_window_function(db, "op_nest", 4, flags, NULL, opn_step, opn_final, opn_value,
						 opn_inverse, NULL)) != SQLITE_OK ||
	    (rc = sqlite3_create_function(db, "op_flops", 3, flags, NULL, opf_sql, NULL, NULL)) != SQLITE_OK)
		return rc;
	if ((rc = sqlite3_create_function(db, "op_bytes", 4, flags, NULL, opf_sql, NULL, NULL)) != SQLITE_OK)
		return rc;
	return sqlite3_create_module(db, "op_tree", &ot_module, NULL);
}
