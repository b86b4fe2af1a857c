// @kbx expect pass
// Correct alternative: one element per thread, exp(s) as exp2f(s * log2(e)) after the correctly rounded
// __fsqrt_rn. The extra rounding of s * log2(e) costs at most |s| * 2^-24 relative, under 6e-6 for the largest
// finite results (s < 88.8), within the tolerance.
// @kbx launch sqrt_exp_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void sqrt_exp_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = exp2f(__fsqrt_rn(x[i]) * 1.4426950408889634f);
}
