// @kbx expect pass
// Correct alternative: one output element per thread with general broadcast strides (stride 0 along a size-1
// dimension) and __hmul, the f16 multiply rounded to nearest even: the same correctly rounded product as
// f32 multiply-then-round.
// @kbx launch mul_f16<<<max(1, cdiv(max(p, r) * max(q, s), 256)), 256>>>(input, other, out, p, q, r, s)

#include <cuda_fp16.h>

extern "C" __global__ void mul_f16(const __half *__restrict__ input, const __half *__restrict__ other,
				  __half *__restrict__ out, long long p, long long q, long long r, long long s)
{
	long long cols = q > s ? q : s;
	long long total = (p > r ? p : r) * cols;
	long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= total)
		return;
	long long i = idx / cols, j = idx % cols;
	long long a_row = p == 1 ? 0 : q, a_col = q == 1 ? 0 : 1;
	long long b_row = r == 1 ? 0 : s, b_col = s == 1 ? 0 : 1;
	out[idx] = __hmul(input[i * a_row + j * a_col], other[i * b_row + j * b_col]);
}
