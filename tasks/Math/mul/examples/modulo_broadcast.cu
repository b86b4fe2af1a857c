// @kbx expect wrong
// Mistake: wrong broadcast. Reads each operand at (flat output index) % (its element count), which is right
// for equal shapes, a one-element operand and a [1, k] row, but not for a [m, 1] column: corner_broadcast
// ([1, 2, 3] * [[1], [2], [3]]), bcast_col and bcast_outer fail.
// @kbx launch mul_f16<<<max(1, cdiv(max(p, r) * max(q, s), 256)), 256>>>(input, other, out, p, q, r, s)

#include <cuda_fp16.h>

extern "C" __global__ void mul_f16(const __half *__restrict__ input, const __half *__restrict__ other,
				  __half *__restrict__ out, long long p, long long q, long long r, long long s)
{
	long long total = (p > r ? p : r) * (q > s ? q : s);
	long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= total)
		return;
	float a = __half2float(input[idx % (p * q)]);
	float b = __half2float(other[idx % (r * s)]);
	out[idx] = __float2half_rn(a * b);
}
