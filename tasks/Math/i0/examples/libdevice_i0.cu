// @kbx expect pass
// Correct alternative: CUDA's cyl_bessel_i0f (max 6 ulp) plus PyTorch's two quirks: inf from |x| >= 88.7228394
// on (where PyTorch's exp(|x|) overflows before the scaling brings it back) and NaN for +-inf.
// @kbx launch i0_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void i0_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float a = fabsf(x[i]);
	float r;
	if (isinf(a))
		r = __int_as_float(0x7fc00000);
	else if (a >= 88.72283935546875f) /* expf overflows from here on */
		r = __int_as_float(0x7f800000);
	else
		r = cyl_bessel_i0f(a);
	y[i] = r;
}
