// @kbx expect pass
// Correct alternative: a plain grid-stride loop, one element per step, capped grid (a few blocks per SM),
// with the multiply-add written as an explicit fmaf (what the compiler contracts a + alpha * b into anyway).
// @kbx launch add_f32<<<max(1, min(cdiv(n, 256), sms * 8)), 256>>>(input, other, out, n, m, alpha)

extern "C" __global__ void add_f32(const float *__restrict__ input, const float *__restrict__ other,
				  float *__restrict__ out, long long n, long long m, float alpha)
{
	long long stride = (long long)gridDim.x * blockDim.x;
	long long ostep = (m == 1) ? 0 : 1;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		out[i] = fmaf(alpha, other[i * ostep], input[i]);
}
