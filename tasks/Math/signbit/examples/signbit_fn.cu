// @kbx expect pass
// Correct alternative: one element per thread with CUDA's signbit(), whose nonzero result is normalised to 1
// (a bool byte must be exactly 0 or 1).
// @kbx launch signbit_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void signbit_f32(const float *__restrict__ x, unsigned char *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = signbit(x[i]) ? 1 : 0;
}
