// out = input * other with broadcasting, f16 in and out. Each product is formed in f32 from the two f16
// values (exact: 11 x 11 significand bits fit in 24) and rounded to f16 once, round to nearest even: the
// correctly rounded f16 product, as PyTorch's f16 mul (f32 opmath, one rounding) gives.
//
// Same shapes (p == r, q == s): a grid-stride loop over 16-byte vectors of 8 halves (cudaMalloc'd buffers
// are 256-byte aligned), then the total % 8 tail elements, one each for the first threads of the grid.
// Broadcast shapes: a grid-stride loop over output elements; a dimension of size 1 repeats (index 0).

#include <cuda_fp16.h>

// @kbx launch mul_f16<<<max(1, cdiv(max(p, r) * max(q, s), 8192)), 256>>>(input, other, out, p, q, r, s)

__device__ __forceinline__ __half mul_one(__half a, __half b)
{
	return __float2half_rn(__half2float(a) * __half2float(b));
}

/* 16 bytes seen as one vector load / store or as four pairs */
union pack8 {
	uint4 u;
	__half2 h[4];
};

extern "C" __global__ void mul_f16(const __half *__restrict__ input, const __half *__restrict__ other,
				  __half *__restrict__ out, long long p, long long q, long long r, long long s)
{
	long long rows = p > r ? p : r, cols = q > s ? q : s;
	long long total = rows * cols;
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;

	if (p == r && q == s) {
		long long n8 = total / 8;
		const uint4 *a8 = reinterpret_cast<const uint4 *>(input);
		const uint4 *b8 = reinterpret_cast<const uint4 *>(other);
		uint4 *o8 = reinterpret_cast<uint4 *>(out);
		for (long long v = tid; v < n8; v += stride) {
			pack8 va, vb, vo;
			va.u = a8[v];
			vb.u = b8[v];
#pragma unroll
			for (int k = 0; k < 4; k++) {
				float2 fa = __half22float2(va.h[k]), fb = __half22float2(vb.h[k]);
				vo.h[k] = __floats2half2_rn(fa.x * fb.x, fa.y * fb.y);
			}
			o8[v] = vo.u;
		}
		long long i = n8 * 8 + tid; /* at most 7 tail elements */
		if (i < total)
			out[i] = mul_one(input[i], other[i]);
		return;
	}

	for (long long idx = tid; idx < total; idx += stride) {
		long long i = idx / cols, j = idx % cols;
		long long ia = (p == 1 ? 0 : i) * q + (q == 1 ? 0 : j);
		long long ib = (r == 1 ? 0 : i) * s + (s == 1 ? 0 : j);
		out[idx] = mul_one(input[ia], other[ib]);
	}
}
