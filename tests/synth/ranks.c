/*
 * gpuprof-synth --ranks N: one data-parallel job of N ranks, one PyTorch profiler (Kineto) trace per rank
 * (DIR/rank<R>.json), and the answers it planted (DIR/expected.json). Included by gpuprof-synth.c.
 *
 * The job: ranks sit --gpus-per-host to a host (rank R is device R % G), one GPU each. Every step each
 * rank runs its compute kernels back to back on stream 7 and two NCCL collectives on stream 20: an
 * AllGather launched just after the step starts (it runs under the compute) and an AllReduce after the
 * last compute kernel. A collective's kernel starts when its rank arrives and ends, on every rank, when
 * the last rank has arrived plus its transfer time: the others wait inside it. Planted:
 * - a straggler (rank seed % N): its compute kernels take 7/5 of the others'; it arrives second to last
 *   at each AllReduce;
 * - a late rank (the next rank): its host starts every step LATE_NS late (a slow data loader): it
 *   arrives last at every collective, so the others wait for it, though its compute is no slower.
 * Every other time is jittered by a few microseconds from the seed. Times are integer nanoseconds,
 * written as Kineto does: microseconds with three decimals after baseTimeNanoseconds.
 */

#define RK_STEP0_NS 1000000LL
#define RK_LATE_NS 1200000LL
#define RK_GAP_NS 3000LL
#define RK_AG_NS 150000LL
#define RK_AR_NS 400000LL
#define RK_MAX_RANKS 4096
#define RK_STREAM_COMPUTE 7
#define RK_STREAM_COMM 20

static const char *const rk_kernels[] = {
	"ampere_sgemm_128x64_nn",
	"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
	"ampere_sgemm_64x64_tn",
	"void cunn_SoftMaxForward<4, float, float, float, cunn::SoftMaxForwardEpilogue>(float*, float const*, int)",
	"ampere_sgemm_128x128_nt",
	"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)",
};
static const int64_t rk_kernel_ns[] = { 620000, 90000, 540000, 70000, 880000, 200000 };
#define RK_NKERN ((int)(sizeof(rk_kernel_ns) / sizeof(rk_kernel_ns[0])))
/* The collectives as NCCL 2.21 names their kernels; the expected answers name them without parameters. */
static const char *const rk_coll[2] = {
	"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
};
static const char *const rk_coll_name[2] = { "ncclDevKernel_AllGather_RING_LL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL" };

typedef struct {
	int64_t start, end;
} rk_iv;

typedef struct {
	rk_iv *v;
	size_t n, cap;
} rk_list;

static void rk_add(rk_list *l, int64_t start, int64_t end)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n].start = start;
	l->v[l->n++].end = end;
}

static int rk_cmp_iv(const void *a, const void *b)
{
	const rk_iv *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->end > y->end) - (x->end < y->end);
}

/* The length of the union of the intervals of a and b (b may be NULL). */
static int64_t rk_union(const rk_list *a, const rk_list *b)
{
	size_t n = a->n + (b ? b->n : 0), i;
	rk_iv *v = xrealloc(NULL, (n ? n : 1) * sizeof(*v));
	int64_t total = 0, s = 0, e = 0;
	memcpy(v, a->v, a->n * sizeof(*v));
	if (b)
		memcpy(v + a->n, b->v, b->n * sizeof(*v));
	qsort(v, n, sizeof(*v), rk_cmp_iv);
	for (i = 0; i < n; i++) {
		if (i == 0 || v[i].start > e) {
			total += e - s;
			s = v[i].start;
			e = v[i].end;
		} else if (v[i].end > e) {
			e = v[i].end;
		}
	}
	total += e - s;
	free(v);
	return n ? total : 0;
}

static int rk_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median of n values (sorted here), as gpuprof takes it: the middle one, or the mean of the two. */
static double rk_median(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), rk_cmp_i64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

/* What one rank did, for the answers. */
typedef struct {
	rk_list compute, comm;
	int64_t first, last, wait, steps_total;
	int64_t *step_ns;
	int last_arrivals, matched;
} rk_rank;

/* A time after the base as Kineto writes it: microseconds, three decimals. */
static void rk_us(FILE *f, int64_t ns)
{
	fprintf(f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

static void rk_event(FILE *f, int *first, const char *cat, const char *name, int64_t pid, int64_t tid, int64_t ts,
		     int64_t dur, const char *args)
{
	fprintf(f, "%s\n  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %" PRId64 ", \"tid\": %" PRId64
		", \"ts\": ", *first ? "" : ",", cat, name, pid, tid);
	rk_us(f, ts);
	fputs(", \"dur\": ", f);
	rk_us(f, dur);
	fprintf(f, ", \"args\": {%s}}", args);
	*first = 0;
}

static int synth_ranks(uint64_t nranks, uint64_t seed, const char *dir, uint64_t steps, uint64_t gpus_per_host,
		       const char *expected_path, int want_expected)
{
	uint64_t h = seed;
	rng_t r;
	int64_t base = (int64_t)(ORIGIN_BASE + splitmix64(&h) % 1000000000ULL), S = RK_STEP0_NS, corr = 1;
	int straggler = (int)(seed % nranks), late = nranks > 1 ? (int)((seed + 1) % nranks) : -1;
	rk_rank *rk = xcalloc(nranks, sizeof(*rk));
	FILE **out = xcalloc(nranks, sizeof(*out));
	int64_t *arrive = xcalloc(nranks, sizeof(int64_t)), *durs;
	int *firsts = xcalloc(nranks, sizeof(int));
	int64_t skew_max[2] = { 0, 0 }, coll_total[2] = { 0, 0 };
	int64_t *coll_durs[2];
	size_t ncoll[2] = { 0, 0 };
	char path[PATH_MAX], args[512];
	uint64_t q, s;
	int k, c, rc = EXIT_OK;

	rng_seed(&r, seed, 11);
	coll_durs[0] = xcalloc(nranks * steps + 1, sizeof(int64_t));
	coll_durs[1] = xcalloc(nranks * steps + 1, sizeof(int64_t));
	if (mkdir_p(dir) < 0) {
		fprintf(stderr, SYNTH_NAME ": error: \"%s\": cannot create directory: %s\n", dir, strerror(errno));
		return EXIT_SYSTEM;
	}
	for (q = 0; q < nranks; q++) {
		int dev = (int)(q % gpus_per_host);
		if ((size_t)snprintf(path, sizeof(path), "%s/rank%" PRIu64 ".json", dir, q) >= sizeof(path))
			return usage_error("directory name too long", dir);
		if (!(out[q] = fopen(path, "w"))) {
			fprintf(stderr, SYNTH_NAME ": error: \"%s\": cannot create: %s\n", path, strerror(errno));
			return EXIT_SYSTEM;
		}
		fprintf(out[q], "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": %d, \"name\": "
			"\"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 84929216512, \"computeMajor\": 9, \"computeMinor\": 0, "
			"\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, "
			"\"warpSize\": 32, \"sharedMemPerBlock\": 49152, \"numSms\": 132, \"regsPerMultiprocessor\": 65536, "
			"\"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": 233472}\n  ],\n"
			"  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %" PRIu64 ", \"world_size\": %" PRIu64
			", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
			"\"backend_config\": \"cuda:nccl\", \"pg_size\": %" PRIu64 "}], \"nccl_version\": \"2.21.5\"},\n"
			"  \"traceName\": \"rank%" PRIu64 ".json\",\n  \"baseTimeNanoseconds\": %" PRId64 ",\n"
			"  \"traceEvents\": [",
			dev, q, nranks, nranks, q, base);
		firsts[q] = 1;
		rk[q].first = INT64_MAX;
		rk[q].step_ns = xcalloc(steps + 1, sizeof(int64_t));
	}
	for (s = 0; s < steps; s++) {
		int64_t ag_last = INT64_MIN, ar_last = INT64_MIN, ag_first = INT64_MAX, ar_first = INT64_MAX, ag_end, ar_end;
		int64_t *compute_end = xcalloc(nranks, sizeof(int64_t)), *begin = xcalloc(nranks, sizeof(int64_t));
		/* Each rank's compute, and when it arrives at the two collectives. */
		for (q = 0; q < nranks; q++) {
			int dev = (int)(q % gpus_per_host);
			int64_t t = S + ((int)q == late ? RK_LATE_NS : (int64_t)(rng_next(&r) % 20000));
			begin[q] = t;
			arrive[q] = t + 5000;	/* the AllGather, launched first */
			if (arrive[q] > ag_last)
				ag_last = arrive[q];
			if (arrive[q] < ag_first)
				ag_first = arrive[q];
			for (k = 0; k < RK_NKERN; k++) {
				int64_t d = rk_kernel_ns[k] + (int64_t)(rng_next(&r) % 2000);
				if ((int)q == straggler && nranks > 1)
					d = d * 7 / 5;
				t += RK_GAP_NS;
				snprintf(args, sizeof(args), "\"External id\": %" PRId64 ", \"device\": %d, \"context\": 1, "
					 "\"stream\": %d, \"correlation\": %" PRId64 ", \"registers per thread\": 128, "
					 "\"shared memory\": 16384, \"grid\": [132, 1, 1], \"block\": [256, 1, 1]",
					 corr, dev, RK_STREAM_COMPUTE, corr);
				rk_event(out[q], &firsts[q], "cuda_runtime", "cudaLaunchKernel", 1000 + (int64_t)q,
					 1000 + (int64_t)q, t - 20000, 6000, "\"cbid\": 211");
				rk_event(out[q], &firsts[q], "kernel", rk_kernels[k], dev, RK_STREAM_COMPUTE, t, d, args);
				rk_add(&rk[q].compute, t, t + d);
				corr++;
				t += d;
			}
			compute_end[q] = t;
		}
		ag_end = ag_last + RK_AG_NS;
		if (ag_last - ag_first > skew_max[0])
			skew_max[0] = ag_last - ag_first;
		for (q = 0; q < nranks; q++) {
			int64_t a = compute_end[q] + 2000;
			if (a > ar_last)
				ar_last = a;
			if (a < ar_first)
				ar_first = a;
		}
		ar_end = ar_last + RK_AR_NS;
		if (ar_last - ar_first > skew_max[1])
			skew_max[1] = ar_last - ar_first;
		for (q = 0; q < nranks; q++) {
			int dev = (int)(q % gpus_per_host);
			int64_t starts[2] = { arrive[q], compute_end[q] + 2000 }, ends[2] = { ag_end, ar_end };
			int64_t lasts[2] = { ag_last, ar_last }, firsts_c[2] = { ag_first, ar_first };
			for (c = 0; c < 2; c++) {
				snprintf(args, sizeof(args), "\"External id\": %" PRId64 ", \"device\": %d, \"context\": 1, "
					 "\"stream\": %d, \"correlation\": %" PRId64 ", \"Collective name\": \"%s\", "
					 "\"Process Group Name\": \"0\", \"Group size\": %" PRIu64,
					 corr, dev, RK_STREAM_COMM, corr, c ? "allreduce" : "_allgather_base", nranks);
				rk_event(out[q], &firsts[q], "kernel", rk_coll[c], dev, RK_STREAM_COMM, starts[c],
					 ends[c] - starts[c], args);
				corr++;
				rk_add(&rk[q].comm, starts[c], ends[c]);
				coll_durs[c][ncoll[c]++] = ends[c] - starts[c];
				coll_total[c] += ends[c] - starts[c];
				if (nranks > 1) {
					rk[q].matched++;
					rk[q].wait += lasts[c] - starts[c];
					if (starts[c] == lasts[c] && lasts[c] > firsts_c[c])
						rk[q].last_arrivals++;
				}
			}
			/* The step on the host: from before its first launch to after the AllReduce ends. */
			snprintf(args, sizeof(args), "\"External id\": %" PRIu64 ", \"Record function id\": 1", s + 1);
			snprintf(path, sizeof(path), "ProfilerStep#%" PRIu64, s);
			rk_event(out[q], &firsts[q], "user_annotation", path, 1000 + (int64_t)q, 1000 + (int64_t)q,
				 begin[q] - 30000, ar_end + 20000 - (begin[q] - 30000), args);
			rk[q].step_ns[s] = ar_end + 20000 - (begin[q] - 30000);
			if (s == 0)
				rk[q].first = rk[q].compute.v[0].start;	/* the first kernel, 3 us before the AllGather */
			rk[q].last = ar_end;
		}
		S = ar_end + 60000;
		free(compute_end);
		free(begin);
	}
	for (q = 0; q < nranks; q++) {
		fputs("\n  ]\n}\n", out[q]);
		if (fclose(out[q])) {
			fprintf(stderr, SYNTH_NAME ": error: rank %" PRIu64 ": write error\n", q);
			rc = EXIT_SYSTEM;
		}
	}
	if (want_expected && rc == EXIT_OK) {
		FILE *f = fopen(expected_path, "w");
		int64_t *computes = xcalloc(nranks, sizeof(int64_t));
		double med_compute;
		if (!f) {
			fprintf(stderr, SYNTH_NAME ": error: \"%s\": cannot create: %s\n", expected_path, strerror(errno));
			return EXIT_SYSTEM;
		}
		for (q = 0; q < nranks; q++)
			computes[q] = rk_union(&rk[q].compute, NULL);
		durs = xcalloc(nranks, sizeof(int64_t));
		memcpy(durs, computes, nranks * sizeof(int64_t));
		med_compute = rk_median(durs, nranks);
		free(durs);
		fprintf(f, "{\n  \"ranks\": %" PRIu64 ", \"steps\": %" PRIu64 ", \"gpus_per_host\": %" PRIu64
			", \"straggler\": %d, \"late\": %d,\n  \"rank_rows\": [", nranks, steps, gpus_per_host,
			nranks > 1 ? straggler : -1, late);
		for (q = 0; q < nranks; q++) {
			int64_t comp = computes[q], comm = rk_union(&rk[q].comm, NULL);
			int64_t both = rk_union(&rk[q].compute, &rk[q].comm), span = rk[q].last - rk[q].first;
			int strag = nranks > 1 && ((double)comp > med_compute * 1.10 || 2 * rk[q].last_arrivals > rk[q].matched);
			double step_med = rk_median(rk[q].step_ns, steps);	/* sorts them: the last is the longest */
			int64_t step_max = rk[q].step_ns[steps - 1];
			fprintf(f, "%s\n    {\"rank\": %" PRIu64 ", \"device\": %d, \"span_ns\": %" PRId64 ", \"busy_ns\": %" PRId64
				", \"compute_ns\": %" PRId64 ", \"comm_ns\": %" PRId64 ", \"exposed_comm_ns\": %" PRId64
				", \"idle_ns\": %" PRId64 ", \"steps\": %" PRIu64 ", \"step_med_ns\": %.1f, \"step_max_ns\": %"
				PRId64 ", \"wait_ns\": %" PRId64 ", \"last_arrivals\": %d, \"straggler\": %d}",
				q ? "," : "", q, (int)(q % gpus_per_host), span, both, comp, comm, both - comp, span - both, steps,
				step_med, step_max, rk[q].wait, rk[q].last_arrivals,
				strag);
		}
		fputs("\n  ],\n  \"collectives\": [", f);
		for (k = 0; k < 2; k++) {	/* busiest first (then by name: AllGather before AllReduce) */
			c = coll_total[1] > coll_total[0] ? 1 - k : k;
			fprintf(f, "%s\n    {\"name\": \"%s\", \"ops\": %" PRIu64 ", \"ranks\": %" PRIu64 ", \"total_ns\": %" PRId64
				", \"med_ns\": %.1f, \"max_skew_ns\": ", k ? "," : "", rk_coll_name[c], steps, nranks,
				coll_total[c], rk_median(coll_durs[c], ncoll[c]));
			if (nranks > 1)	/* one rank: nothing matched, no skew */
				fprintf(f, "%" PRId64 "}", skew_max[c]);
			else
				fputs("null}", f);
		}
		fputs("\n  ]\n}\n", f);
		free(computes);
		if (fclose(f)) {
			fprintf(stderr, SYNTH_NAME ": error: \"%s\": write error\n", expected_path);
			rc = EXIT_SYSTEM;
		}
	}
	for (q = 0; q < nranks; q++) {
		free(rk[q].compute.v);
		free(rk[q].comm.v);
		free(rk[q].step_ns);
	}
	free(rk);
	free(out);
	free(arrive);
	free(firsts);
	free(coll_durs[0]);
	free(coll_durs[1]);
	return rc;
}
