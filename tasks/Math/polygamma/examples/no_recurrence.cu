// @kbx expect wrong
// Mistake: wrong approximation. Evaluates the asymptotic series of digamma / trigamma / zeta directly at x,
// without first stepping x up to about 10 with the recurrences (and without the reflection for small or
// negative x): right for large x, far off below x ~ 5 (the corner cases at x = 0.5 and 1 already fail).
// @kbx launch polygamma_f32<<<max(1, cdiv(len, 256)), 256>>>(x, y, n, len)

extern "C" __global__ void polygamma_f32(const float *__restrict__ x, float *__restrict__ y, int n, long long len)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= len)
		return;
	float v = x[i];
	float r2 = 1.0f / (v * v);
	float out;
	if (n == 0) {
		out = logf(v) - 0.5f / v - r2 * (1.0f / 12 - r2 * (1.0f / 120 - r2 * (1.0f / 252)));
	} else {
		/* (-1)^(n+1) [ (n-1)! / x^n + n! / (2 x^(n+1)) + (n+1)! / (12 x^(n+2)) - (n+3)! / (720 x^(n+4)) ] */
		float f = expf(lgammaf((float)n));
		float p = powf(v, -(float)n);
		float c2 = n * (n + 1) / 12.0f, c4 = n * (n + 1) * (n + 2) * (n + 3) / 720.0f;
		out = f * p * (1.0f + n / (2.0f * v) + c2 * r2 - c4 * r2 * r2);
		if (n % 2 == 0)
			out = -out;
	}
	y[i] = out;
}
