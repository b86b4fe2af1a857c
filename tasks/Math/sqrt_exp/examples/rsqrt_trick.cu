// @kbx expect wrong
// Mistake: computes sqrt(x) as x * rsqrt(x), a common fast-math trick that fails at 0: 0 * rsqrt(0) = 0 * inf
// = NaN, so exp(sqrt(0)) comes out NaN instead of 1 (corner_zeros and the special cases fail; also +inf).
// @kbx launch sqrt_exp_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void sqrt_exp_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = expf(v * rsqrtf(v));
	}
}
