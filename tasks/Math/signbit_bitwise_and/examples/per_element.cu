// @kbx expect pass
// Correct alternative: one element per thread, signbit() normalised to 0 / 1 and the AND done on the int32 of
// truncf(x) (the same byte once reduced to int8: two's complement keeps the low 8 bits).
// @kbx launch signbit_and<<<max(1, cdiv(n, 128)), 128>>>(input, other, sign, anded, n)

extern "C" __global__ void signbit_and(const float *__restrict__ input, const signed char *__restrict__ other,
				      unsigned char *__restrict__ sign, signed char *__restrict__ anded, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = input[i];
	sign[i] = signbit(v) ? 1 : 0;
	int t = (int)truncf(v);
	anded[i] = (signed char)(t & (int)other[i]);
}
