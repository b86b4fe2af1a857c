// @kbx expect pass
// Correct alternative: asin(x) = atan2(x, sqrt((1 - x) * (1 + x))). The factored radicand keeps full relative
// accuracy near +-1 (1 - x*x would cancel); |x| > 1 and +-inf make it negative, so sqrt and then atan2 give NaN.
// @kbx launch asin_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void asin_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	y[i] = atan2f(v, sqrtf((1.0f - v) * (1.0f + v)));
}
