// @kbx expect pass
// Correct alternative: one block per output, GELU in registers, two passes over the column in f32:
// the mean first (tree reduction), then the sum of squared deviations from it. No intermediate
// buffer. f32 tree sums stay ~1e-7 relative at the task's sizes.
// GELU is recomputed in each pass, so both passes must get the same rounded value: its last
// multiplication is __fmul_rn. A plain `*` there is contracted by NVRTC (fmad on by default) into
// an fma with the `s +` of the first pass and the `- mean` of the second, which then sees the
// unrounded product: g - mean is the product's rounding error instead of 0, and a single element
// with correction 1 (size_1_nan) gives q / 0 = inf instead of 0 / 0 = NaN.
//
// @kbx launch gelu_std_twopass<<<max(1, min(a * d, 65535)), 256>>>(input, y, a, c, d, correction, approximate)

__device__ __forceinline__ float gelu1(float x, int approximate)
{
	if (approximate)
		return __fmul_rn(0.5f * x, 1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	return __fmul_rn(x * 0.5f, 1.0f + erff(x * 0.70710678f));
}

__device__ float block_sum(float v, float* sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	float r = 0.0f;
	if (threadIdx.x < 32) {
		r = threadIdx.x < 8 ? sh[threadIdx.x] : 0.0f;
		for (int off = 16; off > 0; off >>= 1)
			r += __shfl_down_sync(0xffffffffu, r, off);
		if (threadIdx.x == 0)
			sh[8] = r;
	}
	__syncthreads();
	r = sh[8];
	__syncthreads();
	return r;
}

extern "C" __global__ void gelu_std_twopass(const float* __restrict__ input, float* __restrict__ y, long long a,
                                            long long c, long long d, long long correction, int approximate)
{
	__shared__ float sh[9];
	for (long long o = blockIdx.x; o < a * d; o += gridDim.x) {
		const long long i = o / d, l = o % d;
		const float* col = input + i * c * d + l;
		float s = 0.0f;
		for (long long k = threadIdx.x; k < c; k += 256)
			s += gelu1(col[k * d], approximate);
		const float mean = block_sum(s, sh) / (float)c;
		float q = 0.0f;
		for (long long k = threadIdx.x; k < c; k += 256) {
			float v = gelu1(col[k * d], approximate) - mean;
			q = fmaf(v, v, q);
		}
		q = block_sum(q, sh);
		if (threadIdx.x == 0) {
			float dof = c - correction > 0 ? (float)(c - correction) : 0.0f;
			y[o] = sqrtf(q / dof);
		}
	}
}
