// F.smooth_l1_loss for f32: z = |input - target|; loss = ((0.5 * z) * z) / beta if z < beta, else
// z - 0.5 * beta, each op rounded to f32 as PyTorch's CUDA kernel does (the __f*_rn intrinsics keep
// NVRTC from fusing them into FMAs). reduction: 0 = none, 1 = mean, 2 = sum.
//
// sl1_partial: grid-stride over float4 groups (cudaMalloc'd buffers are 256-byte aligned) plus the
// n % 4 tail. With reduction 'none' it writes y elementwise and is the only kernel that does work.
// Otherwise each block reduces its losses (warp shuffles, then shared memory) to one f64 partial, and
// sl1_final (one block) adds the P partials and divides by n for 'mean'. No atomics.
//
// Precision: the elementwise loss is bit-exact to PyTorch's; the losses are non-negative, so sums have
// no cancellation, and the f64 accumulation makes 'sum' and 'mean' correctly rounded. n = 0 gives
// 0 / 0 = NaN for 'mean'.
//
// P = max(1, min(cdiv(n, 4096), 1024)) blocks.

// @kbx scratch part f64 [max(1, min(cdiv(n, 4096), 1024))]
// @kbx launch sl1_partial<<<max(1, min(cdiv(n, 4096), 1024)), 256>>>(input, target, y, part, n, beta, reduction)
// @kbx launch sl1_final<<<1, 256>>>(part, y, n, i64(max(1, min(cdiv(n, 4096), 1024))), reduction)

#define BLOCK 256

// Sum of v over the block (blockDim.x == BLOCK); the result is valid in thread 0.
__device__ __forceinline__ double block_sum(double v)
{
	__shared__ double warp_sums[BLOCK / 32];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		warp_sums[warp] = v;
	__syncthreads();
	v = (threadIdx.x < BLOCK / 32) ? warp_sums[threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

__device__ __forceinline__ float sl1(float a, float b, float beta)
{
	float z = fabsf(__fsub_rn(a, b));
	return z < beta ? __fdiv_rn(__fmul_rn(__fmul_rn(0.5f, z), z), beta) : __fsub_rn(z, __fmul_rn(0.5f, beta));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
sl1_partial(const float *__restrict__ input, const float *__restrict__ target, float *__restrict__ y,
	    double *__restrict__ part, long long n, float beta, int reduction)
{
	long long tid = (long long)blockIdx.x * BLOCK + threadIdx.x;
	long long stride = (long long)gridDim.x * BLOCK;
	long long n4 = n / 4;
	const float4 *a4 = reinterpret_cast<const float4 *>(input);
	const float4 *b4 = reinterpret_cast<const float4 *>(target);
	long long tail = n4 * 4 + tid; /* at most 3 tail elements, one per thread */

	if (reduction == 0) {
		float4 *y4 = reinterpret_cast<float4 *>(y);
		for (long long v = tid; v < n4; v += stride) {
			float4 a = a4[v], b = b4[v];
			y4[v] = make_float4(sl1(a.x, b.x, beta), sl1(a.y, b.y, beta), sl1(a.z, b.z, beta), sl1(a.w, b.w, beta));
		}
		if (tail < n)
			y[tail] = sl1(input[tail], target[tail], beta);
		return;
	}

	double acc = 0.0;
	for (long long v = tid; v < n4; v += stride) {
		float4 a = a4[v], b = b4[v];
		acc += ((double)sl1(a.x, b.x, beta) + (double)sl1(a.y, b.y, beta)) +
		       ((double)sl1(a.z, b.z, beta) + (double)sl1(a.w, b.w, beta));
	}
	if (tail < n)
		acc += (double)sl1(input[tail], target[tail], beta);
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		part[blockIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
sl1_final(const double *__restrict__ part, float *__restrict__ y, long long n, long long chunks, int reduction)
{
	if (reduction == 0)
		return;
	double acc = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += BLOCK)
		acc += part[p];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		y[0] = (float)(reduction == 1 ? acc / (double)n : acc);
}
