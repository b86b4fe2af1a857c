// fused_exp_mean reference: the two PyTorch stages, each into its own buffer.
//   stage `exp`  (torch.exp):               exp = expf(input), elementwise
//   stage `mean` (.mean over the view's middle axis): y[j, l] = sum_k exp[j, k, l] / c
// Writing `exp` to memory and reading it back costs one extra pass over the data: the price of a
// reference whose stages can be diffed.
//
// exp_fwd: grid-stride over float4 groups (buffers are 256-byte aligned), then the c % 4 tail;
// expf is within 2 ulp (the function torch.exp calls for f32 on CUDA). Reduction: mean_partial
// gives block (o, p) output o = j * d + l and the p-th of P chunks of the c axis; its threads
// stride over the chunk (coalesced when d = 1), accumulate in f64, and a warp-shuffle +
// shared-memory tree leaves one partial per block; mean_final reduces the P partials of an output
// the same way and divides by c in f64, rounding once (PyTorch sums in f32, ~1e-7 relative from
// it). An empty reduction gives 0 / 0 = NaN, as torch.mean does.
// P = max(1, min(cdiv(c, 8192), 1024)).
//
// @kbx scratch exp f32 [b, c, d]
// @kbx scratch mean_part f64 [b * d * max(1, min(cdiv(c, 8192), 1024))]
// @kbx launch exp_fwd<<<max(1, min(cdiv(b * c * d, 4096), 65536)), 256>>>(input, exp, i64(b * c * d))
// @kbx launch mean_partial<<<dim3(max(1, b * d), max(1, min(cdiv(c, 8192), 1024))), 256>>>(exp, mean_part, b, c, d)
// @kbx launch mean_final<<<max(1, b * d), 256>>>(mean_part, y, i64(b * d), i64(max(1, min(cdiv(c, 8192), 1024))), c)

#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
exp_fwd(const float* __restrict__ x, float* __restrict__ out, long long total)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	const long long n4 = total / 4;
	const float4* x4 = reinterpret_cast<const float4*>(x);
	float4* o4 = reinterpret_cast<float4*>(out);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = expf(a.x);
		a.y = expf(a.y);
		a.z = expf(a.z);
		a.w = expf(a.w);
		o4[v] = a;
	}
	const long long i = n4 * 4 + tid; // at most 3 tail elements
	if (i < total)
		out[i] = expf(x[i]);
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
mean_partial(const float* __restrict__ ex, double* __restrict__ part, long long b, long long c, long long d)
{
	const long long o = blockIdx.x;
	if (o >= b * d) // the single dummy block of an empty output
		return;
	const long long j = o / d, l = o % d;
	const long long chunks = gridDim.y, p = blockIdx.y;
	const long long chunk = (c + chunks - 1) / chunks;
	const long long k0 = p * chunk, k1 = min(c, k0 + chunk);
	const float* base = ex + j * c * d + l; // &exp[j, 0, l]
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
