// @kbx expect wrong
// Mistake: implementing the textbook GELU for approximate = 'none', r * 0.5 * (1 + erf(r / sqrt 2)),
// instead of what the function computes, r * erf(r / 2 ** 0.5) * 0.5 (its "1 +" is missing). The
// two differ by 0.5 * r, so every erf case with r != 0 fails; the tanh form is right. Keeps the
// reference's `sub` stage, which matches: the first wrong buffer is the output y.
//
// @kbx scratch sub f32 [n]
// @kbx launch sub_k<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(input, other, sub, n, alpha)
// @kbx launch gelu_k<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(sub, y, n, approximate)

extern "C" __global__ void sub_k(const float* __restrict__ input, const float* __restrict__ other,
                                 float* __restrict__ sub, long long n, float alpha)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		sub[i] = input[i] - alpha * other[i];
}

extern "C" __global__ void gelu_k(const float* __restrict__ sub, float* __restrict__ y, long long n, int approximate)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float r = sub[i];
		if (approximate)
			y[i] = 0.5f * r * (1.0f + tanhf(0.7978846f * (r + 0.044715f * r * r * r)));
		else
			y[i] = r * 0.5f * (1.0f + erff(r * 0.70710678f)); // BUG: F.gelu, not the function's formula
	}
}
