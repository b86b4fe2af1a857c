// @kbx expect pass
// Correct alternative: the three-term recurrence in f64 for every degree (stable on [-1, 1], accurate to
// ~n ulp of f64), rounded once; PyTorch's f32 cos form is within 0.4 of the tolerance of the true value
// for the degrees used here (n <= 20). PyTorch's rules for n < 0, |x| == 1 and n == 0 are kept; at +-inf
// the f64 recurrence meets the same inf - inf as PyTorch's f32 one.
// @kbx launch chebyshev_t_f32<<<max(1, cdiv(numel, 128)), 128>>>(x, y, numel, n)

extern "C" __global__ void chebyshev_t_f32(const float *__restrict__ x, float *__restrict__ y, long long numel,
					   long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= numel)
		return;
	double v = x[i];
	float r;
	if (n < 0)
		r = 0.0f;
	else if (fabs(v) == 1.0)
		r = (v > 0.0 || n % 2 == 0) ? 1.0f : -1.0f;
	else if (n == 0)
		r = 1.0f;
	else {
		double p = 1.0, q = v;
		for (long long k = 2; k <= n; k++) {
			double t = 2.0 * v * q - p;
			p = q;
			q = t;
		}
		r = (float)q;
	}
	y[i] = r;
}
