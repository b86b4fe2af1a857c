// @kbx expect pass
// Correct alternative: one element per thread, trunc(x) = copysign(floor(|x|), x): exact, and NaN, +-inf and
// the sign of zero come through unchanged.
// @kbx launch trunc_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void trunc_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = copysignf(floorf(fabsf(x[i])), x[i]);
}
