// @kbx expect wrong
// Mistake: a missing grid-wide dependency. The std stage splits each reduced column over many
// blocks (1024 elements each) and, instead of waiting for the column's mean, every block subtracts
// the mean of its own chunk; the blocks' sums of squares are then added. That drops the spread of
// the chunk means, sum_b n_b (m_b - m)^2, about (chunks - 1) / c of the variance: ~5e-4 relative on
// the std for random_standard_all and long_uniform, deterministic. Same `gelu` stage and scratch
// name as the reference (it matches); the first difference is the output.
//
// @kbx scratch gelu f32 [a, c, d]
// @kbx scratch std_m2 f64 [a * d * cdiv(c, 1024)]
// @kbx launch gelu_fwd<<<max(1, min(cdiv(a * c * d, 1024), 65536)), 256>>>(input, gelu, i64(a * c * d), approximate)
// @kbx launch std_chunks<<<dim3(max(1, min(a * d, 65535)), max(1, cdiv(c, 1024))), 256>>>(gelu, std_m2, a, c, d)
// @kbx launch std_sum<<<max(1, cdiv(a * d, 256)), 256>>>(std_m2, y, i64(a * d), i64(cdiv(c, 1024)), c, correction)

__device__ __forceinline__ float gelu1(float x, int approximate)
{
	if (approximate)
		return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	return x * 0.5f * (1.0f + erff(x * 0.70710678f));
}

extern "C" __global__ void gelu_fwd(const float* __restrict__ x, float* __restrict__ y, long long n, int approximate)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (long long)gridDim.x * blockDim.x)
		y[e] = gelu1(x[e], approximate);
}

__device__ double block_sum(double v, double* sh)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = 128; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			sh[threadIdx.x] += sh[threadIdx.x + s];
		__syncthreads();
	}
	double r = sh[0];
	__syncthreads();
	return r;
}

extern "C" __global__ void std_chunks(const float* __restrict__ g, double* __restrict__ m2, long long a, long long c,
                                      long long d)
{
	__shared__ double sh[256];
	const long long chunks = (c + 1023) / 1024;
	const long long k0 = (long long)blockIdx.y * 1024, k1 = min(c, k0 + 1024);
	for (long long o = blockIdx.x; o < a * d; o += gridDim.x) {
		const long long i = o / d, l = o % d;
		const float* col = g + i * c * d + l;
		double s = 0.0;
		for (long long k = k0 + threadIdx.x; k < k1; k += 256)
			s += col[k * d];
		double mean_b = block_sum(s, sh) / (double)(k1 - k0); // BUG: the chunk's mean, not the column's
		double q = 0.0;
		for (long long k = k0 + threadIdx.x; k < k1; k += 256) {
			double v = col[k * d] - mean_b;
			q += v * v;
		}
		q = block_sum(q, sh);
		if (threadIdx.x == 0)
			m2[o * chunks + blockIdx.y] = q;
	}
}

extern "C" __global__ void std_sum(const double* __restrict__ m2, float* __restrict__ y, long long outputs,
                                   long long chunks, long long c, long long correction)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= outputs)
		return;
	double q = 0.0;
	for (long long p = 0; p < chunks; p++)
		q += m2[o * chunks + p];
	double dof = c - correction > 0 ? (double)(c - correction) : 0.0;
	y[o] = (float)sqrt(q / dof);
}
