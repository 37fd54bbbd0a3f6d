// The GPU check's workload: known content, so the collector's session can be checked exactly.
//   workload check       kernel A x1000, kernel B x10 (known grid, block, registers), HtoD 1 MiB x3 and
//                        DtoH 4 MiB x2, one memset of 256 KiB, stream and event syncs, three cudaMallocs
//                        of which one (3 MiB) is never freed, NVTX ranges two deep for 5 iterations
//   workload small N     N tiny kernels back to back (launch-bound: collector overhead per kernel)
//   workload ms N        N kernels of about 1 ms each
// Prints the wall time of the timed part in ns on stdout.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
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

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "check";
	long n = argc > 2 ? atol(argv[2]) : 0;
	long long t0;
	int *p;
	CHECK(cudaFree(0));	/* initialise outside the timed part */
	if (!strcmp(mode, "check"))
		return check();
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
