// @kbx expect pass
// Correct alternative on the raw 16-bit patterns, two values per 32-bit word: a value whose sign bit
// is set and which is not a NaN (magnitude bits <= 0x7f80, i.e. up to -inf) becomes +0; everything
// else, NaN included, is copied. Exact, as the reference.
// @kbx launch relu_bf16<<<max(1, cdiv(n, 512)), 256>>>(x, y, n)

#include <cuda_bf16.h>

__device__ __forceinline__ unsigned int relu_bits(unsigned int b)
{
	return ((b & 0x8000u) && (b & 0x7fffu) <= 0x7f80u) ? 0u : b;
}

extern "C" __global__ void relu_bf16(const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y,
				     long long n)
{
	long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long i = 2 * p;
	const unsigned short *xs = reinterpret_cast<const unsigned short *>(x);
	unsigned short *ys = reinterpret_cast<unsigned short *>(y);
	if (i + 1 < n) {
		unsigned int w = reinterpret_cast<const unsigned int *>(x)[p];
		unsigned int lo = relu_bits(w & 0xffffu), hi = relu_bits(w >> 16);
		reinterpret_cast<unsigned int *>(y)[p] = lo | (hi << 16);
	} else if (i < n) {
		ys[i] = (unsigned short)relu_bits(xs[i]);
	}
}
