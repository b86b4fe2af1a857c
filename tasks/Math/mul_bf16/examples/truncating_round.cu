// @kbx expect wrong
// Mistake: wrong rounding. Converts the f32 product with __float2bfloat16_rz (truncation) instead of round to
// nearest even. Results are off by up to one bf16 ulp (2^-8 to 2^-7 relative), which exceeds 5e-3 + 5e-3 |x|
// for products of magnitude above ~2 (random and broadcast cases), and a product past the last bf16 midpoint
// must become inf where truncation keeps 3.3895e38 (special_values).
// @kbx launch mul_bf16<<<max(1, cdiv(max(p, r) * max(q, s), 256)), 256>>>(input, other, out, p, q, r, s)

#include <cuda_bf16.h>

extern "C" __global__ void mul_bf16(const __nv_bfloat16 *__restrict__ input,
				   const __nv_bfloat16 *__restrict__ other, __nv_bfloat16 *__restrict__ out,
				   long long p, long long q, long long r, long long s)
{
	long long cols = q > s ? q : s;
	long long total = (p > r ? p : r) * cols;
	long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= total)
		return;
	long long i = idx / cols, j = idx % cols;
	float a = __bfloat162float(input[(p == 1 ? 0 : i) * q + (q == 1 ? 0 : j)]);
	float b = __bfloat162float(other[(r == 1 ? 0 : i) * s + (s == 1 ? 0 : j)]);
	out[idx] = __float2bfloat16_rz(a * b);
}
