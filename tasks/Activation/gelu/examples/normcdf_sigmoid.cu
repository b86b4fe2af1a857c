// @kbx expect pass
// Correct alternative: one element per thread; erf form as x * normcdff(x), tanh form through the identity
// 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)). Both are at least as accurate as PyTorch's (no cancellation in
// 1 + erf for negative x) and give the same NaN / inf / -0 results.
// @kbx launch gelu_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n, approximate)

extern "C" __global__ void gelu_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
				   int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	if (approximate) {
		float u = 0.7978845608028654f * (v + 0.044715f * (v * v * v));
		y[i] = v / (1.0f + expf(-2.0f * u));
	} else {
		y[i] = v * normcdff(v);
	}
}
