// @kbx expect wrong
// Mistake: log(|tgamma(x)|): Gamma overflows f32 for x > 35.04, so the log is inf where lgamma is finite (corner_arange 1..1000 fails).
// @kbx launch gammaln_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void gammaln_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = logf(fabsf(tgammaf(x[i])));
}
