/*
 * kbx/linear_exact.h - the exact linear layer a quantization reference keeps for [tolerance] exact
 * (doc/task-format.md): y = F.linear(x, w, bias) for f16 x [m, k], f16 w [n, k] and an optional
 * f16 bias [n] (has_bias), accumulated in f32 (every f16 x f16 product is exact in f32) and
 * rounded once to the f16 output, as linear_w4a16's examples/fp16_no_quantization.cu computes it.
 * Launch it `untimed`, on max(1, cdiv(n, 8)) blocks of 256 threads (one warp per output feature,
 * looping over the m rows): it runs in checked calls only and never counts in the reference's
 * timing.
 */
#ifndef KBX_LINEAR_EXACT_H
#define KBX_LINEAR_EXACT_H

#include <cuda_fp16.h>

extern "C" __global__ void __launch_bounds__(256)
linear_f16_exact(const __half* __restrict__ x, const __half* __restrict__ wt, const __half* __restrict__ bias,
		 __half* __restrict__ y, long long m, long long k, long long n, int has_bias)
{
	const long long j = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (j >= n)
		return;
	for (long long i = 0; i < m; i++) {
		float dot = 0.0f;
		for (long long kk = lane; kk < k; kk += 32)
			dot = fmaf(__half2float(x[i * k + kk]), __half2float(wt[j * k + kk]), dot);
		for (int off = 16; off > 0; off >>= 1)
			dot += __shfl_xor_sync(0xffffffffu, dot, off);
		if (lane == 0)
			y[i * n + j] = __float2half_rn(dot + (has_bias ? __half2float(bias[j]) : 0.0f));
	}
}

#endif
