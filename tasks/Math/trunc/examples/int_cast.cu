// @kbx expect wrong
// Mistake: int32 overflow. Truncates through (float)(int)x: beyond the int32 range the conversion saturates
// (1e10 becomes 2147483647), NaN becomes 0 and +-inf become +-2147483648 (odd_wide, special cases fail).
// @kbx launch trunc_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void trunc_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)(int)x[i];
}
