/*
 * gpuprof.h: scopes for your own code, shown by gpuprof and by Nsight Systems alike.
 *
 *   #include <gpuprof.h>
 *   gpuprof_range_push("forward"); ... gpuprof_range_pop();
 *   { GPUPROF_SCOPE("attention"); ... }     // C (GCC/Clang) and C++: ends with the block
 *
 * Header-only, over NVTX v3 (header-only too, shipped with the CUDA toolkit): nothing to link. Without
 * a profiler attached the calls cost a few nanoseconds. Compile with -I/usr/local/cuda/include.
 */
#ifndef GPUPROF_H
#define GPUPROF_H

#include <nvtx3/nvToolsExt.h>

static inline void gpuprof_range_push(const char *name)
{
	nvtxRangePushA(name);
}

static inline void gpuprof_range_pop(void)
{
	nvtxRangePop();
}

static inline void gpuprof_mark(const char *name)
{
	nvtxMarkA(name);
}

#ifdef __cplusplus
struct gpuprof_scope_ {
	explicit gpuprof_scope_(const char *name) { nvtxRangePushA(name); }
	~gpuprof_scope_() { nvtxRangePop(); }
	gpuprof_scope_(const gpuprof_scope_ &) = delete;
	gpuprof_scope_ &operator=(const gpuprof_scope_ &) = delete;
};
#define GPUPROF_CAT2_(a, b) a##b
#define GPUPROF_CAT_(a, b) GPUPROF_CAT2_(a, b)
#define GPUPROF_SCOPE(name) gpuprof_scope_ GPUPROF_CAT_(gpuprof_scope_at_, __LINE__)(name)
#else
static inline void gpuprof_scope_end_(int *unused)
{
	(void)unused;
	nvtxRangePop();
}
#define GPUPROF_CAT2_(a, b) a##b
#define GPUPROF_CAT_(a, b) GPUPROF_CAT2_(a, b)
#define GPUPROF_SCOPE(name) \
	int GPUPROF_CAT_(gpuprof_scope_at_, __LINE__) __attribute__((cleanup(gpuprof_scope_end_), unused)) = \
		(nvtxRangePushA(name), 0)
#endif

#endif
