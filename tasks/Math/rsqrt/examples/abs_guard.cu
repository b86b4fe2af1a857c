// @kbx expect wrong
// Mistake: takes |x| to avoid NaN. rsqrt of a negative number is NaN in PyTorch (corner_negative,
// random_standard, random_outlier and the special cases fail).
// @kbx launch rsqrt_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void rsqrt_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = rsqrtf(fabsf(x[i]));
}
