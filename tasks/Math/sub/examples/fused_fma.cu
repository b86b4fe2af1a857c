// @kbx expect pass
// Correct alternative: a grid-stride loop, one element per step, with the product fused into the subtraction
// (fmaf(-alpha, other, input), one rounding instead of two). It differs from the unfused form by at most an
// ulp of alpha * other, which the cases keep inside the tolerance.
// @kbx launch sub_f32<<<max(1, min(cdiv(n, 256), sms * 8)), 256>>>(input, other, out, n, m, alpha)

extern "C" __global__ void sub_f32(const float *__restrict__ input, const float *__restrict__ other,
				  float *__restrict__ out, long long n, long long m, float alpha)
{
	long long stride = (long long)gridDim.x * blockDim.x;
	long long ostep = m == 1 ? 0 : 1;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		out[i] = fmaf(-alpha, other[i * ostep], input[i]);
}
