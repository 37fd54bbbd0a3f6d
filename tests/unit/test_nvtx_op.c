/*
 * Unit tests for ingest/nvtx_op: the NVTX range text torch.autograd.profiler.emit_nvtx gives each op, in every
 * form its producer writes (torch/csrc/profiler/util.cpp getNvtxStr: seq, op_id, sizes, input_op_ids, each
 * when present, in that order; profiler_legacy.cpp before op_id existed), and texts that are no op.
 */
#include "check.h"
#include "nvtx_op.h"
#include "util.h"

#include <stdint.h>

int main(void)
{
	static const struct {
		const char *text;
		int is_op;
		const char *name;
		long long seq, op_id;	/* -1: none */
		const char *sizes;	/* NULL: none */
	} cases[] = {
		{ "aten::empty, op_id = 990346", 1, "aten::empty", -1, 990346, NULL },
		{ "aten::mm, seq = 45328, op_id = 990724", 1, "aten::mm", 45328, 990724, NULL },
		{ "aten::addmm, seq = 12, op_id = 77, sizes = [[1024], [64, 512], [512, 1024], [], []], "
		  "input_op_ids = [(70,0), (71,0), (72,0)]", 1, "aten::addmm", 12, 77,
		  "[[1024], [64, 512], [512, 1024], [], []]" },
		{ "aten::zeros, op_id = 5, sizes = [[], [], [], [], []]", 1, "aten::zeros", -1, 5,
		  "[[], [], [], [], []]" },
		{ "aten::add, op_id = 9, input_op_ids = [(3,0)]", 1, "aten::add", -1, 9, NULL },
		{ "aten::cat, op_id = 9, sizes = []", 1, "aten::cat", -1, 9, "[]" },
		/* profiler_legacy (1.x): no op_id; sizes without seq */
		{ "aten::relu, seq = 3, sizes = [[8, 16]]", 1, "aten::relu", 3, -1, "[[8, 16]]" },
		{ "aten::view, sizes = [[2, 3], []]", 1, "aten::view", -1, -1, "[[2, 3], []]" },
		/* ROCm's negative sequence numbers */
		{ "aten::mul, seq = -5, op_id = 2", 1, "aten::mul", -5, 2, NULL },
		/* a name holding the separators: the first split whose rest is the producer's */
		{ "my op, seq = x, seq = 4, op_id = 1", 1, "my op, seq = x", 4, 1, NULL },
		{ "a, b, op_id = 3", 1, "a, b", -1, 3, NULL },
		{ "x, op_id = 3, seq = 4", 1, "x, op_id = 3", 4, -1, NULL },	/* seq comes first: a name's */
		{ "autograd::engine::evaluate_function: AddmmBackward0, op_id = 31", 1,
		  "autograd::engine::evaluate_function: AddmmBackward0", -1, 31, NULL },
		/* not ops */
		{ "aten::mm", 0, NULL, 0, 0, NULL },
		{ "## forward ##", 0, NULL, 0, 0, NULL },
		{ ", op_id = 3", 0, NULL, 0, 0, NULL },			/* no name */
		{ "x, op_id = ", 0, NULL, 0, 0, NULL },
		{ "x, op_id = 3 ", 0, NULL, 0, 0, NULL },		/* more after it */
		{ "x, seq = 4a", 0, NULL, 0, 0, NULL },
		{ "x, sizes = [[1,2]]", 0, NULL, 0, 0, NULL },		/* not the producer's ", " */
		{ "x, sizes = [[1, 2]", 0, NULL, 0, 0, NULL },
		{ "x, op_id = 1, input_op_ids = [(1, 0)]", 0, NULL, 0, 0, NULL },
		{ "x, input_op_ids = [(1,0)]", 0, NULL, 0, 0, NULL },	/* edges alone name no op */
		{ "x, op_id = 99999999999999999999", 0, NULL, 0, 0, NULL },	/* past int64 */
		{ "epoch 3, loss = 0.5", 0, NULL, 0, 0, NULL },
	};
	size_t i;

	util_init("test_nvtx_op");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nvtx_op op;
		char name[256], sizes[256];
		int got = nvtx_op_parse(cases[i].text, strlen(cases[i].text), &op);
		CHECK_EQ_I64(got, cases[i].is_op);
		if (!got || !cases[i].is_op) {
			if (got != cases[i].is_op)
				fprintf(stderr, "  text: %s\n", cases[i].text);
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)op.name_len, cases[i].text);
		CHECK_EQ_STR(name, cases[i].name);
		CHECK_EQ_I64(op.has_seq ? op.seq : -1, cases[i].seq);
		CHECK_EQ_I64(op.has_op_id ? op.op_id : -1, cases[i].op_id);
		if (cases[i].sizes) {
			snprintf(sizes, sizeof(sizes), "%.*s", (int)op.sizes_len, op.sizes ? op.sizes : "");
			CHECK_EQ_STR(op.sizes ? sizes : NULL, cases[i].sizes);
		} else {
			CHECK(op.sizes == NULL);
		}
	}
	/* the text is not read past len */
	{
		struct nvtx_op op;
		const char *t = "aten::mm, op_id = 12345";
		CHECK_EQ_I64(nvtx_op_parse(t, strlen(t) - 2, &op), 1);
		CHECK_EQ_I64(op.op_id, 123);
	}
	return check_done("test_nvtx_op");
}
