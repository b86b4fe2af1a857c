// @kbx expect pass
// Correct alternative: the same series in double precision (machine epsilon of double in the zeta stopping
// test, exact pi), rounded to f32 once. More accurate than PyTorch's f32 evaluation; on every case the two
// agree well inside the tolerance, including the poles, NaN and infinite inputs.
// @kbx launch polygamma_f32<<<max(1, cdiv(len, 128)), 128>>>(x, y, n, len)

#include <math_constants.h>

__device__ double digamma_f64(double x)
{
	const double pi = 3.14159265358979323846;
	if (x == 0.0)
		return copysign(CUDART_INF, -x);
	double acc = 0.0;
	if (x < 0.0) {
		if (x == trunc(x))
			return CUDART_NAN;
		double whole;
		acc = -pi / tan(pi * modf(x, &whole));
		x = 1.0 - x;
	}
	while (x < 10.0) {
		acc -= 1.0 / x;
		x += 1.0;
	}
	double z = 1.0 / (x * x);
	double p = z * (8.33333333333333333333E-2 + z * (-8.33333333333333333333E-3 + z * (3.96825396825396825397E-3 +
		   z * (-4.16666666666666666667E-3 + z * (7.57575757575757575758E-3 + z * (-2.10927960927960927961E-2 +
		   z * 8.33333333333333333333E-2))))));
	if (!(x < 1.0e17))
		p = 0.0;
	return log(x) - 0.5 / x - p + acc;
}

__device__ double trigamma_f64(double x)
{
	const double pi = 3.14159265358979323846;
	double sign = 1.0, acc = 0.0;
	if (x < 0.5) {
		double s = sin(pi * x);
		acc = -(pi * pi) / (s * s);
		sign = -1.0;
		x = 1.0 - x;
	}
	for (int i = 0; i < 10; i++) {
		acc += 1.0 / (x * x);
		x += 1.0;
	}
	double r = 1.0 / (x * x);
	/* psi1(x) ~ 1/x + 1/(2x^2) + sum B_2k / x^(2k+1) */
	acc += (1.0 + 0.5 / x + r * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42 - r * (1.0 / 30))))) / x;
	return sign * acc;
}

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

extern "C" __global__ void polygamma_f32(const float *__restrict__ x, float *__restrict__ y, int n, long long len)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= len)
		return;
	double v = x[i], r;
	if (n == 0)
		r = digamma_f64(v);
	else if (n == 1)
		r = trigamma_f64(v);
	else
		r = ((n % 2) ? 1.0 : -1.0) * exp(lgamma(n + 1.0)) * zeta_f64(n + 1.0, v);
	y[i] = (float)r;
}
