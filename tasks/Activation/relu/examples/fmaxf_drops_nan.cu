// @kbx expect wrong
// Mistake: y = fmaxf(x, 0); fmaxf returns the non-NaN operand, so NaN inputs become 0 instead of staying NaN (special-values cases fail).
// @kbx launch relu_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void relu_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], 0.0f);
}
