// @kbx expect wrong
// Mistake: wrong approximation. Sums the first 32 terms (q + k)^-x and drops the tail, which is about
// (q + 32)^(1-x) / (x - 1): 0.03 of zeta(2, 1) = 1.645, far beyond the tolerance for x near 2 (corner_basic,
// random_standard, near_pole ... fail; only large x converge fast enough).
// @kbx launch zeta_f32<<<max(1, cdiv(n, 256)), 256>>>(x, q, y, n)

#include <math_constants.h>

extern "C" __global__ void zeta_f32(const float *__restrict__ x, const float *__restrict__ q, float *__restrict__ y,
				   long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float s = x[i], a = q[i];
	if (s == 1.0f) {
		y[i] = CUDART_INF_F;
		return;
	}
	if (s < 1.0f || (a <= 0.0f && a != floorf(a) && s != floorf(s))) {
		y[i] = CUDART_NAN_F;
		return;
	}
	if (a <= 0.0f && a == floorf(a)) {
		y[i] = CUDART_INF_F;
		return;
	}
	float sum = 0.0f;
	for (int k = 0; k < 32; k++)
		sum += powf(a + k, -s);
	y[i] = sum;
}
