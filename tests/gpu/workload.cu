// The GPU check's workload: known content, so the collector's session can be checked exactly.
//   workload check       kernel A x1000, kernel B x10 (known grid, block, registers), HtoD 1 MiB x3 and
//                        DtoH 4 MiB x2, one memset of 256 KiB, stream and event syncs, three cudaMallocs
//                        of which one (3 MiB) is never freed, NVTX ranges two deep for 5 iterations
//   workload small N     N tiny kernels back to back (launch-bound: collector overhead per kernel)
//   workload ms N        N kernels of about 1 ms each
//   workload stalls      mem_walk x5 and fma_chain x5: known stall profiles for PC sampling
//   workload membound N  N mem_walk kernels: dependent strided loads, long-scoreboard stalls
//   workload fma N       N fma_chain kernels: dependent FMAs, math and dependency stalls
//   workload oom         in NVTX range "oom-step": 64 MiB allocated and kept, kernel A x10, then a cudaMalloc
//                        of twice the device's memory (out of memory), tried twice, and a cudaMallocAsync of
//                        the same size; then SIGKILL at once, as a program that dies of its OOM error
// Prints the wall time of the timed part in ns on stdout (not for check and stalls).
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "workload: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void __launch_bounds__(128) kernel_a(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * 1.0001f + 1.0f;
}

__global__ void kernel_b(float *x, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	for (int k = 0; k < iters; k++)
		v = v * 0.999f + 0.5f;
	x[i] = v;
}

__global__ void tiny(int *p)
{
	if (threadIdx.x == 0 && blockIdx.x == 0)
		p[0]++;
}

__global__ void spin(long long cycles)
{
	long long start = clock64();
	while (clock64() - start < cycles)
		;
}

// Memory-bound: each thread follows a chain of loads through a table larger than L2, every load's address
// taken from the one before (a strided permutation), so warps wait on memory: long scoreboard.
__global__ void mem_walk(const int *__restrict__ next, int *out, int steps)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int j = i;
	for (int k = 0; k < steps; k++)
		j = next[j];
	out[i] = j;
}

// next[i] = (i * 40503 + 12345) mod n with n a power of two: a permutation whose neighbours lie far apart.
__global__ void mem_init(int *next, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		next[i] = (int)((i * 40503u + 12345u) & (n - 1));
}

// Compute-bound: a dependent chain of FMAs per thread, each waiting on the one before (fixed-latency
// dependency: wait; with many warps, math pipe throttle). b and c come from the host so nothing folds.
__global__ void fma_chain(float *x, float b, float c, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float a = x[i];
#pragma unroll 8
	for (int k = 0; k < iters; k++)
		a = fmaf(a, b, c);
	x[i] = a;
}

#define WALK_N (1u << 24)	/* 64 MiB of int: larger than the L2 of any current GPU */
#define WALK_THREADS (1 << 20)
#define WALK_STEPS 256
#define FMA_THREADS (1 << 20)
#define FMA_ITERS (1 << 16)

struct stall_bufs {
	int *next, *out;
	float *x;
};

static void stall_setup(struct stall_bufs *b)
{
	CHECK(cudaMalloc(&b->next, WALK_N * sizeof(int)));
	CHECK(cudaMalloc(&b->out, WALK_THREADS * sizeof(int)));
	CHECK(cudaMalloc(&b->x, FMA_THREADS * sizeof(float)));
	CHECK(cudaMemset(b->x, 0, FMA_THREADS * sizeof(float)));
	mem_init<<<WALK_N / 256, 256>>>(b->next, WALK_N);
	CHECK(cudaDeviceSynchronize());
}

static void stall_launch(const struct stall_bufs *b, int walk)
{
	if (walk)
		mem_walk<<<WALK_THREADS / 256, 256>>>(b->next, b->out, WALK_STEPS);
	else
		fma_chain<<<FMA_THREADS / 256, 256>>>(b->x, 1.0001f, 0.9999f, FMA_ITERS);
	CHECK(cudaGetLastError());
}

static void stall_free(struct stall_bufs *b)
{
	CHECK(cudaFree(b->next));
	CHECK(cudaFree(b->out));
	CHECK(cudaFree(b->x));
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int check(void)
{
	const int n = 1 << 18;
	float *d_a, *d_b, *d_leak, *h;
	cudaStream_t s;
	cudaEvent_t ev;
	CHECK(cudaMalloc(&d_a, 1 << 20));
	CHECK(cudaMalloc(&d_b, 4 << 20));
	CHECK(cudaMalloc(&d_leak, 3 << 20));	/* never freed */
	CHECK(cudaMallocHost(&h, 4 << 20));
	memset(h, 0, 4 << 20);
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaEventCreate(&ev));
	for (int it = 0; it < 5; it++) {
		nvtxRangePushA("iteration");
		nvtxRangePushA("copy_in");
		CHECK(cudaMemcpyAsync(d_a, h, 1 << 20, cudaMemcpyHostToDevice, s));
		nvtxRangePop();
		nvtxRangePushA("compute");
		for (int k = 0; k < 200; k++)
			kernel_a<<<n / 128 / 4, 128, 0, s>>>(d_a, n / 4);
		kernel_b<<<64, 256, 0, s>>>(d_b, 64 * 256, 1000);
		kernel_b<<<64, 256, 0, s>>>(d_b, 64 * 256, 1000);
		nvtxRangePop();
		nvtxRangePop();
		CHECK(cudaEventRecord(ev, s));
		CHECK(cudaEventSynchronize(ev));
	}
	CHECK(cudaMemcpy(d_b, h, 1 << 20, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d_b, h, 1 << 20, cudaMemcpyHostToDevice));
	CHECK(cudaMemsetAsync(d_b, 0, 256 << 10, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaMemcpy(h, d_b, 4 << 20, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(h, d_b, 4 << 20, cudaMemcpyDeviceToHost));
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(d_a));
	CHECK(cudaFree(d_b));
	CHECK(cudaFreeHost(h));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaEventDestroy(ev));
	return 0;
}

/* Allocations that fail for want of memory, then death by SIGKILL: the session must hold them all. */
static int oom(void)
{
	size_t free_b = 0, total = 0;
	float *kept, *none = NULL;
	cudaStream_t s;
	CHECK(cudaMemGetInfo(&free_b, &total));
	CHECK(cudaStreamCreate(&s));
	nvtxRangePushA("oom-step");
	CHECK(cudaMalloc(&kept, 64 << 20));
	for (int i = 0; i < 10; i++)
		kernel_a<<<(16 << 20) / 128, 128>>>(kept, 16 << 20);
	CHECK(cudaDeviceSynchronize());
	for (int attempt = 0; attempt < 2; attempt++)
		if (cudaMalloc(&none, 2 * total) != cudaErrorMemoryAllocation)
			return 3;
	if (cudaMallocAsync(&none, 2 * total, s) != cudaErrorMemoryAllocation)
		return 4;
	cudaGetLastError();
	printf("%zu\n", 2 * total);
	fflush(stdout);
	raise(SIGKILL);
	return 5;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "check";
	long n = argc > 2 ? atol(argv[2]) : 0;
	long long t0;
	int *p;
	CHECK(cudaFree(0));	/* initialise outside the timed part */
	if (!strcmp(mode, "check"))
		return check();
	if (!strcmp(mode, "oom"))
		return oom();
	if (!strcmp(mode, "stalls") || !strcmp(mode, "membound") || !strcmp(mode, "fma")) {
		struct stall_bufs b;
		int stalls = !strcmp(mode, "stalls");
		stall_setup(&b);
		t0 = now_ns();
		for (long i = 0; i < (stalls ? 5 : n); i++) {
			if (stalls || !strcmp(mode, "membound"))
				stall_launch(&b, 1);
			if (stalls || !strcmp(mode, "fma"))
				stall_launch(&b, 0);
			CHECK(cudaDeviceSynchronize());
		}
		if (!stalls)
			printf("%lld\n", now_ns() - t0);
		stall_free(&b);
		return 0;
	}
	CHECK(cudaMalloc(&p, sizeof(int)));
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (!strcmp(mode, "small"))
			tiny<<<1, 32>>>(p);
		else
			spin<<<1, 32>>>(1800000);	/* about 1 ms at 1.8 GHz */
	}
	CHECK(cudaDeviceSynchronize());
	printf("%lld\n", now_ns() - t0);
	CHECK(cudaFree(p));
	return 0;
}
