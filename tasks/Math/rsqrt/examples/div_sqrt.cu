// @kbx expect pass
// Correct alternative: one element per thread as 1 / sqrtf(x), both correctly rounded: within 1 ulp of the
// exact value (rsqrtf is within 2), and the same special values (1 / sqrtf(-0) = 1 / -0 = -inf).
// @kbx launch rsqrt_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void rsqrt_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 1.0f / sqrtf(x[i]);
}
