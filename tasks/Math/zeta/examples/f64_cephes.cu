// @kbx expect pass
// Correct alternative: the same method in double precision (double machine epsilon in the stopping tests),
// rounded to f32 once: more accurate than PyTorch's f32 evaluation, and within the tolerance of it on every
// case, including the poles and NaN inputs.
// @kbx launch zeta_f32<<<max(1, cdiv(n, 128)), 128>>>(x, q, y, n)

#include <math_constants.h>

__device__ double zeta_f64(double s, double q)
{
	const double em[12] = { 12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
				-2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
				1.8152105401943546773e17, -7.1661652561756670113e18 };
	const double eps = 1.11022302462515654042E-16;
	if (s == 1.0)
		return CUDART_INF;
	if (s < 1.0)
		return CUDART_NAN;
	if (q <= 0.0) {
		if (q == floor(q))
			return CUDART_INF;
		if (s != floor(s))
			return CUDART_NAN;
	}
	double sum = pow(q, -s), a = q, b = 0.0;
	for (int i = 0; i < 9 || a <= 9.0;) {
		i++;
		a += 1.0;
		b = pow(a, -s);
		sum += b;
		if (fabs(b) < eps * fabs(sum))
			return sum;
	}
	double w = a;
	sum += b * w / (s - 1.0) - 0.5 * b;
	double fac = 1.0, k = 0.0;
	for (int j = 0; j < 12; j++) {
		fac *= s + k;
		b /= w;
		double t = fac * b / em[j];
		sum += t;
		if (fabs(t / sum) < eps)
			break;
		fac *= s + k + 1.0;
		b /= w;
		k += 2.0;
	}
	return sum;
}

extern "C" __global__ void zeta_f32(const float *__restrict__ x, const float *__restrict__ q, float *__restrict__ y,
				   long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)zeta_f64(x[i], q[i]);
}
