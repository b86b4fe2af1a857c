// @kbx expect wrong
// Mistake: broadcasting `other` by reading it flat modulo its element count instead of by
// dimension. Passes the same-shape, scalar and row-vector cases; fails dim1_broadcast_col and
// middle_dim_broadcast (in dim0_prime_broadcast_col its `add` is wrong too, but the wrapped reads
// are a permutation of the right ones along the reduced axis and the mean hides it). Same stages
// and scratch names as the reference: the first wrong stage reported should be `add`.
//
// @kbx scratch add f32 [b, c, d]
// @kbx scratch mean_part f64 [b * d * max(1, min(cdiv(c, 8192), 1024))]
// @kbx launch add_alpha<<<max(1, min(cdiv(b * c * d, 1024), 65536)), 256>>>(input, other, add, b, c, d, ob, oc, od, alpha)
// @kbx launch mean_partial<<<dim3(max(1, b * d), max(1, min(cdiv(c, 8192), 1024))), 256>>>(add, mean_part, b, c, d)
// @kbx launch mean_final<<<max(1, b * d), 256>>>(mean_part, y, i64(b * d), i64(max(1, min(cdiv(c, 8192), 1024))), c)

#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
add_alpha(const float* __restrict__ input, const float* __restrict__ other, float* __restrict__ add, long long b,
          long long c, long long d, long long ob, long long oc, long long od, float alpha)
{
	const long long n = b * c * d;
	const long long stride = (long long)gridDim.x * blockDim.x;
	// BUG: broadcasting "by wrapping around": other is read flat at i modulo its size. Right for a
	// same-shape other, a scalar, and a trailing-dims other (numpy-style right alignment), wrong when
	// other is [1, c, 1] under a [1, c, d] input or [b, 1, d] under [b, c, d].
	const long long on = ob * oc * od;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		add[i] = __fadd_rn(input[i], __fmul_rn(alpha, other[i % on]));
}

// Sum over the block (blockDim.x == BLOCK); valid in thread 0.
static __device__ __forceinline__ double block_sum(double v)
{
	__shared__ double warp_sums[BLOCK / 32];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		warp_sums[warp] = v;
	__syncthreads();
	v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
mean_partial(const float* __restrict__ add, double* __restrict__ part, long long b, long long c, long long d)
{
	const long long o = blockIdx.x;
	if (o >= b * d) // the single dummy block of an empty output
		return;
	const long long j = o / d, l = o % d;
	const long long chunks = gridDim.y, p = blockIdx.y;
	const long long chunk = (c + chunks - 1) / chunks;
	const long long k0 = p * chunk, k1 = min(c, k0 + chunk);
	const float* base = add + j * c * d + l; // &add[j, 0, l]
	double acc = 0.0;
#pragma unroll 4
	for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK)
		acc += (double)base[k * d];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		part[o * chunks + p] = acc;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
mean_final(const double* __restrict__ part, float* __restrict__ y, long long outputs, long long chunks, long long c)
{
	const long long o = blockIdx.x;
	if (o >= outputs)
		return;
	double acc = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += BLOCK)
		acc += part[o * chunks + p];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		y[o] = (float)(acc / (double)c);
}
