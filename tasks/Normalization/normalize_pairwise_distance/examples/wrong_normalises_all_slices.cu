// @kbx expect wrong
// Mistake: normalises over all b * m distances at once (the flattened tensor) instead of over m
// within each slice b (dim_norm = 1 of the [B, N] distances): every output is off by the ratio of
// the slice's norm to the global one, so every case with b > 1 fails (the b = 1 cases pass).
// @kbx scratch dist f32 [max(1, b * m)]
// @kbx launch rows_dist<<<max(1, cdiv(b * m, 256)), 256>>>(x1, x2, dist, i64(b * m), d, p_distance, eps_distance)
// @kbx launch normalise_flat<<<1, 1024>>>(dist, y, i64(b * m), p_norm, eps_norm)

__device__ float term(float v, float p)
{
	float a = fabsf(v);
	return p == 2.0f ? v * v : (p == 1.0f || isinf(p)) ? a : p == 0.0f ? (float)(v != 0.0f) : powf(a, p);
}

__device__ float comb(float a, float b, float p)
{
	if (!isinf(p) || isnan(a) || isnan(b))
		return a + b;
	return p > 0.0f ? fmaxf(a, b) : fminf(a, b);
}

__device__ float root(float s, float p)
{
	return p == 2.0f ? sqrtf(s) : (p == 1.0f || p == 0.0f || isinf(p)) ? s : powf(s, 1.0f / p);
}

extern "C" __global__ void rows_dist(const float *x1, const float *x2, float *dist, long long rows, long long d,
				     float p, float eps)
{
	long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float s = isinf(p) && p < 0.0f ? __int_as_float(0x7f800000) : 0.0f;
	for (long long k = 0; k < d; k++)
		s = comb(s, term(x1[r * d + k] - x2[r * d + k], p), p);
	dist[r] = root(s, p) + eps;
}

extern "C" __global__ void normalise_flat(const float *dist, float *y, long long n, float p, float eps_norm)
{
	__shared__ float sh[1024];
	float s = isinf(p) && p < 0.0f ? __int_as_float(0x7f800000) : 0.0f;
	for (long long k = threadIdx.x; k < n; k += blockDim.x)
		s = comb(s, term(dist[k], p), p);
	sh[threadIdx.x] = s;
	__syncthreads();
	for (int o = 512; o > 0; o >>= 1) {
		if (threadIdx.x < o)
			sh[threadIdx.x] = comb(sh[threadIdx.x], sh[threadIdx.x + o], p);
		__syncthreads();
	}
	float denom = root(sh[0], p);
	denom = isnan(denom) ? denom : fmaxf(denom, eps_norm);
	for (long long k = threadIdx.x; k < n; k += blockDim.x)
		y[k] = dist[k] / denom;
}
