// @kbx expect pass
// Correct alternative: no normalised copies. One kernel computes the clamped row norms of x1 and
// x2 (scratch `norm` / `norm2`, the reference's names, so they are diffed), then one warp per pair
// (i, j) divides on the fly and sums |x1[i, k] / norm[i] - x2[j, k] / norm2[j]|^p over k with a
// warp-shuffle reduction. Simple and slow (every row is re-read m or n times from L2), but
// bit-compatible in every term: the divisions and the difference are rounded as in PyTorch.
//
// @kbx scratch norm f32 [n]
// @kbx scratch norm2 f32 [m]
// @kbx launch both_norms<<<max(1, cdiv(n + m, 8)), 256>>>(x1, x2, norm, norm2, n, m, d, p_norm, eps_norm)
// @kbx launch pair_warp<<<max(1, min(cdiv(n * m, 8), 1048576)), 256>>>(x1, x2, norm, norm2, y, n, m, d, p_norm, eps_distance)

static __device__ __forceinline__ float term(float v, float p)
{
	return p == 2.0f ? v * v : p == 1.0f ? fabsf(v) : powf(fabsf(v), p);
}

static __device__ __forceinline__ float root(float s, float p)
{
	return p == 2.0f ? sqrtf(s) : p == 1.0f ? s : powf(s, 1.0f / p);
}

static __device__ __forceinline__ float clamp_nan(float v, float eps)
{
	return isnan(v) ? v : fmaxf(v, eps);
}

extern "C" __global__ void both_norms(const float* __restrict__ x1, const float* __restrict__ x2,
                                      float* __restrict__ norm, float* __restrict__ norm2, long long n, long long m,
                                      long long d, float p, float eps)
{
	long long r = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	if (r >= n + m)
		return;
	const float* row = r < n ? x1 + r * d : x2 + (r - n) * d;
	float s = 0.0f;
	for (long long k = threadIdx.x % 32; k < d; k += 32)
		s += term(row[k], p);
	for (int off = 16; off > 0; off /= 2)
		s += __shfl_down_sync(0xffffffffu, s, off);
	if (threadIdx.x % 32 == 0) {
		if (r < n)
			norm[r] = clamp_nan(root(s, p), eps);
		else
			norm2[r - n] = clamp_nan(root(s, p), eps);
	}
}

extern "C" __global__ void pair_warp(const float* __restrict__ x1, const float* __restrict__ x2,
                                     const float* __restrict__ norm, const float* __restrict__ norm2,
                                     float* __restrict__ y, long long n, long long m, long long d, float p, float eps)
{
	const long long warps = (long long)gridDim.x * 8;
	for (long long pr = (long long)blockIdx.x * 8 + threadIdx.x / 32; pr < n * m; pr += warps) {
		long long i = pr / m, j = pr % m;
		float na = norm[i], nb = norm2[j];
		float s = 0.0f;
		for (long long k = threadIdx.x % 32; k < d; k += 32)
			s += term(x1[i * d + k] / na - x2[j * d + k] / nb, p);
		for (int off = 16; off > 0; off /= 2)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if (threadIdx.x % 32 == 0)
			y[pr] = clamp_nan(root(s, p), eps);
	}
}
