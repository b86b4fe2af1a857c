// @kbx expect pass
// Correct alternative: psi in f64 rounded once: reflection with tan(pi * frac(x)), recurrence up to x >= 6,
// then log(x) - 1/(2x) - sum of five Bernoulli terms (truncation < 1e-10 at x = 6). PyTorch's f32 result is
// within 0.07 of the tolerance of the true psi. PyTorch's special rules are reproduced: -+inf at +-0, NaN at
// negative integers and -inf, and denormal inputs give -1/x beyond the f32 range, rounding to -inf.
// @kbx launch digamma_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

__device__ double psi_d(double x)
{
	const double pi = 3.14159265358979323846;
	double acc = 0.0;
	if (x == 0.0)
		return copysign(__longlong_as_double(0x7ff0000000000000LL), -x);
	if (x < 0.0) {
		if (x == trunc(x))
			return __longlong_as_double(0x7ff8000000000000LL);
		acc = -pi / tan(pi * (x - trunc(x)));
		x = 1.0 - x;
	}
	while (x < 6.0) {
		acc -= 1.0 / x;
		x += 1.0;
	}
	double z = 1.0 / (x * x);
	double tail = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132)))));
	return acc + log(x) - 0.5 / x - tail;
}

extern "C" __global__ void digamma_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)psi_d((double)x[i]);
}
