// @kbx expect wrong
// Mistake: computes the sign flag as x < 0, which is false for -0: signbit(-0) is true (special_values fails).
// @kbx launch signbit_and<<<max(1, cdiv(n, 256)), 256>>>(input, other, sign, anded, n)

extern "C" __global__ void signbit_and(const float *__restrict__ input, const signed char *__restrict__ other,
				      unsigned char *__restrict__ sign, signed char *__restrict__ anded, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = input[i];
	sign[i] = v < 0.0f;
	anded[i] = (signed char)((int)v & other[i]);
}
