// @kbx expect wrong
// Mistake: implements the textbook SELU (F.selu: scale * x for x > 0, scale * alpha * (exp(x) - 1) otherwise) instead of the task's formula, whose minimum(x, ...) term doubles positive inputs and keeps x below about -1.2.
// @kbx launch selu_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void selu_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = 1.0507009873554805f * (v > 0.0f ? v : 1.6732632423543772f * expm1f(v));
	}
}
