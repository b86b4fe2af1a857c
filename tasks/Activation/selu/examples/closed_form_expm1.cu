// @kbx expect pass
// Correct alternative: the formula's closed form, y = 2 * scale * x for x > 0 (there the minimum is
// x), else scale * min(x, alpha * expm1(x)), one element per thread. expm1f avoids the cancellation
// of exp(x) - 1, so this differs from PyTorch's rounding by ~1e-7 absolute at most (tiny positive x,
// where exp(x) rounds to 1, gives scale * x there), inside atol = 1e-5. NaN propagates through fminf
// (both operands NaN); 2 * scale * x overflows to inf where x + x does.
// @kbx launch selu_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

extern "C" __global__ void selu_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	const float kAlpha = 1.6732632423543772f;
	const float kScale = 1.0507009873554805f;
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v > 0.0f ? (2.0f * kScale) * v : kScale * fminf(v, kAlpha * expm1f(v));
	}
}
