// @kbx expect wrong
// Mistake: the min ignores NaN (plain `<`, like fminf) where torch.min propagates it: a row holding a
// NaN must give NaN and the first NaN's index. Only the special-value cases go wrong. The `gelu`
// stage is the reference's, so no shared stage differs: the outputs are the first to differ.
//
// @kbx scratch gelu f32 [a, c, d]
// @kbx scratch min_pval f32 [a * d * max(1, min(cdiv(c * min(d, 32), 8192), 1024))]
// @kbx scratch min_pidx i64 [a * d * max(1, min(cdiv(c * min(d, 32), 8192), 1024))]
// @kbx launch gelu_kbx_fwd<<<max(1, min(cdiv(a * c * d, 1024), 65536)), 256>>>(x, gelu, i64(a * c * d), approximate)
// @kbx launch min_partial<<<dim3(max(1, a * cdiv(d, 32)), max(1, min(cdiv(c * min(d, 32), 8192), 1024))), 256>>>(gelu, min_pval, min_pidx, a, c, d)
// @kbx launch min_final<<<max(1, cdiv(a * d, 8)), 256>>>(min_pval, min_pidx, values, indices, i64(a * d), i64(max(1, min(cdiv(c * min(d, 32), 8192), 1024))))

#define BLOCK 256
#define NO_INDEX 0x7fffffffffffffffLL

static __device__ __forceinline__ float gelu_kbx(float x, int approximate)
{
	if (approximate == 0) {
		float u = __fmul_rn(x, __int_as_float(0x3f3504f3));       // x / 2 ** 0.5
		return __fmul_rn(__fmul_rn(x, erff(u)), 0.5f);             // x * erf(u) / 2.0
	}
	float x3 = __fmul_rn(__fmul_rn(x, x), x);                         // x ** 3
	float inner = __fadd_rn(x, __fmul_rn(__int_as_float(0x3d372713), x3));
	float t = tanhf(__fmul_rn(__int_as_float(0x3f4c422a), inner));
	return __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, t));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
gelu_kbx_fwd(const float* __restrict__ x, float* __restrict__ y, long long n, int approximate)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
		y[e] = gelu_kbx(x[e], approximate);
}

// Whether (v, i) comes before (bv, bi): NaN first, then smaller values, ties to the lower index.
static __device__ __forceinline__ bool before(float v, long long i, float bv, long long bi)
{
	// BUG: fminf-style comparison: a NaN never compares smaller, so NaN is skipped instead of winning
	return v < bv || (v == bv && i < bi);
}

static __device__ __forceinline__ void take(float v, long long i, float& bv, long long& bi)
{
	if (before(v, i, bv, bi)) {
		bv = v;
		bi = i;
	}
}

static __device__ __forceinline__ void warp_merge(float& bv, long long& bi)
{
	for (int off = 16; off > 0; off >>= 1) {
		float v = __shfl_down_sync(0xffffffffu, bv, off);
		long long i = __shfl_down_sync(0xffffffffu, bi, off);
		take(v, i, bv, bi);
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
min_partial(const float* __restrict__ g, float* __restrict__ pval, long long* __restrict__ pidx, long long a,
            long long c, long long d)
{
	__shared__ float sv[BLOCK];
	__shared__ long long si[BLOCK];
	const long long chunks = gridDim.y, p = blockIdx.y;
	const long long chunk = (c + chunks - 1) / chunks;
	const long long k0 = p * chunk, k1 = min(c, k0 + chunk);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	float bv = __int_as_float(0x7f800000); // +inf with NO_INDEX loses to every real element
	long long bi = NO_INDEX;

	if (d == 1) {
		const long long i = blockIdx.x;
		if (i >= a)
			return;
		const float* row = g + i * c;
		for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK)
			take(row[k], k, bv, bi);
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

	const long long tiles = (d + 31) / 32;
	const long long i = blockIdx.x / tiles;
	const long long l = (blockIdx.x % tiles) * 32 + lane;
	if (i >= a)
		return;
	if (l < d) {
		const float* col = g + i * c * d + l;
		for (long long k = k0 + warp; k < k1; k += BLOCK / 32)
			take(col[k * d], k, bv, bi);
	}
	sv[threadIdx.x] = bv;
	si[threadIdx.x] = bi;
	__syncthreads();
	if (warp == 0 && l < d) {
		for (int w = 1; w < BLOCK / 32; w++)
			take(sv[w * 32 + lane], si[w * 32 + lane], bv, bi);
		const long long o = i * d + l;
		pval[o * chunks + p] = bv;
		pidx[o * chunks + p] = bi;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
min_final(const float* __restrict__ pval, const long long* __restrict__ pidx, float* __restrict__ values,
          long long* __restrict__ indices, long long outputs, long long chunks)
{
	const long long o = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5);
	const int lane = threadIdx.x & 31;
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
