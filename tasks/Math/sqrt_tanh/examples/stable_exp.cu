// @kbx expect pass
// Correct alternative: one element per thread, tanh(s) = 1 - 2 / (e^2s + 1), which saturates to 1 when e^2s
// overflows. It loses relative accuracy for tiny s (absolute error ~1e-7 there, inside atol = 1e-5); NaN,
// negative x and -0 (0 here, equal for the comparison) come through.
// @kbx launch sqrt_tanh_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void sqrt_tanh_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 1.0f - 2.0f / (expf(2.0f * sqrtf(x[i])) + 1.0f);
}
