// @kbx expect wrong
// Mistake: always uses the tanh approximation of GELU, also when approximate = 0 asks for the
// exact erf form; the two differ by up to ~5e-4 (around |x| = 2), far above 1e-5.
//
// @kbx launch add_gelu<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(input, other, y, n, alpha, approximate)

extern "C" __global__ void add_gelu(const float* __restrict__ input, const float* __restrict__ other,
                                    float* __restrict__ y, long long n, float alpha, int approximate)
{
	(void)approximate; // "tanh is close enough"
	const float k = 0.7978845608f;
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float r = input[i] + alpha * other[i];
		y[i] = 0.5f * r * (1.0f + tanhf(k * (r + 0.044715f * r * r * r)));
	}
}
