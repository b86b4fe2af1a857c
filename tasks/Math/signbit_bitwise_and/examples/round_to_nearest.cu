// @kbx expect wrong
// Mistake: converts to int8 with round-to-nearest (__float2int_rn) instead of truncation toward zero:
// -0.7 becomes -1 (0xFF), so -0.7 & 1 gives 1 instead of 0 (corner_negative and the random cases fail).
// @kbx launch signbit_and<<<max(1, cdiv(n, 256)), 256>>>(input, other, sign, anded, n)

extern "C" __global__ void signbit_and(const float *__restrict__ input, const signed char *__restrict__ other,
				      unsigned char *__restrict__ sign, signed char *__restrict__ anded, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = input[i];
	sign[i] = signbit(v) ? 1 : 0;
	anded[i] = (signed char)(__float2int_rn(v) & other[i]);
}
