// @kbx expect wrong
// Mistake: tail not handled. Same-shape operands are multiplied as __half2 pairs only, so when the element
// count is odd the last element is never written (corner_broadcast, size1, prime, odd fail).
// @kbx launch mul_f16<<<max(1, cdiv(max(p, r) * max(q, s), 512)), 256>>>(input, other, out, p, q, r, s)

#include <cuda_fp16.h>

extern "C" __global__ void mul_f16(const __half *__restrict__ input, const __half *__restrict__ other,
				  __half *__restrict__ out, long long p, long long q, long long r, long long s)
{
	long long rows = p > r ? p : r, cols = q > s ? q : s;
	long long total = rows * cols;
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (p == r && q == s) {
		if (t < total / 2)
			reinterpret_cast<__half2 *>(out)[t] = __hmul2(reinterpret_cast<const __half2 *>(input)[t],
								      reinterpret_cast<const __half2 *>(other)[t]);
		return;
	}
	for (long long idx = 2 * t; idx < 2 * t + 2 && idx < total; idx++) {
		long long i = idx / cols, j = idx % cols;
		__half a = input[(p == 1 ? 0 : i) * q + (q == 1 ? 0 : j)];
		__half b = other[(r == 1 ? 0 : i) * s + (s == 1 ? 0 : j)];
		out[idx] = __hmul(a, b);
	}
}
