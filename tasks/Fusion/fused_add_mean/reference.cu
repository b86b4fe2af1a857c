// fused_add_mean reference: the two PyTorch stages, each into its own buffer.
//   stage `add`  (input + alpha * other):  add[j, k, l] = input[j, k, l] + alpha * other[bcast(j, k, l)]
//                alpha * other is rounded to f32, then the sum is rounded (eager order).
//   stage `mean` (.mean over the view's middle axis): y[j, l] = sum_k add[j, k, l] / c
// Writing `add` to memory and reading it back costs one extra pass over the data: the price of a
// reference whose stages can be diffed. `other` broadcasts: each of its dims is 1 or the input's.
//
// Reduction: mean_partial gives block (o, p) output o = j * d + l and the p-th of P chunks of the
// c axis; its threads stride over the chunk (coalesced when d = 1), accumulate in f64, and a warp
// shuffle + shared memory tree leaves one partial per block; mean_final reduces the P partials of an
// output the same way and divides by c in f64, rounding once. f64 makes the reference the correctly
// rounded mean (PyTorch sums in f32, ~1e-7 relative from it), far inside rtol = atol = 1e-5.
// An empty reduction (c = 0) gives 0 / 0 = NaN, as torch.mean does.
// P = max(1, min(cdiv(c, 8192), 1024)).
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
