// torch.argmax(input, dim) of an f16 tensor over the middle dim of the contiguous view x[a, c, d]:
// y[i, l] = the first k whose x[i, k, l] is the maximum. As PyTorch's CUDA comparator: NaN is larger
// than everything (the first NaN wins), equal values (also -0 and +0) go to the lower index. The
// halves are compared as floats (exact conversion).
//
// Two levels, no atomics. argmax_partial, block (g, p) over the p-th of P chunks of the c axis:
//  - d = 1 (rows): g is the row i; the 256 threads stride over the chunk in groups of 8 halves
//    (one 16-byte load) when c % 8 == 0, which keeps every row 16-byte aligned (chunks are rounded up
//    to multiples of 8), element by element otherwise.
//  - d > 1 (columns): g is a tile of 32 consecutive l of one i; lane = l, the 8 warps stride over k
//    (each warp reads 32 consecutive halves of one row), merged through shared memory.
// Each thread visits its elements in increasing k and replaces its best only on a strictly larger
// value (or a first NaN), so it keeps the first occurrence; every merge uses the full (value, index)
// order, which makes the result the global first maximum whatever the split. argmax_final merges the
// P (value, index) partials of an output with one warp.
//
// Exact: comparisons only.
//
// P = max(1, min(cdiv(c * min(d, 32), 16384), 1024)): ~16K elements per block (the perf workload's
// 2^29 halves: 1024 blocks of 2^19, 256 16-byte loads per thread).

// @kbx scratch pval f32 [a * d * max(1, min(cdiv(c * min(d, 32), 16384), 1024))]
// @kbx scratch pidx i64 [a * d * max(1, min(cdiv(c * min(d, 32), 16384), 1024))]
// @kbx launch argmax_partial<<<dim3(max(1, a * cdiv(d, 32)), max(1, min(cdiv(c * min(d, 32), 16384), 1024))), 256>>>(x, pval, pidx, a, c, d)
// @kbx launch argmax_final<<<max(1, cdiv(a * d, 8)), 256>>>(pval, pidx, y, i64(a * d), i64(max(1, min(cdiv(c * min(d, 32), 16384), 1024))))

#include <cuda_fp16.h>

#define BLOCK 256
#define NO_INDEX 0x7fffffffffffffffLL
#define NEG_INF __int_as_float(0xff800000)

// Whether (v, i) comes before (bv, bi): NaN first, then larger values, ties to the lower index.
__device__ __forceinline__ bool before(float v, long long i, float bv, long long bi)
{
	bool vn = v != v, bn = bv != bv;
	if (vn || bn)
		return vn && (!bn || i < bi);
	return v > bv || (v == bv && i < bi);
}

__device__ __forceinline__ void take(float v, long long i, float &bv, long long &bi)
{
	if (before(v, i, bv, bi)) {
		bv = v;
		bi = i;
	}
}

__device__ __forceinline__ void warp_merge(float &bv, long long &bi)
{
	for (int off = 16; off > 0; off >>= 1) {
		float v = __shfl_down_sync(0xffffffffu, bv, off);
		long long i = __shfl_down_sync(0xffffffffu, bi, off);
		take(v, i, bv, bi);
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
argmax_partial(const __half *__restrict__ x, float *__restrict__ pval, long long *__restrict__ pidx, long long a,
	       long long c, long long d)
{
	__shared__ float sv[BLOCK];
	__shared__ long long si[BLOCK];
	long long chunks = gridDim.y, p = blockIdx.y;
	float bv = NEG_INF; /* -inf with NO_INDEX loses every tie */
	long long bi = NO_INDEX;
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	if (d == 1) {
		long long i = blockIdx.x;
		if (i >= a)
			return;
		long long chunk = ((c + chunks - 1) / chunks + 7) & ~7LL;
		long long k0 = p * chunk, k1 = min(c, k0 + chunk);
		const __half *row = x + i * c;
		if ((c & 7) == 0) {
			const uint4 *v8 = reinterpret_cast<const uint4 *>(row);
			for (long long g = k0 / 8 + threadIdx.x; g < k1 / 8; g += BLOCK) {
				uint4 q = v8[g];
				const __half2 *h = reinterpret_cast<const __half2 *>(&q);
#pragma unroll
				for (int t = 0; t < 4; t++) {
					float2 f = __half22float2(h[t]);
					take(f.x, 8 * g + 2 * t, bv, bi);
					take(f.y, 8 * g + 2 * t + 1, bv, bi);
				}
			}
		} else {
			for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK)
				take(__half2float(row[k]), k, bv, bi);
		}
		warp_merge(bv, bi);
		if (lane == 0) {
			sv[warp] = bv;
			si[warp] = bi;
		}
		__syncthreads();
		if (warp == 0) {
			bv = lane < BLOCK / 32 ? sv[lane] : NEG_INF;
			bi = lane < BLOCK / 32 ? si[lane] : NO_INDEX;
			warp_merge(bv, bi);
			if (lane == 0) {
				pval[i * chunks + p] = bv;
				pidx[i * chunks + p] = bi;
			}
		}
		return;
	}

	long long tiles = (d + 31) / 32;
	long long i = blockIdx.x / tiles;
	long long l = (blockIdx.x % tiles) * 32 + lane;
	if (i >= a)
		return;
	long long chunk = (c + chunks - 1) / chunks;
	long long k0 = p * chunk, k1 = min(c, k0 + chunk);
	if (l < d) {
		const __half *col = x + i * c * d + l;
		for (long long k = k0 + warp; k < k1; k += BLOCK / 32)
			take(__half2float(col[k * d]), k, bv, bi);
	}
	sv[threadIdx.x] = bv;
	si[threadIdx.x] = bi;
	__syncthreads();
	if (warp == 0 && l < d) {
		for (int w = 1; w < BLOCK / 32; w++)
			take(sv[w * 32 + lane], si[w * 32 + lane], bv, bi);
		long long o = i * d + l;
		pval[o * chunks + p] = bv;
		pidx[o * chunks + p] = bi;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
argmax_final(const float *__restrict__ pval, const long long *__restrict__ pidx, long long *__restrict__ y,
	     long long outputs, long long chunks)
{
	long long o = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5);
	int lane = threadIdx.x & 31;
	if (o >= outputs)
		return;
	float bv = NEG_INF;
	long long bi = NO_INDEX;
	for (long long p = lane; p < chunks; p += 32)
		take(pval[o * chunks + p], pidx[o * chunks + p], bv, bi);
	warp_merge(bv, bi);
	if (lane == 0)
		y[o] = bi;
}
