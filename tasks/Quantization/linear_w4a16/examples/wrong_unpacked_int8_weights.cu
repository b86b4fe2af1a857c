// @kbx expect wrong
// Mistake: quantizes exactly as the contract says but keeps each 4-bit value in a byte of its own
// (int8 storage) instead of packing two per byte. The outputs match the reference, but W4A16 is
// about the halved weight traffic: the source shows no packing or unpacking of 4-bit values
// (evidence int4_storage), so it cannot pass.
//
// @kbx scratch w_scale f32 [n]
// @kbx scratch w_q i8 [n, k]
// @kbx launch quant_rows<<<max(1, cdiv(n, 8)), 256>>>(weight, w_q, w_scale, n, k)
// @kbx launch linear_q<<<max(1, cdiv(n, 8)), 256>>>(input, w_q, w_scale, bias, y, m, k, n, has_bias)

#include <cuda_fp16.h>

// one warp per weight row
extern "C" __global__ void quant_rows(const __half* __restrict__ w, signed char* __restrict__ wq,
                                      float* __restrict__ w_scale, long long n, long long k)
{
	const long long j = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (j >= n)
		return;
	float amax = 0.0f;
	for (long long kk = lane; kk < k; kk += 32)
		amax = fmaxf(amax, fabsf(__half2float(w[j * k + kk])));
	for (int off = 16; off > 0; off >>= 1)
		amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
	const float scale = amax / 7.0f;
	if (lane == 0)
		w_scale[j] = scale;
	for (long long kk = lane; kk < k; kk += 32)
		wq[j * k + kk] = scale > 0.0f ? (signed char)(int)fminf(fmaxf(rintf(__half2float(w[j * k + kk]) / scale), -8.0f), 7.0f) : 0;
}

extern "C" __global__ void linear_q(const __half* __restrict__ x, const signed char* __restrict__ wq,
                                    const float* __restrict__ w_scale, const __half* __restrict__ bias,
                                    __half* __restrict__ y, long long m, long long k, long long n, int has_bias)
{
	const long long j = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (j >= n)
		return;
	for (long long i = 0; i < m; i++) {
		float dot = 0.0f;
		for (long long kk = lane; kk < k; kk += 32)
			dot = fmaf(__half2float(x[i * k + kk]), (float)wq[j * k + kk], dot);
		for (int off = 16; off > 0; off >>= 1)
			dot += __shfl_xor_sync(0xffffffffu, dot, off);
		if (lane == 0)
			y[i * n + j] = __float2half_rn(dot * w_scale[j] + (has_bias ? __half2float(bias[j]) : 0.0f));
	}
}
