// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_mv_logsoftmax_dropout reference: the three PyTorch stages, each into its own buffer.
//   stage `mv`          (torch.mv): mv[i] = sum_k input[i, k] * vec[k], the exact sum rounded once
//   stage `log_softmax` (F.log_softmax over the whole vector): its statistics first
//                       (`log_softmax_stats` = {max, log(sum exp(mv - max))}, f64), then
//                       log_softmax = (mv - max) - logsum in f64, rounded once
//   stage `dropout`     (F.dropout): training and p > 0: element i is kept iff kbx_uniform(seed, i) >= p
//                       and becomes v * scale, scale = 1 / (1 - p) in f32; a dropped one is v * 0
// Keeping `mv` and `log_softmax` in memory costs two extra passes over n floats: the price of a
// reference whose stages can be diffed (the matrix read dominates).
//
// mv: one warp per row, lanes striding along the row (coalesced), f64 accumulation, warp shuffle
// reduction. The log_softmax statistics depend on every entry of mv, which many blocks computed: a
// grid-wide dependency, met here by a separate launch (one block of 1024 threads: NaN-propagating
// max, then the sum of exponentials, each a per-thread pass plus a shared-memory tree).
//
// @kbx scratch mv f32 [n]
// @kbx scratch log_softmax_stats f64 [2]
// @kbx scratch log_softmax f32 [n]
// @kbx launch mv_rows<<<max(1, min(cdiv(n, 8), 65535)), 256>>>(input, vec, mv, n, m)
// @kbx launch lsm_stats<<<1, 1024>>>(mv, log_softmax_stats, n)
// @kbx launch lsm_apply<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(mv, log_softmax_stats, log_softmax, n)
// @kbx launch dropout_fwd<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(log_softmax, y, n, p, training, seed)

#include <kbx/rng.h>

extern "C" __global__ void __launch_bounds__(256)
mv_rows(const float* __restrict__ a, const float* __restrict__ v, float* __restrict__ z, long long n, long long m)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * 8;
	for (long long row = (long long)blockIdx.x * 8 + (threadIdx.x >> 5); row < n; row += warps) {
		const float* ar = a + row * m;
		double s = 0.0;
		for (long long k = lane; k < m; k += 32)
			s = fma((double)ar[k], (double)v[k], s);
		for (int off = 16; off > 0; off >>= 1)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if (lane == 0)
			z[row] = (float)s;
	}
}

// max that propagates NaN
static __device__ __forceinline__ double nmax(double a, double c)
{
	return (a != a || a > c) ? a : c;
}

extern "C" __global__ void __launch_bounds__(1024)
lsm_stats(const float* __restrict__ z, double* __restrict__ stats, long long n)
{
	__shared__ double sh[1024];
	double v = -__longlong_as_double(0x7ff0000000000000LL);
	for (long long i = threadIdx.x; i < n; i += 1024)
		v = nmax(v, (double)z[i]);
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = 512; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			sh[threadIdx.x] = nmax(sh[threadIdx.x], sh[threadIdx.x + s]);
		__syncthreads();
	}
	const double mx = sh[0];
	__syncthreads();
	double s1 = 0.0;
	for (long long i = threadIdx.x; i < n; i += 1024)
		s1 += exp((double)z[i] - mx);
	sh[threadIdx.x] = s1;
	__syncthreads();
	for (int s = 512; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			sh[threadIdx.x] += sh[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		stats[0] = mx;
		stats[1] = log(sh[0]);
	}
}

extern "C" __global__ void __launch_bounds__(256)
lsm_apply(const float* __restrict__ z, const double* __restrict__ stats, float* __restrict__ out, long long n)
{
	const double mx = stats[0], ls = stats[1];
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		out[i] = (float)(((double)z[i] - mx) - ls);
}

// F.dropout with kbx's mask: keep iff kbx_uniform(seed, i) >= p. PyTorch's kernel computes
// x * mask * scale with mask 0 or 1 (a dropped NaN or inf gives NaN); scale = 1 / keep_prob with
// keep_prob = 1 - p rounded to f32, the quotient rounded to f32. p = 1 drops everything.
extern "C" __global__ void __launch_bounds__(256)
dropout_fwd(const float* __restrict__ x, float* __restrict__ out, long long n, float p, int training, long long seed)
{
	const bool active = training && p > 0.0f;
	const float keep = (float)(1.0 - (double)p);
	const float scale = p < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float v = x[i];
		if (active) {
			float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)i) >= p ? 1.0f : 0.0f;
			v = __fmul_rn(__fmul_rn(v, mask), scale);
		}
		out[i] = v;
	}
}
