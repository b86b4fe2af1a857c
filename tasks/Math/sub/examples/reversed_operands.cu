// @kbx expect wrong
// Mistake: subtracts the wrong way round, alpha * other - input (every case with a nonzero difference fails).
// @kbx launch sub_f32<<<max(1, cdiv(n, 256)), 256>>>(input, other, out, n, m, alpha)

extern "C" __global__ void sub_f32(const float *__restrict__ input, const float *__restrict__ other,
				  float *__restrict__ out, long long n, long long m, float alpha)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = alpha * other[m == 1 ? 0 : i] - input[i];
}
