// @kbx expect wrong
// Mistake: the asymptotic series log(x) - 1/(2x) - sum B2k / (2k x^2k) at x itself, without first shifting x up with psi(x) = psi(x + 1) - 1/x (psi(1) is off by 1.5e-3).
// @kbx launch digamma_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void digamma_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float z = 1.0f / (v * v);
	y[i] = logf(v) - 0.5f / v - z * (1.0f / 12 - z * (1.0f / 120 - z * (1.0f / 252 - z / 240)));
}
