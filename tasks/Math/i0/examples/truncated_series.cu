// @kbx expect wrong
// Mistake: the power series sum (x^2/4)^k / (k!)^2 cut at 12 terms: fine for small |x|, badly short once |x| exceeds ~8 (outliers and larger ranges fail).
// @kbx launch i0_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void i0_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float q = 0.25f * x[i] * x[i];
	float term = 1.0f, sum = 1.0f;
	for (int k = 1; k <= 12; k++) {
		term *= q / (float)(k * k);
		sum += term;
	}
	y[i] = sum;
}
