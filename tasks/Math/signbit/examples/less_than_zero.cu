// @kbx expect wrong
// Mistake: tests x < 0 instead of the sign bit. -0 compares equal to 0 and NaN compares false, so -0 and -nan
// give false where torch.signbit gives true (corner_signed_zeros, size1 and the special cases fail).
// @kbx launch signbit_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void signbit_f32(const float *__restrict__ x, unsigned char *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] < 0.0f;
}
