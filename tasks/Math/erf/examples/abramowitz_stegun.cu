// @kbx expect wrong
// Mistake: a low-order textbook approximation (Abramowitz-Stegun 7.1.27, max error 5e-4), far outside the 1e-5 tolerance.
// @kbx launch erf_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void erf_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float a = fabsf(v);
	float p = 1.0f + a * (0.278393f + a * (0.230389f + a * (0.000972f + a * 0.078108f)));
	float p2 = p * p;
	float r = 1.0f - 1.0f / (p2 * p2);
	y[i] = copysignf(r, v);
}
