// @kbx expect pass
// Correct alternative: one block of 256 threads per output, a shared-memory tree over (value, index)
// pairs with the full order (NaN first, larger value, then lower index). Slower for the perf
// workload's single long row (one block), right everywhere.
// @kbx launch argmax_block<<<max(1, a * d), 256>>>(x, y, a, c, d)

#include <cuda_fp16.h>

__device__ bool before(float v, long long i, float bv, long long bi)
{
	if (v != v || bv != bv)
		return v != v && (bv == bv || i < bi);
	return v > bv || (v == bv && i < bi);
}

extern "C" __global__ void argmax_block(const __half *__restrict__ x, long long *__restrict__ y, long long a,
					long long c, long long d)
{
	__shared__ float sv[256];
	__shared__ long long si[256];
	long long o = blockIdx.x;
	if (o >= a * d)
		return;
	long long i = o / d, l = o % d;
	const __half *col = x + i * c * d + l;
	float bv = -__int_as_float(0x7f800000);
	long long bi = 0x7fffffffffffffffLL;
	for (long long k = threadIdx.x; k < c; k += 256) {
		float v = __half2float(col[k * d]);
		if (before(v, k, bv, bi)) {
			bv = v;
			bi = k;
		}
	}
	sv[threadIdx.x] = bv;
	si[threadIdx.x] = bi;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h && before(sv[threadIdx.x + h], si[threadIdx.x + h], sv[threadIdx.x], si[threadIdx.x])) {
			sv[threadIdx.x] = sv[threadIdx.x + h];
			si[threadIdx.x] = si[threadIdx.x + h];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[o] = si[0];
}
