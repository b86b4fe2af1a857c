// @kbx expect pass
// Correct alternative: two elements per thread through float2, selecting on the sign bit:
// negative numbers (and -0, NaN with the sign bit set) are multiplied by the slope. That differs
// from x > 0 only for -0 (gives -0 * slope = -0, equal to 0) and NaN (stays NaN either way).
// @kbx launch leaky_relu_f32<<<max(1, cdiv(n, 512)), 256>>>(x, y, n, negative_slope)

extern "C" __global__ void leaky_relu_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
					  float negative_slope)
{
	long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long i = 2 * p;
	if (i + 1 < n) {
		float2 v = reinterpret_cast<const float2 *>(x)[p];
		v.x = signbit(v.x) ? v.x * negative_slope : v.x;
		v.y = signbit(v.y) ? v.y * negative_slope : v.y;
		reinterpret_cast<float2 *>(y)[p] = v;
	} else if (i < n) {
		float v = x[i];
		y[i] = signbit(v) ? v * negative_slope : v;
	}
}
