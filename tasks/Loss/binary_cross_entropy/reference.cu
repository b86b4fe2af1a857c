// F.binary_cross_entropy(input, target, weight, reduction) for f32, as PyTorch's CUDA kernel:
// loss = (target - 1) * max(log1p(-input), -100) - target * max(log(input), -100), each op rounded to
// f32 (the __f*_rn intrinsics keep NVRTC from fusing them), then times weight[i] when a weight is given
// (nw = n; nw = 0 is weight = None). reduction: 0 = none, 1 = mean, 2 = sum.
//
// bce_partial: grid-stride over float4 groups (cudaMalloc'd buffers are 256-byte aligned) plus the
// n % 4 tail. With reduction 'none' it writes y elementwise and is the only kernel that does work.
// Otherwise each block reduces its losses (warp shuffles, then shared memory) to one f64 partial, and
// bce_final (one block) adds the P partials and divides by n for 'mean'. No atomics.
//
// Precision: logf and log1pf are CUDA's (what PyTorch's std::log / std::log1p call), so the
// elementwise loss matches PyTorch's to the last bit or so; the losses are non-negative, so the f64
// sums have no cancellation and 'sum' and 'mean' are correctly rounded. n = 0 gives NaN for 'mean'.
//
// P = max(1, min(cdiv(n, 4096), 1024)) blocks.

// @kbx scratch part f64 [max(1, min(cdiv(n, 4096), 1024))]
// @kbx launch bce_partial<<<max(1, min(cdiv(n, 4096), 1024)), 256>>>(input, target, weight, y, part, n, nw, reduction)
// @kbx launch bce_final<<<1, 256>>>(part, y, n, i64(max(1, min(cdiv(n, 4096), 1024))), reduction)

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

__device__ __forceinline__ float bce(float x, float t)
{
	float log_x = logf(x), log_1mx = log1pf(-x);
	log_x = log_x < -100.0f ? -100.0f : log_x; /* std::max(v, -100) */
	log_1mx = log_1mx < -100.0f ? -100.0f : log_1mx;
	return __fsub_rn(__fmul_rn(__fsub_rn(t, 1.0f), log_1mx), __fmul_rn(t, log_x));
}

// The loss of element i (weighted when a weight is given).
__device__ __forceinline__ float bce_w(float x, float t, const float *__restrict__ weight, long long i, bool w)
{
	float l = bce(x, t);
	return w ? __fmul_rn(l, weight[i]) : l;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
bce_partial(const float *__restrict__ input, const float *__restrict__ target, const float *__restrict__ weight,
	    float *__restrict__ y, double *__restrict__ part, long long n, long long nw, int reduction)
{
	long long tid = (long long)blockIdx.x * BLOCK + threadIdx.x;
	long long stride = (long long)gridDim.x * BLOCK;
	long long n4 = n / 4;
	bool w = nw > 0;
	const float4 *a4 = reinterpret_cast<const float4 *>(input);
	const float4 *b4 = reinterpret_cast<const float4 *>(target);
	long long tail = n4 * 4 + tid; /* at most 3 tail elements, one per thread */

	if (reduction == 0) {
		float4 *y4 = reinterpret_cast<float4 *>(y);
		for (long long v = tid; v < n4; v += stride) {
			float4 a = a4[v], b = b4[v];
			y4[v] = make_float4(bce_w(a.x, b.x, weight, 4 * v, w), bce_w(a.y, b.y, weight, 4 * v + 1, w),
					    bce_w(a.z, b.z, weight, 4 * v + 2, w), bce_w(a.w, b.w, weight, 4 * v + 3, w));
		}
		if (tail < n)
			y[tail] = bce_w(input[tail], target[tail], weight, tail, w);
		return;
	}

	double acc = 0.0;
	for (long long v = tid; v < n4; v += stride) {
		float4 a = a4[v], b = b4[v];
		acc += ((double)bce_w(a.x, b.x, weight, 4 * v, w) + (double)bce_w(a.y, b.y, weight, 4 * v + 1, w)) +
		       ((double)bce_w(a.z, b.z, weight, 4 * v + 2, w) + (double)bce_w(a.w, b.w, weight, 4 * v + 3, w));
	}
	if (tail < n)
		acc += (double)bce_w(input[tail], target[tail], weight, tail, w);
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		part[blockIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
bce_final(const double *__restrict__ part, float *__restrict__ y, long long n, long long chunks, int reduction)
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
