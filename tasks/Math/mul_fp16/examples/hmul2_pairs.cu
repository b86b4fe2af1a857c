// @kbx expect pass
// Correct alternative: same-shape operands as __half2 pairs through __hmul2 (f16 multiply, round to nearest
// even: the correctly rounded product, as f32-then-round gives), the odd last element on its own; broadcast
// shapes one element per step of a grid-stride loop.
// @kbx launch mul_f16<<<max(1, cdiv(max(p, r) * max(q, s), 512)), 256>>>(input, other, out, p, q, r, s)

#include <cuda_fp16.h>

extern "C" __global__ void mul_f16(const __half *__restrict__ input, const __half *__restrict__ other,
				  __half *__restrict__ out, long long p, long long q, long long r, long long s)
{
	long long rows = p > r ? p : r, cols = q > s ? q : s;
	long long total = rows * cols;
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	if (p == r && q == s) {
		if (t < total / 2)
			reinterpret_cast<__half2 *>(out)[t] = __hmul2(reinterpret_cast<const __half2 *>(input)[t],
								      reinterpret_cast<const __half2 *>(other)[t]);
		if (t == 0 && total % 2)
			out[total - 1] = __hmul(input[total - 1], other[total - 1]);
		return;
	}
	for (long long idx = t; idx < total; idx += stride) {
		long long i = idx / cols, j = idx % cols;
		__half a = input[(p == 1 ? 0 : i) * q + (q == 1 ? 0 : j)];
		__half b = other[(r == 1 ? 0 : i) * s + (s == 1 ? 0 : j)];
		out[idx] = __hmul(a, b);
	}
}
