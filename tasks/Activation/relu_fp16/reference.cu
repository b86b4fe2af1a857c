// ReLU on f16, as PyTorch's CUDA clamp_min(x, 0) for Half: the value is widened to f32, NaN is
// returned as it is, anything else becomes max(x, 0), and the result is narrowed back. Exact (no
// rounding: max(x, 0) is x or 0), so a correct candidate matches bit for bit up to the sign of 0.
// Memory-bound: a grid-stride loop over 16-byte vectors of 8 halves (cudaMalloc'd buffers are
// 256-byte aligned), four vectors per thread (cdiv(n, 8192) blocks of 256), then the n % 8 tail
// elements, one each for the first threads of the grid.

// @kbx launch relu_f16<<<max(1, cdiv(n, 8192)), 256>>>(x, y, n)

#include <cuda_fp16.h>

__device__ __forceinline__ float relu_one(float v)
{
	return v != v ? v : fmaxf(v, 0.0f); /* NaN first, as clamp_min does */
}

extern "C" __global__ void relu_f16(const __half *__restrict__ x, __half *__restrict__ y, long long n)
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
			h[k] = __floats2half2_rn(relu_one(f.x), relu_one(f.y));
		}
		y8[v] = p;
	}
	long long i = n8 * 8 + tid; /* at most 7 tail elements */
	if (i < n)
		y[i] = __float2half_rn(relu_one(__half2float(x[i])));
}
