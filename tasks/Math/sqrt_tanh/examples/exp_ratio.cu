// @kbx expect wrong
// Mistake: wrong approximation at large arguments. tanh(s) = (e^2s - 1) / (e^2s + 1) overflows to inf / inf =
// NaN once 2s > 88.7, i.e. x > ~1967 (special_values with x = 1e4, 1e30, 3e38 and +inf fails: PyTorch gives 1).
// @kbx launch sqrt_tanh_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void sqrt_tanh_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float e = expf(2.0f * sqrtf(x[i]));
		y[i] = (e - 1.0f) / (e + 1.0f);
	}
}
