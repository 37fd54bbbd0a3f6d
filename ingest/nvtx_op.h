/*
 * nvtx_op: the NVTX range text that torch.autograd.profiler.emit_nvtx gives each PyTorch op, parsed.
 *
 * The producer (torch/csrc/profiler/util.cpp, getNvtxStr; profiler_legacy.cpp before 1.11) writes
 *   NAME[, seq = N][, op_id = M][, sizes = [[d, d], [], ...]][, input_op_ids = [(id,out), ...]]
 * in that order: seq when the op has an autograd sequence number, op_id (1.11 on) when it has a handle,
 * sizes with record_shapes=True (one list per input, [] for an input that is no tensor), input_op_ids when
 * the op's inputs came from other ops. Text without seq, op_id and sizes is a plain range, not an op.
 * Pure functions over the caller's bytes; nothing is allocated.
 */
#ifndef GPUPROF_NVTX_OP_H
#define GPUPROF_NVTX_OP_H

#include <stddef.h>
#include <stdint.h>

struct nvtx_op {
	size_t name_len;	/* the op's name: the text's first name_len bytes */
	int has_seq, has_op_id;
	int64_t seq, op_id;
	const char *sizes;	/* "[[8, 4], []]", pointing into the text (valid JSON as written); NULL when none */
	size_t sizes_len;
};

/*
 * Parse text[0..len) as an emit_nvtx op: 1 and *op filled when the text is one (a name, then at least one
 * of seq, op_id and sizes, and nothing the producer does not write after it), else 0. Where the name itself
 * holds ", seq = " or the like, the first split whose rest parses whole is taken.
 */
int nvtx_op_parse(const char *text, size_t len, struct nvtx_op *op);

#endif
