// @kbx expect pass
// Correct alternative: the same two-sided split, but the exponent is computed in f64 and rounded to
// f32 once before powf (PyTorch rounds step and each FMA in f32). The exponents differ by at most
// about an ulp, which moves y by ln(base) * ulp(e) relative (<= ~5e-6), inside rtol = 1e-5; the
// endpoints are still exact, so negative bases give the same NaN pattern.
// @kbx launch logspace_f32<<<max(1, cdiv(n, 128)), 128>>>(y, n, start, end, base)

extern "C" __global__ void logspace_f32(float *__restrict__ y, long long n, float start, float end, float base)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	if (n == 1) {
		y[0] = (float)pow((double)base, (double)start);
		return;
	}
	double step = ((double)end - (double)start) / (double)(n - 1);
	double e = i < n / 2 ? (double)start + step * (double)i : (double)end - step * (double)(n - 1 - i);
	y[i] = powf(base, (float)e);
}
