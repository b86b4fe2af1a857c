// @kbx expect pass
// Correct alternative: tanh(x) = sign(x) * (1 - 2 / (exp(2|x|) + 1)), one element per thread. It
// never overflows (exp(2|x|) = inf gives exactly 1); near 0 it cancels, but the absolute error
// stays around 1e-7, far inside atol = 1e-5. copysignf keeps -0 and the sign of NaN.
// @kbx launch tanh_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

extern "C" __global__ void tanh_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		float t = 1.0f - 2.0f / (expf(2.0f * fabsf(v)) + 1.0f);
		y[i] = copysignf(t, v);
	}
}
