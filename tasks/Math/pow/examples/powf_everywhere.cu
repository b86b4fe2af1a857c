// @kbx expect wrong
// Mistake: ignores PyTorch's shortcuts for a number exponent and calls powf for every element. Ordinary values
// agree within 2 ulp, but the special cases do not: (-0) ** -0.5 is -inf in PyTorch (rsqrtf) and +inf with
// powf; (-inf) ** 0.5 and (-inf) ** -0.5 are NaN in PyTorch (sqrtf, rsqrtf) and +inf / 0 with powf.
// @kbx launch pow_f32<<<max(1, cdiv(n, 256)), 256>>>(input, exponent, out, n, m)

extern "C" __global__ void pow_f32(const float *__restrict__ input, const float *__restrict__ exponent,
				  float *__restrict__ out, long long n, long long m)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = powf(input[i], exponent[m == 1 ? 0 : i]);
}
