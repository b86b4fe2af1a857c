// Softmax over the middle axis of the contiguous view x[a, d, b]: for each (o, i),
//   y[o, k, i] = exp(x[o, k, i] - M) / S,  M = max_k x[o, k, i],  S = sum_k exp(x[o, k, i] - M),
// in f32 as PyTorch's CUDA kernels compute it (expf, f32 sums, a division).
//
// One kernel, blocks of 256, no atomics. M and S come from one online pass (a running max m and a sum s of
// exp(v - m), rescaled by exp(m_old - m_new) when the max grows), then a second pass writes y:
//   b == 1 (the softmax axis is contiguous; the perf workload): one block per row. Each thread folds a strided
//     part of the row (float4 loads when d % 4 == 0, so rows of any length, longer than the block too), the
//     256 (m, s) pairs are merged with warp shuffles and shared memory, and the block writes the row.
//   b > 1 (a strided axis, e.g. dim = 0): one thread per column (o, i); consecutive threads take consecutive i,
//     so every step of the loop over k reads 32 consecutive floats per warp.
// Special values give what PyTorch's max / sum / exp give: a row with a NaN or a +inf is NaN throughout
// (exp(inf - inf) = NaN enters the sum); an all -inf row is NaN (exp(-inf - (-inf)) = exp(NaN)); -inf
// entries of other rows give 0. The online pass is written to keep exactly these: a -inf entry adds nothing
// (its exp(v - m) would be NaN while m is still -inf), and merging two partial results rescales only the
// one whose max is smaller.
// Accuracy: expf within 2 ulp, the sum's rounding grows with log2(d) in the tree (relative ~1e-7 here), well
// inside 1e-5.

#include <math_constants.h>

// @kbx launch softmax_f32<<<max(1, a * cdiv(b, 256)), 256>>>(x, y, a, d, b)

#define BLOCK 256

/* Fold v into the running (m, s). */
__device__ __forceinline__ void online_add(float &m, float &s, float v)
{
	if (v > m) { /* never true for NaN */
		s = s * expf(m - v) + expf(v - v); /* exp(v - v) is 1, or NaN for v = +inf as in PyTorch's sum */
		m = v;
	} else if (v != -CUDART_INF_F) {
		s += expf(v - m); /* NaN for a NaN v, or for v = m = +inf */
	}
}

/* Merge (m2, s2) into (m, s): rescale the part whose max is below the common one. */
__device__ __forceinline__ void online_merge(float &m, float &s, float m2, float s2)
{
	float mm = fmaxf(m, m2); /* m, m2 are never NaN */
	float a = (m == mm) ? s : s * expf(m - mm);
	float c = (m2 == mm) ? s2 : s2 * expf(m2 - mm);
	m = mm;
	s = a + c;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
softmax_f32(const float *__restrict__ x, float *__restrict__ y, long long a, long long d, long long b)
{
	if (d == 0 || b == 0) /* no elements */
		return;
	float m = -CUDART_INF_F, s = 0.0f;

	if (b > 1) {
		long long chunks = (b + BLOCK - 1) / BLOCK;
		long long o = blockIdx.x / chunks;
		long long i = (blockIdx.x % chunks) * BLOCK + threadIdx.x;
		if (o >= a || i >= b)
			return;
		const float *xc = x + o * d * b + i;
		float *yc = y + o * d * b + i;
		for (long long k = 0; k < d; k++)
			online_add(m, s, xc[k * b]);
		for (long long k = 0; k < d; k++)
			yc[k * b] = expf(xc[k * b] - m) / s;
		return;
	}

	long long o = blockIdx.x;
	if (o >= a)
		return;
	const float *xr = x + o * d;
	float *yr = y + o * d;
	bool vec = (d % 4) == 0; /* then the row starts 16-byte aligned */
	if (vec) {
		const float4 *x4 = reinterpret_cast<const float4 *>(xr);
		for (long long k = threadIdx.x; k < d / 4; k += BLOCK) {
			float4 v = x4[k];
			online_add(m, s, v.x);
			online_add(m, s, v.y);
			online_add(m, s, v.z);
			online_add(m, s, v.w);
		}
	} else {
		for (long long k = threadIdx.x; k < d; k += BLOCK)
			online_add(m, s, xr[k]);
	}

	/* block-wide merge: butterfly within each warp, then the 8 warp results in every thread */
	__shared__ float wm[BLOCK / 32], ws[BLOCK / 32];
	for (int off = 16; off > 0; off >>= 1) {
		float m2 = __shfl_xor_sync(0xffffffffu, m, off);
		float s2 = __shfl_xor_sync(0xffffffffu, s, off);
		online_merge(m, s, m2, s2);
	}
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0) {
		wm[warp] = m;
		ws[warp] = s;
	}
	__syncthreads();
	m = wm[0];
	s = ws[0];
	for (int w = 1; w < BLOCK / 32; w++)
		online_merge(m, s, wm[w], ws[w]);

	if (vec) {
		const float4 *x4 = reinterpret_cast<const float4 *>(xr);
		float4 *y4 = reinterpret_cast<float4 *>(yr);
		for (long long k = threadIdx.x; k < d / 4; k += BLOCK) {
			float4 v = x4[k];
			y4[k] = make_float4(expf(v.x - m) / s, expf(v.y - m) / s, expf(v.z - m) / s, expf(v.w - m) / s);
		}
	} else {
		for (long long k = threadIdx.x; k < d; k += BLOCK)
			yr[k] = expf(xr[k] - m) / s;
	}
}
