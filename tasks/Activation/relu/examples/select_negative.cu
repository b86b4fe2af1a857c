// @kbx expect pass
// Correct alternative: one element per thread, y = x < 0 ? 0 : x. The comparison is false for NaN,
// so NaN passes through unchanged, as in PyTorch (and -0 stays -0, which compares equal to +0).
// @kbx launch relu_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

extern "C" __global__ void relu_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v < 0.0f ? 0.0f : v;
	}
}
