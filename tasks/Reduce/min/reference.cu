// torch.min(input, dim) -> (values, indices) over the middle dim of the contiguous view x[a, c, d]:
// values[i, l] = min_k x[i, k, l], indices[i, l] = the first k that attains it. As PyTorch's CUDA
// comparator: NaN is smaller than everything (the first NaN wins and the value is NaN), equal values
// (also -0 and +0) go to the lower index.
//
// Two levels, no atomics. min_partial, block (g, p) over the p-th of P chunks of the c axis:
//  - d = 1 (rows): g is the row i; the 256 threads stride over the chunk (float4 groups when
//    c % 4 == 0, which keeps every row 16-byte aligned; chunks are rounded up to multiples of 4).
//  - d > 1 (columns): g is a tile of 32 consecutive l of one i; lane = l, the 8 warps stride over k,
//    so each warp reads 32 consecutive floats of one row (coalesced), then the 8 warps are merged
//    through shared memory.
// Each thread visits its elements in increasing k and only replaces its best on a strictly better
// value, so it keeps the first occurrence; every merge uses the full (value, index) order, which makes
// the result the global first minimum whatever the split. One (value, index) partial per output and
// chunk; min_final merges the P partials of an output with one warp.
//
// Exact: no arithmetic, only comparisons, so values and indices equal PyTorch's bit for bit (up to the
// sign of a zero minimum when -0 and +0 tie, which allclose does not see).
//
// P = max(1, min(cdiv(c * min(d, 32), 16384), 1024)): ~16K elements per block.

// @kbx scratch pval f32 [a * d * max(1, min(cdiv(c * min(d, 32), 16384), 1024))]
// @kbx scratch pidx i64 [a * d * max(1, min(cdiv(c * min(d, 32), 16384), 1024))]
// @kbx launch min_partial<<<dim3(max(1, a * cdiv(d, 32)), max(1, min(cdiv(c * min(d, 32), 16384), 1024))), 256>>>(x, pval, pidx, a, c, d)
// @kbx launch min_final<<<max(1, cdiv(a * d, 8)), 256>>>(pval, pidx, values, indices, i64(a * d), i64(max(1, min(cdiv(c * min(d, 32), 16384), 1024))))

#define BLOCK 256
#define NO_INDEX 0x7fffffffffffffffLL

// Whether (v, i) comes before (bv, bi): NaN first, then smaller values, ties to the lower index.
__device__ __forceinline__ bool before(float v, long long i, float bv, long long bi)
{
	bool vn = v != v, bn = bv != bv;
	if (vn || bn)
		return vn && (!bn || i < bi);
	return v < bv || (v == bv && i < bi);
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
min_partial(const float *__restrict__ x, float *__restrict__ pval, long long *__restrict__ pidx, long long a,
	    long long c, long long d)
{
	__shared__ float sv[BLOCK];
	__shared__ long long si[BLOCK];
	long long chunks = gridDim.y, p = blockIdx.y;
	float bv = __int_as_float(0x7f800000); /* +inf with NO_INDEX loses every tie */
	long long bi = NO_INDEX;
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	if (d == 1) {
		long long i = blockIdx.x;
		if (i >= a)
			return;
		long long chunk = ((c + chunks - 1) / chunks + 3) & ~3LL;
		long long k0 = p * chunk, k1 = min(c, k0 + chunk);
		const float *row = x + i * c;
		if ((c & 3) == 0) {
			const float4 *v4 = reinterpret_cast<const float4 *>(row);
			for (long long g = k0 / 4 + threadIdx.x; g < k1 / 4; g += BLOCK) {
				float4 q = v4[g];
				take(q.x, 4 * g, bv, bi);
				take(q.y, 4 * g + 1, bv, bi);
				take(q.z, 4 * g + 2, bv, bi);
				take(q.w, 4 * g + 3, bv, bi);
			}
		} else {
			for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK)
				take(row[k], k, bv, bi);
		}
		warp_merge(bv, bi);
		if (lane == 0) {
			sv[warp] = bv;
			si[warp] = bi;
		}
		__syncthreads();
		if (warp == 0) {
			bv = lane < BLOCK / 32 ? sv[lane] : __int_as_float(0x7f800000);
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
		const float *col = x + i * c * d + l;
		for (long long k = k0 + warp; k < k1; k += BLOCK / 32)
			take(col[k * d], k, bv, bi);
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
min_final(const float *__restrict__ pval, const long long *__restrict__ pidx, float *__restrict__ values,
	  long long *__restrict__ indices, long long outputs, long long chunks)
{
	long long o = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5);
	int lane = threadIdx.x & 31;
	if (o >= outputs)
		return;
	float bv = __int_as_float(0x7f800000);
	long long bi = NO_INDEX;
	for (long long p = lane; p < chunks; p += 32)
		take(pval[o * chunks + p], pidx[o * chunks + p], bv, bi);
	warp_merge(bv, bi);
	if (lane == 0) {
		values[o] = bv;
		indices[o] = bi;
	}
}
