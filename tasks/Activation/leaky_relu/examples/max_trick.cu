// @kbx expect wrong
// Mistake: y = fmaxf(x, slope * x), an identity that only holds for 0 <= slope <= 1: slope 1.5 and -0.5 give wrong values, and with slope 0, -inf gives -inf instead of NaN.
// @kbx launch leaky_relu_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, negative_slope)

extern "C" __global__ void leaky_relu_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
					  float negative_slope)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = fmaxf(v, v * negative_slope);
	}
}
