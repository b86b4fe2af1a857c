// @kbx task Math/softmax
// @kbx expect runtime_error
// @kbx because MISALIGNED_ADDRESS|misaligned address
// Misaligned vector loads: the reference's kernel with its alignment test dropped. It reads every
// row of at least 4 elements as float4 (plus a scalar tail for d % 4), but a row starts 16-byte
// aligned only when d % 4 == 0. The cases before long_rows have d < 4, d % 4 == 0 or a strided
// axis and pass; long_rows (d = 100003) starts row 1 at byte 400012, and the float4 load there is
// a CUDA_ERROR_MISALIGNED_ADDRESS, a sticky error: verdict runtime_error, and the next run must get
// a fresh worker.
// @kbx launch softmax_f32<<<max(1, a * cdiv(b, 256)), 256>>>(x, y, a, d, b)

#include <math_constants.h>

#define BLOCK 256

__device__ __forceinline__ void online_add(float &m, float &s, float v)
{
	if (v > m) {
		s = s * expf(m - v) + expf(v - v);
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
softmax_f32(const float *__restrict__ x, float *__restrict__ y, long long a, long long d, long long b)
{
	if (d == 0 || b == 0)
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
	long long d4 = d / 4; /* bug: float4 loads from xr, aligned only if d % 4 == 0 */
	const float4 *x4 = reinterpret_cast<const float4 *>(xr);
	for (long long k = threadIdx.x; k < d4; k += BLOCK) {
		float4 v = x4[k];
		online_add(m, s, v.x);
		online_add(m, s, v.y);
		online_add(m, s, v.z);
		online_add(m, s, v.w);
	}
	for (long long k = d4 * 4 + threadIdx.x; k < d; k += BLOCK)
		online_add(m, s, xr[k]);

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

	for (long long k = threadIdx.x; k < d; k += BLOCK)
		yr[k] = expf(xr[k] - m) / s;
}
