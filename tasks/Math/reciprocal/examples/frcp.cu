// @kbx expect pass
// Correct alternative: one element per thread through __frcp_rn, the reciprocal rounded to nearest even: the
// same correctly rounded result as the IEEE division 1 / x.
// @kbx launch reciprocal_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void reciprocal_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __frcp_rn(x[i]);
}
