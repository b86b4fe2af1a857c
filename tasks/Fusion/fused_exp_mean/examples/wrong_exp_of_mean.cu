// @kbx expect wrong
// Mistake: the two stages fused in the wrong order: exp(mean(x)) instead of mean(exp(x)). Equal
// only when every reduced row is constant (single-value rows, size_1); by Jensen's inequality it is
// smaller everywhere else. There is no `exp` buffer here; the output is wrong.
//
// @kbx launch exp_of_mean<<<max(1, b * d), 256>>>(input, y, b, c, d)

extern "C" __global__ void exp_of_mean(const float* __restrict__ x, float* __restrict__ y, long long b, long long c,
                                       long long d)
{
	__shared__ float sh[8];
	long long o = blockIdx.x;
	if (o >= b * d)
		return;
	const float* base = x + (o / d) * c * d + o % d;
	float s = 0.0f;
	for (long long k = threadIdx.x; k < c; k += 256)
		s += base[k * d];
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		float t = 0.0f;
		for (int w = 0; w < 8; w++)
			t += sh[w];
		y[o] = expf(t / (float)c); // BUG: exp after the mean
	}
}
