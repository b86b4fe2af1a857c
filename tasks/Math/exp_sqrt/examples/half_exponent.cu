// @kbx expect wrong
// Mistake: simplifies sqrt(exp(x)) to exp(x / 2), which stays finite for 88.72 < x < 177 where PyTorch's f32 exp overflows to inf (overflow_band fails).
// @kbx launch exp_sqrt_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void exp_sqrt_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = expf(0.5f * x[i]);
}
