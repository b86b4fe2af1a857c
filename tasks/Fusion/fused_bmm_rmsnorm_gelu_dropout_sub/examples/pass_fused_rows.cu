// @kbx expect pass
// Correct alternative: one kernel, one 256-thread block per row (z, i) of the result. The block
// computes the row's p dot products into shared memory (f32 fmaf chains, each thread several
// columns), reduces the sum of squares, then writes dropout(gelu(z * rstd)) directly. The input2
// columns are re-read for every row (cached in L2); fine for the test sizes, slow for big ones.
// `other` is passed and ignored, as the KernelBenchX function ignores it.
//
// @kbx launch bmm_rms_gelu_dropout<<<max(1, b * n), 256, (m + p + 8) * 4>>>(input1, input2, other, y, b, n, m, p, dropout_p, eps, training, approximate, seed)

#include <kbx/rng.h>

static __device__ __forceinline__ float gelu1(float x, int approximate)
{
	if (approximate)
		return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	return 0.5f * x * (1.0f + erff(x * 0.70710678f));
}

extern "C" __global__ void __launch_bounds__(256)
bmm_rms_gelu_dropout(const float* __restrict__ a, const float* __restrict__ bb, const float* __restrict__ other,
                     float* __restrict__ y, long long nb, long long n, long long m, long long p, float dp, float eps,
                     int training, int approximate, long long seed)
{
	extern __shared__ float sm[];
	float* arow = sm;          // [m]
	float* zrow = sm + m;      // [p]
	float* red = zrow + p;     // [8]
	const long long row = blockIdx.x;
	if (row >= nb * n)
		return;
	const long long z = row / n;
	(void)other;
	for (long long k = threadIdx.x; k < m; k += 256)
		arow[k] = a[row * m + k];
	__syncthreads();
	const float* B = bb + z * m * p;
	float ss = 0.0f;
	for (long long j = threadIdx.x; j < p; j += 256) {
		float acc = 0.0f;
		for (long long k = 0; k < m; k++)
			acc = fmaf(arow[k], B[k * p + j], acc);
		zrow[j] = acc;
		ss += acc * acc;
	}
	for (int o = 16; o > 0; o >>= 1)
		ss += __shfl_xor_sync(0xffffffffu, ss, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = ss;
	__syncthreads();
	ss = 0.0f;
	for (int w = 0; w < 8; w++)
		ss += red[w];
	const float rstd = rsqrtf(ss / (float)p + eps);
	const bool active = training && dp > 0.0f;
	const float scale = dp < 1.0f ? 1.0f / (1.0f - dp) : 0.0f;
	for (long long j = threadIdx.x; j < p; j += 256) {
		float v = gelu1(zrow[j] * rstd, approximate);
		long long e = row * p + j;
		if (active)
			v = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= dp ? v * scale : v * 0.0f;
		y[e] = v;
	}
}
