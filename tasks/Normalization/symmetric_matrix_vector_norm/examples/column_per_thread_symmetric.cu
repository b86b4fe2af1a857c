// @kbx expect pass
// Correct alternative that relies on the symmetry: thread i computes (A x)_i as column i,
// sum over k of A[k, i] x[k], so that a warp reads 32 consecutive floats of row k at every step
// (coalesced without a warp reduction), accumulating in f32 like cuBLAS. Then t = alpha * y,
// u = t + beta * t (separately rounded), a per-block f32 tree of the norm terms and a last block
// for the root. f32 accumulation is ~sqrt(n) ulps of sum |a x| per row, well inside 1e-5 for the
// norm. Slower than the reference at large n (the row walk serialises per thread).
// @kbx scratch part f32 [max(1, cdiv(n, 256))]
// @kbx launch cols<<<max(1, cdiv(n, 256)), 256>>>(A, x, part, n, alpha, beta, p)
// @kbx launch finish<<<1, 256>>>(part, y, i64(max(1, cdiv(n, 256))), p)

__device__ float combine(float a, float b, float p)
{
	if (!isinf(p))
		return a + b;
	if (isnan(a) || isnan(b))
		return a + b;
	return p > 0.0f ? fmaxf(a, b) : fminf(a, b);
}

__device__ float identity(float p)
{
	return isinf(p) && p < 0.0f ? __int_as_float(0x7f800000) : 0.0f;
}

/* tree over the block's 256 values; result in sh[0] */
__device__ void tree(float *sh, float p)
{
	for (int o = 128; o > 0; o >>= 1) {
		if (threadIdx.x < o)
			sh[threadIdx.x] = combine(sh[threadIdx.x], sh[threadIdx.x + o], p);
		__syncthreads();
	}
}

extern "C" __global__ void cols(const float *A, const float *x, float *part, long long n, float alpha, float beta,
				float p)
{
	__shared__ float sh[256];
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	float term = identity(p);
	if (i < n) {
		float s = 0.0f;
		for (long long k = 0; k < n; k++)
			s = fmaf(A[k * n + i], x[k], s);
		float t = __fmul_rn(alpha, s);
		float u = __fadd_rn(t, __fmul_rn(beta, t));
		float a = fabsf(u);
		if (p == 2.0f)
			term = __fmul_rn(u, u);
		else if (p == 1.0f || isinf(p))
			term = a;
		else if (p == 0.0f)
			term = u != 0.0f ? 1.0f : 0.0f;
		else
			term = powf(a, p);
	}
	sh[threadIdx.x] = term;
	__syncthreads();
	tree(sh, p);
	if (threadIdx.x == 0)
		part[blockIdx.x] = sh[0];
}

extern "C" __global__ void finish(const float *part, float *y, long long parts, float p)
{
	__shared__ float sh[256];
	float acc = identity(p);
	for (long long k = threadIdx.x; k < parts; k += blockDim.x)
		acc = combine(acc, part[k], p);
	sh[threadIdx.x] = acc;
	__syncthreads();
	tree(sh, p);
	if (threadIdx.x == 0) {
		acc = sh[0];
		y[0] = p == 2.0f ? sqrtf(acc) : (p == 1.0f || p == 0.0f || isinf(p)) ? acc : powf(acc, 1.0f / p);
	}
}
