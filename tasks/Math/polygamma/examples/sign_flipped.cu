// @kbx expect wrong
// Mistake: wrong sign for n >= 2. Uses (-1)^n * n! * zeta(n + 1, x) instead of (-1)^(n + 1): polygamma(2, x)
// comes out positive, polygamma(3, x) negative: every case with n >= 2 fails (digamma and trigamma are right).
// @kbx launch polygamma_f32<<<max(1, cdiv(len, 256)), 256>>>(x, y, n, len)

#include <math_constants.h>

#define PI_F 3.14159265358979323846f

__device__ float digamma_f32(float x)
{
	if (x == 0.0f)
		return copysignf(CUDART_INF_F, -x);
	float acc = 0.0f;
	if (x < 0.0f) {
		if (x == truncf(x))
			return CUDART_NAN_F;
		double whole;
		acc = (float)(-3.14159265358979323846 / tan(3.14159265358979323846 * modf((double)x, &whole)));
		x = 1.0f - x;
	}
	while (x < 10.0f) {
		acc -= 1.0f / x;
		x += 1.0f;
	}
	float z = 1.0f / (x * x);
	float p = z * (8.333333e-2f + z * (-8.333333e-3f + z * (3.968254e-3f + z * (-4.166667e-3f +
		  z * (7.575758e-3f + z * (-2.109280e-2f + z * 8.333333e-2f))))));
	return logf(x) - 0.5f / x - (x < 1.0e17f ? p : 0.0f) + acc;
}

__device__ float trigamma_f32(float x)
{
	float sign = 1.0f, acc = 0.0f;
	if (x < 0.5f) {
		float s = sinf(PI_F * x);
		acc = -(PI_F * PI_F) / (s * s);
		sign = -1.0f;
		x = 1.0f - x;
	}
	for (int i = 0; i < 6; i++) {
		acc += 1.0f / (x * x);
		x += 1.0f;
	}
	float r = 1.0f / (x * x);
	acc += (1.0f + 0.5f / x + r * (1.0f / 6 - r * (1.0f / 30 - r * (1.0f / 42)))) / x;
	return sign * acc;
}

__device__ float zeta_f32(float s, float q)
{
	const float em[6] = { 12.0f, -720.0f, 30240.0f, -1209600.0f, 47900160.0f, -1.8924375803183791606e9f };
	if (s == 1.0f)
		return CUDART_INF_F;
	if (s < 1.0f)
		return CUDART_NAN_F;
	if (q <= 0.0f) {
		if (q == floorf(q))
			return CUDART_INF_F;
		if (s != floorf(s))
			return CUDART_NAN_F;
	}
	float sum = powf(q, -s), a = q, b = 0.0f;
	for (int i = 0; i < 9 || a <= 9.0f; i++) {
		a += 1.0f;
		b = powf(a, -s);
		sum += b;
	}
	float w = a;
	sum += b * w / (s - 1.0f) - 0.5f * b;
	float fac = 1.0f, k = 0.0f;
	for (int j = 0; j < 6; j++) {
		fac *= s + k;
		b /= w;
		sum += fac * b / em[j];
		fac *= s + k + 1.0f;
		b /= w;
		k += 2.0f;
	}
	return sum;
}

extern "C" __global__ void polygamma_f32(const float *__restrict__ x, float *__restrict__ y, int n, long long len)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= len)
		return;
	float v = x[i];
	if (n == 0)
		y[i] = digamma_f32(v);
	else if (n == 1)
		y[i] = trigamma_f32(v);
	else
		y[i] = ((n % 2) ? -1.0f : 1.0f) * expf(lgammaf(n + 1.0f)) * zeta_f32(n + 1.0f, v);
}
