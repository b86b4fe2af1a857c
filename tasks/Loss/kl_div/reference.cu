// F.kl_div(input, target, reduction, log_target) for f32 [r, k] tensors, as PyTorch computes it:
//   log_target = 0: loss = xlogy(t, t) - t * x, xlogy(t, t) = NaN if t is NaN, 0 if t == 0, else
//                   t * log(t)
//   log_target = 1: loss = exp(t) * (t - x)
// each op rounded to f32 (the __f*_rn intrinsics keep NVRTC from fusing them; logf / expf are CUDA's,
// what PyTorch's kernels call). reduction: 0 = none, 1 = mean (sum / (r * k)), 2 = sum,
// 3 = batchmean (sum / r, the functional's default).
//
// kl_partial: grid-stride over float4 groups (cudaMalloc'd buffers are 256-byte aligned) plus the
// tail. With 'none' it writes y elementwise and is the only kernel that does work. Otherwise each
// block reduces its losses (warp shuffles, then shared memory) to one f64 partial and kl_final (one
// block) adds the P partials and divides. No atomics.
//
// Precision: the elementwise loss matches PyTorch's to ~1 ulp; the terms have both signs (t * log t <= 0
// next to -t * x >= 0 for log-probabilities), so the sum cancels partly; f64 accumulation keeps the
// reduced value correctly rounded. r * k = 0 gives 0 / 0 = NaN for 'mean' and 'batchmean' with r = 0.
//
// P = max(1, min(cdiv(r * k, 4096), 1024)) blocks.

// @kbx scratch part f64 [max(1, min(cdiv(r * k, 4096), 1024))]
// @kbx launch kl_partial<<<max(1, min(cdiv(r * k, 4096), 1024)), 256>>>(input, target, y, part, i64(r * k), log_target, reduction)
// @kbx launch kl_final<<<1, 256>>>(part, y, r, k, i64(max(1, min(cdiv(r * k, 4096), 1024))), reduction)

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

__device__ __forceinline__ float kl(float x, float t, int log_target)
{
	if (log_target)
		return __fmul_rn(expf(t), __fsub_rn(t, x));
	float xlogy = t != t ? t : (t == 0.0f ? 0.0f : __fmul_rn(t, logf(t)));
	return __fsub_rn(xlogy, __fmul_rn(t, x));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
kl_partial(const float *__restrict__ input, const float *__restrict__ target, float *__restrict__ y,
	   double *__restrict__ part, long long n, int log_target, int reduction)
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
			y4[v] = make_float4(kl(a.x, b.x, log_target), kl(a.y, b.y, log_target), kl(a.z, b.z, log_target),
					    kl(a.w, b.w, log_target));
		}
		if (tail < n)
			y[tail] = kl(input[tail], target[tail], log_target);
		return;
	}

	double acc = 0.0;
	for (long long v = tid; v < n4; v += stride) {
		float4 a = a4[v], b = b4[v];
		acc += ((double)kl(a.x, b.x, log_target) + (double)kl(a.y, b.y, log_target)) +
		       ((double)kl(a.z, b.z, log_target) + (double)kl(a.w, b.w, log_target));
	}
	if (tail < n)
		acc += (double)kl(input[tail], target[tail], log_target);
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		part[blockIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
kl_final(const double *__restrict__ part, float *__restrict__ y, long long r, long long k, long long chunks,
	 int reduction)
{
	if (reduction == 0)
		return;
	double acc = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += BLOCK)
		acc += part[p];
	acc = block_sum(acc);
	if (threadIdx.x == 0) {
		if (reduction == 1)
			acc /= (double)(r * k);
		else if (reduction == 3)
			acc /= (double)r;
		y[0] = (float)acc;
	}
}
