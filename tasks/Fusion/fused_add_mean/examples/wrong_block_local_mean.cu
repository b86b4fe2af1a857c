// @kbx expect wrong
// Mistake: a missing grid-wide dependency. The reduction is split over several blocks per output,
// and each block turns its own partial sum into "the mean" and stores it, instead of a second pass
// (or a last-block step) combining all partials first. Correct only while one block covers a whole
// reduction (c <= 8192); the dim=None cases of 32768 and more elements fail. The scratch buffers
// `add` and `mean_part` hold the same values as the reference's, so no stage before the output is
// reported: the wrong stage is the last one, the output y.
//
// @kbx scratch add f32 [b, c, d]
// @kbx scratch mean_part f64 [b * d * max(1, min(cdiv(c, 8192), 1024))]
// @kbx launch add_alpha<<<max(1, min(cdiv(b * c * d, 1024), 65536)), 256>>>(input, other, add, b, c, d, ob, oc, od, alpha)
// @kbx launch mean_partial<<<dim3(max(1, b * d), max(1, min(cdiv(c, 8192), 1024))), 256>>>(add, mean_part, y, b, c, d)

#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
add_alpha(const float* __restrict__ input, const float* __restrict__ other, float* __restrict__ add, long long b,
          long long c, long long d, long long ob, long long oc, long long od, float alpha)
{
	const long long n = b * c * d;
	const long long stride = (long long)gridDim.x * blockDim.x;
	if (ob == b && oc == c && od == d) { // same shape: a flat elementwise pass
		for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
			add[i] = __fadd_rn(input[i], __fmul_rn(alpha, other[i]));
		return;
	}
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		long long l = i % d, k = (i / d) % c, j = i / (c * d);
		long long oi = ((ob == 1 ? 0 : j) * oc + (oc == 1 ? 0 : k)) * od + (od == 1 ? 0 : l);
		add[i] = __fadd_rn(input[i], __fmul_rn(alpha, other[oi]));
	}
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
mean_partial(const float* __restrict__ add, double* __restrict__ part, float* __restrict__ y, long long b, long long c,
             long long d)
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
	if (threadIdx.x == 0) {
		part[o * chunks + p] = acc;
		// BUG: the mean needs the partial sums of every block of this output (a grid-wide
		// dependency, the reference's second launch); this block divides only its own chunk and
		// stores it, and whichever block stores last wins. Right only when c <= 8192 (one chunk).
		y[o] = (float)(acc / (double)c);
	}
}

