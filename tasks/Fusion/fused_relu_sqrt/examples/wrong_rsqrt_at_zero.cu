// @kbx expect wrong
// Mistake: sqrt computed as v * rsqrt(v) (a classic "fast" square root): rsqrt(0) = inf and
// 0 * inf = NaN, so every input <= 0 (half of a randn input, the test's -1 and 0) gives NaN instead
// of 0; elsewhere it is within 2 ulp. Keeps the reference's `relu` stage, which matches: the first
// wrong buffer is the output y.
//
// @kbx scratch relu f32 [n]
// @kbx launch relu_k<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(x, relu, n)
// @kbx launch fast_sqrt<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(relu, y, n)

extern "C" __global__ void relu_k(const float* __restrict__ x, float* __restrict__ r, long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		r[i] = isnan(x[i]) ? x[i] : fmaxf(x[i], 0.0f);
}

extern "C" __global__ void fast_sqrt(const float* __restrict__ r, float* __restrict__ y, long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		y[i] = r[i] * rsqrtf(r[i]); // BUG: 0 * rsqrt(0) = 0 * inf = NaN
}
