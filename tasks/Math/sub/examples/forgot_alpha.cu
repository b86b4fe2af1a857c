// @kbx expect wrong
// Mistake: forgets alpha and computes input - other (corner_alpha and every case with alpha != 1 fail).
// @kbx launch sub_f32<<<max(1, cdiv(n, 256)), 256>>>(input, other, out, n, m, alpha)

extern "C" __global__ void sub_f32(const float *__restrict__ input, const float *__restrict__ other,
				  float *__restrict__ out, long long n, long long m, float alpha)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = input[i] - other[m == 1 ? 0 : i];
}
