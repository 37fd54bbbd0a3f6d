/*
 * Unit tests for lib/symname: --short base names (short_name in SQL). --group folding is the analyses' SQL
 * (hotspots.sql), checked by tests/analyses.py and tests/cases/analyze-group-short.case.
 */
#include "check.h"
#include "symname.h"
#include "util.h"

int main(void)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
		  "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
		  "vectorized_elementwise_kernel" },
		{ "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x64_32x3_nn_align4>"
		  "(cutlass_80_tensorop_s1688gemm_128x64_32x3_nn_align4::Params)", "Kernel2" },
		{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
		  "ncclDevKernel_AllReduce_Sum_f32_RING_LL" },
		{ "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn" },
		{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 3, 64, 64>"
		  "(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 64, 64>, "
		  "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
		  "CatArrayBatchedCopy" },
		{ "saxpy(int, float, float const*, float*)", "saxpy" },
		{ "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float>(float)", "kernel" },
		/* NVTX ranges and other names that are no C++ signature stay whole */
		{ "## forward ##", "## forward ##" },
		{ "## backward ##", "## backward ##" },
		{ "optimizer step", "optimizer step" },
		{ "epoch 3 (loss=0.5)", "epoch 3 (loss=0.5)" },
		{ "forward (layer 3)", "forward (layer 3)" },
		{ "a->b<c>", "a->b<c>" },
		{ "x<int", "x<int" },
		{ "aten::mm", "mm" },
		{ "T::~T()", "~T" },
	};
	struct buf b;
	size_t i;

	util_init("test_names");
	buf_init(&b);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		name_short(cases[i].in, &b);
		CHECK_EQ_STR(b.s, cases[i].want);
	}
	buf_release(&b);
	return check_done("test_names");
}
