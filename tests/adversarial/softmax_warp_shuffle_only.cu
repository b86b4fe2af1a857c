// @kbx task Math/softmax
// @kbx expect pass
// Correct, written in an unusual way: no shared memory and no __syncthreads at all. For a
// contiguous softmax axis (b = 1) each row belongs to one warp (8 rows per 256-thread block): the
// lanes fold strided elements into a running (max, sum) and merge the 32 pairs with a butterfly of
// __shfl_xor_sync, after which every lane holds the row's result. A whole warp leaves together
// when its row is past the end, so the full-mask shuffles are always legal. A strided axis (b > 1)
// takes one thread per column. The grid, cdiv(a * b, 8) blocks, covers both layouts (the column
// path needs only cdiv(a * b, 256); its extra blocks exit). Special values follow the reference's
// rules (a NaN or +inf makes its slice NaN, an all -inf slice is NaN, -inf entries give 0): the
// same online update and merge.
// @kbx launch softmax_warps<<<max(1, cdiv(a * b, 8)), 256>>>(x, y, a, d, b)

#include <math_constants.h>

__device__ __forceinline__ void online_add(float &m, float &s, float v)
{
	if (v > m) { /* never true for NaN */
		s = s * expf(m - v) + expf(v - v); /* NaN for v = +inf */
		m = v;
	} else if (v != -CUDART_INF_F) {
		s += expf(v - m);
	}
}

__device__ __forceinline__ void online_merge(float &m, float &s, float m2, float s2)
{
	float mm = fmaxf(m, m2);
	float a = (m == mm) ? s : s * expf(m - mm);
	float c = (m2 == mm) ? s2 : s2 * expf(m2 - mm);
	m = mm;
	s = a + c;
}

extern "C" __global__ void softmax_warps(const float *__restrict__ x, float *__restrict__ y, long long a, long long d,
					 long long b)
{
	if (d == 0 || b == 0)
		return;
	float m = -CUDART_INF_F, s = 0.0f;

	if (b > 1) {
		long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
		if (t >= a * b)
			return;
		long long o = t / b, i = t % b;
		const float *xc = x + o * d * b + i;
		float *yc = y + o * d * b + i;
		for (long long k = 0; k < d; k++)
			online_add(m, s, xc[k * b]);
		for (long long k = 0; k < d; k++)
			yc[k * b] = expf(xc[k * b] - m) / s;
		return;
	}

	long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x & 31;
	if (row >= a) /* the same for all 32 lanes */
		return;
	const float *xr = x + row * d;
	float *yr = y + row * d;
	for (long long k = lane; k < d; k += 32)
		online_add(m, s, xr[k]);
	for (int off = 16; off > 0; off >>= 1) {
		float m2 = __shfl_xor_sync(0xffffffffu, m, off);
		float s2 = __shfl_xor_sync(0xffffffffu, s, off);
		online_merge(m, s, m2, s2);
	}
	for (long long k = lane; k < d; k += 32)
		yr[k] = expf(xr[k] - m) / s;
}
