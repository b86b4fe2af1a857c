// @kbx expect wrong
// Mistake: wrong approximation. Computes every power as exp2(e * log2(x)), which is NaN for any negative base
// (log2 of a negative number) even when the exponent is an integer: (-1.3) ** 2 must be 1.69, not NaN
// (random_standard_square, cube, tensor_negative_base and special cases fail).
// @kbx launch pow_f32<<<max(1, cdiv(n, 256)), 256>>>(input, exponent, out, n, m)

extern "C" __global__ void pow_f32(const float *__restrict__ input, const float *__restrict__ exponent,
				  float *__restrict__ out, long long n, long long m)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float e = exponent[m == 1 ? 0 : i];
	out[i] = exp2f(e * log2f(input[i]));
}
