// @kbx expect wrong
// Mistake: one-pass variance in f32, var = (sum g^2 - (sum g)^2 / n) / (n - correction): the two
// sums are ~1e4 times the variance when the mean is large against the spread (case shifted_mean,
// values near 100 with std 0.29), and the f32 subtraction cancels away the result. Fused, one
// block per output, no scratch: only the output differs.
//
// @kbx launch gelu_std_onepass<<<max(1, min(a * d, 65535)), 256>>>(input, y, a, c, d, correction, approximate)

__device__ __forceinline__ float gelu1(float x, int approximate)
{
	if (approximate)
		return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	return x * 0.5f * (1.0f + erff(x * 0.70710678f));
}

extern "C" __global__ void gelu_std_onepass(const float* __restrict__ input, float* __restrict__ y, long long a,
                                            long long c, long long d, long long correction, int approximate)
{
	__shared__ float s1s[256], s2s[256];
	for (long long o = blockIdx.x; o < a * d; o += gridDim.x) {
		long long i = o / d, l = o % d;
		float s1 = 0.0f, s2 = 0.0f;
		for (long long k = threadIdx.x; k < c; k += blockDim.x) {
			float g = gelu1(input[(i * c + k) * d + l], approximate);
			s1 += g;
			s2 += g * g;
		}
		s1s[threadIdx.x] = s1;
		s2s[threadIdx.x] = s2;
		__syncthreads();
		for (int s = 128; s > 0; s >>= 1) {
			if (threadIdx.x < s) {
				s1s[threadIdx.x] += s1s[threadIdx.x + s];
				s2s[threadIdx.x] += s2s[threadIdx.x + s];
			}
			__syncthreads();
		}
		if (threadIdx.x == 0) {
			float n = (float)c;
			float m2 = s2s[0] - s1s[0] * s1s[0] / n;
			float dof = c - correction > 0 ? (float)(c - correction) : 0.0f;
			y[o] = sqrtf(fmaxf(m2, 0.0f) / dof);
		}
		__syncthreads();
	}
}
