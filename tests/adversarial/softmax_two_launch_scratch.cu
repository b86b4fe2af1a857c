// @kbx task Math/softmax
// @kbx expect pass
// Correct, written in an unusual way: two launches that communicate through scratch buffers
// (doc/task-format.md "reference.cu and launch lines": device memory the kernels may use freely,
// poisoned before each run). Launch 1 gives every slice (o, i) a block that folds the slice into a
// running (max, sum) and stores the pair in rowmax / rowsum; launch 2 is elementwise over all of y
// and divides with its slice's pair. Every scratch element that launch 2 reads is written by launch
// 1 first (the a * b slices are exactly the a * b scratch elements), so the poison never shows;
// empty shapes give zero-sized scratch and launches with nothing to do. Special values follow the
// reference's rules through the same online update and merge.
// @kbx scratch rowmax f32 [a * b]
// @kbx scratch rowsum f32 [a * b]
// @kbx launch softmax_stats<<<max(1, a * b), 256>>>(x, rowmax, rowsum, a, d, b)
// @kbx launch softmax_write<<<max(1, cdiv(a * d * b, 256)), 256>>>(x, rowmax, rowsum, y, a, d, b)

#include <math_constants.h>

#define BLOCK 256

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

extern "C" __global__ void __launch_bounds__(BLOCK)
softmax_stats(const float *__restrict__ x, float *__restrict__ rowmax, float *__restrict__ rowsum, long long a,
	      long long d, long long b)
{
	__shared__ float wm[BLOCK / 32], ws[BLOCK / 32];
	long long slice = blockIdx.x;
	if (slice >= a * b)
		return;
	long long o = slice / b, i = slice % b;
	const float *xs = x + o * d * b + i;
	float m = -CUDART_INF_F, s = 0.0f;

	for (long long k = threadIdx.x; k < d; k += BLOCK)
		online_add(m, s, xs[k * b]);
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
	if (threadIdx.x == 0) {
		m = wm[0];
		s = ws[0];
		for (int w = 1; w < BLOCK / 32; w++)
			online_merge(m, s, wm[w], ws[w]);
		rowmax[slice] = m;
		rowsum[slice] = s;
	}
}

extern "C" __global__ void softmax_write(const float *__restrict__ x, const float *__restrict__ rowmax,
					 const float *__restrict__ rowsum, float *__restrict__ y, long long a, long long d,
					 long long b)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= a * d * b)
		return;
	long long o = e / (d * b), i = e % b;
	long long slice = o * b + i;
	y[e] = expf(x[e] - rowmax[slice]) / rowsum[slice];
}
