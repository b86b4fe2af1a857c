// @kbx expect wrong
// Mistake: a sign slip in the sigmoid, 1 / (1 + exp(z)) = sigmoid(-z) = 1 - sigmoid(z). Right only
// where z = 0 (empty_inner); wrong everywhere else. Same stages and scratch names as the reference:
// the first wrong stage reported should be `sigmoid` (`mv` matches).
//
// @kbx scratch mv f32 [n]
// @kbx scratch sigmoid f32 [n]
// @kbx launch mv_rows<<<max(1, min(cdiv(n, 8), 65535)), 256>>>(input, vec, mv, n, m)
// @kbx launch sigmoid_fwd<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(mv, sigmoid, n)
// @kbx launch sub_fwd<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(sigmoid, other, y, n, omode, other_value, alpha)

extern "C" __global__ void __launch_bounds__(256)
mv_rows(const float* __restrict__ a, const float* __restrict__ v, float* __restrict__ z, long long n, long long m)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * 8;
	for (long long row = (long long)blockIdx.x * 8 + (threadIdx.x >> 5); row < n; row += warps) {
		const float* ar = a + row * m;
		double s = 0.0;
		for (long long k = lane; k < m; k += 32)
			s = fma((double)ar[k], (double)v[k], s);
		for (int off = 16; off > 0; off >>= 1)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if (lane == 0)
			z[row] = (float)s;
	}
}

// torch.sigmoid on CUDA (f32): 1 / (1 + exp(-x))
extern "C" __global__ void __launch_bounds__(256)
sigmoid_fwd(const float* __restrict__ z, float* __restrict__ s, long long n)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		s[i] = __fdiv_rn(1.0f, __fadd_rn(1.0f, expf(z[i]))); // BUG: exp(z), not exp(-z): sigmoid(-z)
}

extern "C" __global__ void __launch_bounds__(256)
sub_fwd(const float* __restrict__ s, const float* __restrict__ other, float* __restrict__ y, long long n, int omode,
        float other_value, float alpha)
{
	const float ao = __fmul_rn(alpha, other_value);
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = __fsub_rn(s[i], omode ? ao : __fmul_rn(alpha, other[i]));
}
