// @kbx expect wrong
// Mistake: tanh(log x) simplified algebraically to (x^2 - 1) / (x^2 + 1). Exact in real arithmetic
// and within rounding for ordinary x, but x^2 overflows for x > 1.8e19: inf / inf = NaN where
// PyTorch gives 1 (special_values: 3e38, 3.4e38, 1e20, +inf). One fused kernel, no scratch: only the
// output differs.
//
// @kbx launch log_tanh_algebraic<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(input, y, n)

extern "C" __global__ void log_tanh_algebraic(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float s = x[i] * x[i];
		y[i] = (s - 1.0f) / (s + 1.0f);
	}
}
