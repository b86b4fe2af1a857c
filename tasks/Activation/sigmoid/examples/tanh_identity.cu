// @kbx expect pass
// Correct alternative: sigmoid(x) = 0.5 + 0.5 * tanh(x / 2), one element per thread. For very
// negative x it cancels (0.5 - 0.5 * 0.99999...), losing relative accuracy only where the result is
// far below the absolute tolerance 1e-5; NaN and +-inf give NaN, 1 and 0 as in PyTorch.
// @kbx launch sigmoid_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

extern "C" __global__ void sigmoid_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaf(0.5f, tanhf(0.5f * x[i]), 0.5f);
}
