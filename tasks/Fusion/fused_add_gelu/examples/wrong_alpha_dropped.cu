// @kbx expect wrong
// Mistake: the fused kernel forgets the multiplier: it computes gelu(input + other) instead of
// gelu(input + alpha * other), which is only right when alpha = 1.
//
// @kbx launch add_gelu<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(input, other, y, n, alpha, approximate)

extern "C" __global__ void add_gelu(const float* __restrict__ input, const float* __restrict__ other,
                                    float* __restrict__ y, long long n, float alpha, int approximate)
{
	(void)alpha;
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float r = input[i] + other[i];
		if (approximate)
			y[i] = 0.5f * r * (1.0f + tanhf(0.7978845608f * (r + 0.044715f * r * r * r)));
		else
			y[i] = 0.5f * r * (1.0f + erff(r * 0.70710678f));
	}
}
