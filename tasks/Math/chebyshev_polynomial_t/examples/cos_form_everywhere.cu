// @kbx expect wrong
// Mistake: uses T_n(x) = cos(n acos(x)) for every x and n; acos is NaN for |x| > 1, where T_n is a finite polynomial (the unclamped outlier draws and |x| > 1 cases fail).
// @kbx launch chebyshev_t_f32<<<max(1, cdiv(numel, 256)), 256>>>(x, y, numel, n)

extern "C" __global__ void chebyshev_t_f32(const float *__restrict__ x, float *__restrict__ y, long long numel,
					   long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= numel)
		return;
	y[i] = n < 0 ? 0.0f : cosf((float)n * acosf(x[i]));
}
