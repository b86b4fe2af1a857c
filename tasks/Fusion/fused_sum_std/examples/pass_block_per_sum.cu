// @kbx expect pass
// Correct alternative: one 1024-thread block per sum (f32 per-thread partials, shuffle tree), then a
// one-block f32 two-pass deviation over the m sums. For dim = None with m = 1 <= correction the
// second kernel writes 0 without reading anything; the first still sums (the `sum` buffer keeps the
// reference's name and is diffed).
//
// @kbx scratch sum f32 [b * d]
// @kbx launch sums<<<max(1, b * d), 1024>>>(input, sum, b, c, d)
// @kbx launch std_of_sums<<<1, 1024>>>(sum, y, i64(b * d), correction)

static __device__ float bsum(float v)
{
	__shared__ float sh[32];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	float r = 0.0f;
	for (int w = 0; w < 32; w++)
		r += sh[w];
	__syncthreads();
	return r;
}

extern "C" __global__ void sums(const float* __restrict__ x, float* __restrict__ sum, long long b, long long c,
                                long long d)
{
	const long long o = blockIdx.x;
	if (o >= b * d)
		return;
	const float* base = x + (o / d) * c * d + o % d;
	float s = 0.0f;
	for (long long k = threadIdx.x; k < c; k += 1024)
		s += base[k * d];
	s = bsum(s);
	if (threadIdx.x == 0)
		sum[o] = s;
}

extern "C" __global__ void std_of_sums(const float* __restrict__ sum, float* __restrict__ y, long long m,
                                       long long correction)
{
	if (m <= correction) {
		if (threadIdx.x == 0)
			y[0] = 0.0f;
		return;
	}
	float s = 0.0f;
	for (long long i = threadIdx.x; i < m; i += 1024)
		s += sum[i];
	const float mean = bsum(s) / (float)m;
	float q = 0.0f;
	for (long long i = threadIdx.x; i < m; i += 1024)
		q += (sum[i] - mean) * (sum[i] - mean);
	q = bsum(q);
	if (threadIdx.x == 0)
		y[0] = sqrtf(q / (float)(m - correction));
}
