// @kbx expect pass
// Correct alternative: one element per thread, the exponent's shortcut tested per element (a uniform branch for
// a number exponent), with 1 / sqrtf in place of rsqrtf (same -inf at -0, NaN at -inf, within 1 ulp).
// @kbx launch pow_f32<<<max(1, cdiv(n, 256)), 256>>>(input, exponent, out, n, m)

extern "C" __global__ void pow_f32(const float *__restrict__ input, const float *__restrict__ exponent,
				  float *__restrict__ out, long long n, long long m)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float x = input[i];
	if (m != 1) {
		out[i] = powf(x, exponent[i]);
		return;
	}
	float e = exponent[0], r;
	if (e == 2.0f)
		r = x * x;
	else if (e == 3.0f)
		r = x * x * x;
	else if (e == -2.0f)
		r = 1.0f / (x * x);
	else if (e == 0.5f)
		r = sqrtf(x);
	else if (e == -0.5f)
		r = 1.0f / sqrtf(x);
	else if (e == -1.0f)
		r = 1.0f / x;
	else
		r = powf(x, e);
	out[i] = r;
}
