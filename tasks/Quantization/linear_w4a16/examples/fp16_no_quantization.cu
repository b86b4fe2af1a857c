// @kbx expect wrong
// Mistake: skips the int4 weight quantization and computes the plain f16 linear layer (f32
// accumulation, what KernelBenchX's own reference computes). The source shows none of the evidence
// the task requires (no packed 4-bit values, no rounding, no clamp, no scales), so it cannot pass
// whatever its outputs. Its outputs alone would pass: 4-bit weights are coarse, and the quantizing
// reference is rmse 1.3 to 12.5 away from them on the random draws and the perf-like case, but
// they are the exact result that [tolerance] exact also accepts, as KernelBenchX does.
//
// @kbx launch linear_f16<<<max(1, cdiv(n, 8)), 256>>>(input, weight, bias, y, m, k, n, has_bias)

#include <cuda_fp16.h>

// one warp per output feature, looping over the batch rows
extern "C" __global__ void linear_f16(const __half* __restrict__ x, const __half* __restrict__ wt,
                                      const __half* __restrict__ bias, __half* __restrict__ y,
                                      long long m, long long k, long long n, int has_bias)
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
