// min_gelu(input, dim, approximate) of KernelBenchX: g = its "GELU" of x, then torch.min over the middle
// dim of the contiguous view x[a, c, d] -> (values, indices): values[i, l] = min_k g(x[i, k, l]),
// indices[i, l] = the first k that attains it (NaN counts as smaller than everything, ties go to the
// lower index, as PyTorch's CUDA min).
//
// g is the KernelBenchX formula, evaluated op by op in f32 exactly as PyTorch's separate tensor ops
// round (each op's result rounded to f32, no contraction into FMAs, hence the __f*_rn intrinsics):
//   approximate = 0: g = (x * erff(x / s2)) * 0.5        s2 = sqrtf(2.0f) = 0x3fb504f3
//                    (x / 2.0 is PyTorch's multiplication by the reciprocal 0.5: exact either way)
//   approximate = 1: u = s * (x + ((x * x) * x) * 0.044715f)   s = sqrtf(f32(2 / pi)) = 0x3f4c4229
//                    g = (0.5f * x) * (1 + tanhf(u))
// erff and tanhf are CUDA's, the functions PyTorch's erf and tanh kernels call. Near the minimum of the
// tanh form g is flat (its minimum -0.17 at x = -0.75), so neighbouring inputs give values a few ulps
// apart: the index is only reproducible with PyTorch's exact rounding sequence, which this follows.
//
// Reduction as Reduce/min: two levels, no atomics. min_gelu_partial, block (g, p) over the p-th of P
// chunks of the c axis: d = 1, a row per block, 256 threads striding (float4 groups when c % 4 == 0,
// chunks rounded up to multiples of 4); d > 1, a tile of 32 consecutive l, lane = l, 8 warps striding
// over k, merged in shared memory. Threads scan in increasing k and replace only on a strictly
// smaller value or a first NaN; merges use the full (value, index) order. min_gelu_final merges the P
// partials of an output with one warp.
//
// P = max(1, min(cdiv(c * min(d, 32), 16384), 1024)).

// @kbx scratch pval f32 [a * d * max(1, min(cdiv(c * min(d, 32), 16384), 1024))]
// @kbx scratch pidx i64 [a * d * max(1, min(cdiv(c * min(d, 32), 16384), 1024))]
// @kbx launch min_gelu_partial<<<dim3(max(1, a * cdiv(d, 32)), max(1, min(cdiv(c * min(d, 32), 16384), 1024))), 256>>>(x, pval, pidx, a, c, d, approximate)
// @kbx launch min_gelu_final<<<max(1, cdiv(a * d, 8)), 256>>>(pval, pidx, values, indices, i64(a * d), i64(max(1, min(cdiv(c * min(d, 32), 16384), 1024))))

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

// KernelBenchX's g(x), rounded op by op like PyTorch's separate kernels.
__device__ __forceinline__ float gelu_kbx(float x, int approximate)
{
	if (approximate == 0) {
		float u = __fdiv_rn(x, __int_as_float(0x3fb504f3));
		return __fmul_rn(__fmul_rn(x, erff(u)), 0.5f);
	}
	float x3 = __fmul_rn(__fmul_rn(x, x), x);
	float inner = __fadd_rn(x, __fmul_rn(x3, __int_as_float(0x3d372713)) /* f32(0.044715) */);
	float t = tanhf(__fmul_rn(__int_as_float(0x3f4c4229), inner));
	return __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, t));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
min_gelu_partial(const float *__restrict__ x, float *__restrict__ pval, long long *__restrict__ pidx, long long a,
		 long long c, long long d, int approximate)
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
				take(gelu_kbx(q.x, approximate), 4 * g, bv, bi);
				take(gelu_kbx(q.y, approximate), 4 * g + 1, bv, bi);
				take(gelu_kbx(q.z, approximate), 4 * g + 2, bv, bi);
				take(gelu_kbx(q.w, approximate), 4 * g + 3, bv, bi);
			}
		} else {
			for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK)
				take(gelu_kbx(row[k], approximate), k, bv, bi);
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
			take(gelu_kbx(col[k * d], approximate), k, bv, bi);
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
min_gelu_final(const float *__restrict__ pval, const long long *__restrict__ pidx, float *__restrict__ values,
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
