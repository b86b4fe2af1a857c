// polygamma(n, x) in f32, the algorithms PyTorch's CUDA kernels run (its jiterator versions of the Cephes
// functions, all arithmetic in f32), rewritten here:
//   n = 0, digamma: 0 -> copysign(inf, -x); negative integers -> NaN; for x < 0 the reflection
//          -pi / tan(pi * frac(x)) is computed in double and x becomes 1 - x; then psi(x) = psi(x + 1) - 1 / x
//          up to x >= 10 (x == 10 exactly: the stored psi(10)), and log(x) - 0.5 / x - z * P(z), z = 1 / x^2,
//          with the degree-6 Bernoulli polynomial P (dropped for x >= 1e17).
//   n = 1, trigamma: for x < 0.5 the reflection pi^2 / sin^2(pi x) - psi1(1 - x), with pi rounded to f32 and
//          sinf; six steps of psi1(x) = psi1(x + 1) + 1 / x^2; then the asymptotic series
//          (1 + 1 / (2x) + (1/6 - (1/30 - (1/42) / x^2) / x^2) / x^2) / x.
//   n >= 2: (-1)^(n + 1) * exp(lgamma(n + 1)) * zeta(n + 1, x), zeta the Hurwitz zeta of Math/zeta: a direct
//          sum of (x + k)^-(n + 1) up to at least 9 terms and x + k > 9, then 12 Euler-Maclaurin terms; poles
//          (x a non-positive integer) give +inf times the sign.
// Accuracy, measured with an f32 model of these operations (numpy, same order) against mpmath, as the largest
// |ours - exact| / (1e-5 + 1e-5 |exact|) (1 = the edge of the tolerance): x in [0.1, 1e6] and n = 0..5, 8, 10,
// 15: <= 0.08; negative x: n = 0 <= 0.04, n = 1 on (-0.95, 0.45) <= 0.27, n = 2 on (-4, 0) <= 0.21, n = 3
// <= 0.04. The f32 formulas are poor elsewhere and PyTorch returns what they give, which the cases avoid:
// trigamma below -1 near the poles (pi rounded to f32 moves them; up to 100x the tolerance, and finite
// ~1e15 values at the negative integers themselves), n = 4 near x = -0.5 (4x), n >= 2 at x = +inf (NaN
// from 0 * inf in the Euler-Maclaurin step). On the generated inputs of every case, these functions compiled
// for the host (f32, glibc's powf / sinf / lgammaf) stay within 0.23 of the tolerance (worst: negative_n1).
// Each element costs a few dozen flops to a few hundred (the zeta loop); one element per grid-stride step.

// @kbx launch polygamma_f32<<<max(1, min(cdiv(len, 256), sms * 32)), 256>>>(x, y, n, len)

#include <math_constants.h>

#define PI_F 3.14159265358979323846f

__device__ float digamma_f32(float x)
{
	const double pi = 3.14159265358979323846;
	if (x == 0.0f)
		return copysignf(CUDART_INF_F, -x);
	float acc = 0.0f;
	if (x < 0.0f) {
		if (x == truncf(x))
			return CUDART_NAN_F;
		double whole;
		double frac = modf((double)x, &whole);
		acc = (float)(-pi / tan(pi * frac));
		x = 1.0f - x;
	}
	while (x < 10.0f) {
		acc -= 1.0f / x;
		x += 1.0f;
	}
	if (x == 10.0f)
		return acc + 2.25175258906672110764f; /* psi(10) */
	float poly = 0.0f;
	if (x < 1.0e17f) {
		/* Bernoulli-number coefficients of the asymptotic series, highest power first */
		const float c[7] = { 8.33333333333333333333E-2f, -2.10927960927960927961E-2f,
				     7.57575757575757575758E-3f, -4.16666666666666666667E-3f,
				     3.96825396825396825397E-3f, -8.33333333333333333333E-3f,
				     8.33333333333333333333E-2f };
		float z = 1.0f / (x * x);
		float p = 0.0f;
		for (int i = 0; i < 7; i++)
			p = p * z + c[i];
		poly = z * p;
	}
	return logf(x) - 0.5f / x - poly + acc;
}

__device__ float trigamma_f32(float x)
{
	float sign = 1.0f;
	float acc = 0.0f;
	if (x < 0.5f) {
		sign = -1.0f;
		float s = sinf(PI_F * x);
		acc -= (PI_F * PI_F) / (s * s);
		x = 1.0f - x;
	}
	for (int i = 0; i < 6; i++) {
		acc += 1.0f / (x * x);
		x += 1.0f;
	}
	float ixx = 1.0f / (x * x);
	acc += (1.0f + 1.0f / (2.0f * x) + ixx * (1.0f / 6.0f - ixx * (1.0f / 30.0f - ixx * (1.0f / 42.0f)))) / x;
	return sign * acc;
}

/* Hurwitz zeta(s, q) = sum_k (q + k)^-s, s >= 1 (Cephes' method in f32) */
__device__ float zeta_f32(float s, float q)
{
	const float machep = 1.11022302462515654042E-16f;
	/* (2k)! / B_2k: the Euler-Maclaurin denominators */
	const float em[12] = { 12.0f, -720.0f, 30240.0f, -1209600.0f, 47900160.0f, -1.8924375803183791606e9f,
			       7.47242496e10f, -2.950130727918164224e12f, 1.1646782814350067249e14f,
			       -4.5979787224074726105e15f, 1.8152105401943546773e17f,
			       -7.1661652561756670113e18f };
	if (s == 1.0f)
		return CUDART_INF_F;
	if (s < 1.0f)
		return CUDART_NAN_F;
	if (q <= 0.0f) {
		if (q == floorf(q))
			return CUDART_INF_F;
		if (s != floorf(s))
			return CUDART_NAN_F; /* a negative base to a non-integer power */
	}
	float sum = powf(q, -s);
	float a = q, b = 0.0f;
	int i = 0;
	while (i < 9 || a <= 9.0f) {
		i++;
		a += 1.0f;
		b = powf(a, -s);
		sum += b;
		if (-machep * sum < b && b < machep * sum)
			return sum;
	}
	float w = a;
	sum += b * w / (s - 1.0f);
	sum -= 0.5f * b;
	float fac = 1.0f, k = 0.0f;
	for (int j = 0; j < 12; j++) {
		fac *= s + k;
		b /= w;
		float t = fac * b / em[j];
		sum = sum + t;
		if (fabsf(t / sum) < machep)
			return sum;
		k += 1.0f;
		fac *= s + k;
		b /= w;
		k += 1.0f;
	}
	return sum;
}

__device__ __forceinline__ float polygamma_one(int n, float x)
{
	if (n == 0)
		return digamma_f32(x);
	if (n == 1)
		return trigamma_f32(x);
	float sign = (n % 2) ? 1.0f : -1.0f;
	return sign * expf(lgammaf((float)n + 1.0f)) * zeta_f32((float)(n + 1), x);
}

extern "C" __global__ void polygamma_f32(const float *__restrict__ x, float *__restrict__ y, int n, long long len)
{
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < len; i += stride)
		y[i] = polygamma_one(n, x[i]);
}
