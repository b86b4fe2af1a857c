// tanh on f16, as PyTorch's CUDA kernel for Half: widen to f32, tanhf (CUDA's accurate version, at
// most 2 f32 ulp), round once to f16 (__float2half_rn, nearest even). The f32 error is ~2^13 times
// smaller than an f16 ulp: the result is the correctly rounded f16 value except in rare near-tie
// cases, and then one f16 ulp (2^-11 relative) away, far inside the 5e-3 tolerance.
// Memory-bound: a grid-stride loop over 16-byte vectors of 8 halves (cudaMalloc'd buffers are
// 256-byte aligned), four vectors per thread (cdiv(n, 8192) blocks of 256), then the n % 8 tail
// elements, one each for the first threads of the grid.

// @kbx launch tanh_f16<<<max(1, cdiv(n, 8192)), 256>>>(x, y, n)

#include <cuda_fp16.h>

extern "C" __global__ void tanh_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n8 = n / 8;
	const uint4 *x8 = reinterpret_cast<const uint4 *>(x);
	uint4 *y8 = reinterpret_cast<uint4 *>(y);
	for (long long v = tid; v < n8; v += stride) {
		uint4 p = x8[v];
		__half2 *h = reinterpret_cast<__half2 *>(&p);
#pragma unroll
		for (int k = 0; k < 4; k++) {
			float2 f = __half22float2(h[k]);
			h[k] = __floats2half2_rn(tanhf(f.x), tanhf(f.y));
		}
		y8[v] = p;
	}
	long long i = n8 * 8 + tid; /* at most 7 tail elements */
	if (i < n)
		y[i] = __float2half_rn(tanhf(__half2float(x[i])));
}
