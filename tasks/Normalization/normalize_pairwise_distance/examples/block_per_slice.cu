// @kbx expect pass
// Correct alternative: one kernel, one block per slice b. Its warps compute the slice's m distances
// (a warp per row, lanes over d) straight into y, the block reduces their p_norm-norm, and divides
// y in place. Only b blocks run (16 for the perf rows), so it is slow on large inputs, but the
// operations are PyTorch's f32 ones.
// @kbx launch npd_slice<<<max(1, b), 512>>>(x1, x2, y, b, m, d, p_distance, eps_distance, p_norm, eps_norm)

__device__ float term(float v, float p)
{
	float a = fabsf(v);
	if (p == 2.0f)
		return __fmul_rn(v, v);
	if (p == 1.0f || isinf(p))
		return a;
	if (p == 0.0f)
		return v != 0.0f ? 1.0f : 0.0f;
	return powf(a, p);
}

__device__ float comb(float a, float b, float p)
{
	if (!isinf(p) || isnan(a) || isnan(b))
		return a + b;
	return p > 0.0f ? fmaxf(a, b) : fminf(a, b);
}

__device__ float ident(float p)
{
	return isinf(p) && p < 0.0f ? __int_as_float(0x7f800000) : 0.0f;
}

__device__ float root(float s, float p)
{
	if (p == 2.0f)
		return sqrtf(s);
	if (p == 1.0f || p == 0.0f || isinf(p))
		return s;
	return powf(s, 1.0f / p);
}

__device__ float warp_comb(float v, float p)
{
	for (int o = 16; o > 0; o >>= 1)
		v = comb(v, __shfl_xor_sync(0xffffffffu, v, o), p);
	return v;
}

extern "C" __global__ void npd_slice(const float *x1, const float *x2, float *y, long long b, long long m, long long d,
				     float p_distance, float eps_distance, float p_norm, float eps_norm)
{
	__shared__ float sh[16];
	__shared__ float denom_sh;
	const long long slice = blockIdx.x;
	if (slice >= b)
		return;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
	for (long long r = warp; r < m; r += nwarps) {
		const long long row = slice * m + r;
		float s = ident(p_distance);
		for (long long k = lane; k < d; k += 32)
			s = comb(s, term(x1[row * d + k] - x2[row * d + k], p_distance), p_distance);
		s = warp_comb(s, p_distance);
		if (lane == 0)
			y[row] = root(s, p_distance) + eps_distance;
	}
	__syncthreads(); /* y of this slice is complete (global writes of this block are visible to it) */
	float s = ident(p_norm);
	for (long long k = threadIdx.x; k < m; k += blockDim.x)
		s = comb(s, term(y[slice * m + k], p_norm), p_norm);
	s = warp_comb(s, p_norm);
	if (lane == 0)
		sh[warp] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		float t = ident(p_norm);
		for (int w = 0; w < nwarps; w++)
			t = comb(t, sh[w], p_norm);
		t = root(t, p_norm);
		denom_sh = isnan(t) ? t : fmaxf(t, eps_norm);
	}
	__syncthreads();
	const float denom = denom_sh;
	for (long long k = threadIdx.x; k < m; k += blockDim.x)
		y[slice * m + k] = y[slice * m + k] / denom;
}
