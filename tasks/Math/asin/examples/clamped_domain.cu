// @kbx expect wrong
// Mistake: clamps x to [-1, 1] "to avoid NaN": out-of-domain inputs give +-pi/2 instead of NaN (domain_randn and special values fail).
// @kbx launch asin_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void asin_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = asinf(fminf(fmaxf(x[i], -1.0f), 1.0f));
}
