// @kbx expect pass
// Correct alternative: no intermediate buffer; one 256-thread block per output (i, l) computes g in
// registers (the same op-by-op f32 sequence as PyTorch) while it scans its column, then reduces the
// (value, index) pairs through shared memory with the NaN-first, lowest-index order.
//
// @kbx launch gelu_min_fused<<<max(1, min(a * d, 65535)), 256>>>(x, values, indices, a, c, d, approximate)

__device__ __forceinline__ float g_of(float x, int approximate)
{
	if (approximate == 0)
		return __fmul_rn(__fmul_rn(x, erff(__fmul_rn(x, 0.70710677f))), 0.5f);
	float x3 = __fmul_rn(__fmul_rn(x, x), x);
	float t = tanhf(__fmul_rn(0.797884583f, __fadd_rn(x, __fmul_rn(0.044715f, x3))));
	return __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, t));
}

__device__ __forceinline__ bool lt(float v, long long i, float bv, long long bi)
{
	if (v != v)
		return bv == bv || i < bi;
	if (bv != bv)
		return false;
	return v < bv || (v == bv && i < bi);
}

extern "C" __global__ void gelu_min_fused(const float* __restrict__ x, float* __restrict__ values,
                                          long long* __restrict__ indices, long long a, long long c, long long d,
                                          int approximate)
{
	__shared__ float sv[256];
	__shared__ long long si[256];
	for (long long o = blockIdx.x; o < a * d; o += gridDim.x) {
		long long i = o / d, l = o % d;
		float bv = __int_as_float(0x7f800000);
		long long bi = 0x7fffffffffffffffLL;
		for (long long k = threadIdx.x; k < c; k += blockDim.x) {
			float v = g_of(x[(i * c + k) * d + l], approximate);
			if (lt(v, k, bv, bi)) {
				bv = v;
				bi = k;
			}
		}
		sv[threadIdx.x] = bv;
		si[threadIdx.x] = bi;
		__syncthreads();
		for (int s = 128; s > 0; s >>= 1) {
			if (threadIdx.x < s && lt(sv[threadIdx.x + s], si[threadIdx.x + s], sv[threadIdx.x], si[threadIdx.x])) {
				sv[threadIdx.x] = sv[threadIdx.x + s];
				si[threadIdx.x] = si[threadIdx.x + s];
			}
			__syncthreads();
		}
		if (threadIdx.x == 0) {
			values[o] = sv[0];
			indices[o] = si[0];
		}
		__syncthreads();
	}
}
