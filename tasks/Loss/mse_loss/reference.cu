// F.mse_loss for f32: the elementwise loss is d * d with d = input - target, both in f32 (PyTorch
// materialises that f32 tensor, then reduces it). reduction: 0 = none, 1 = mean, 2 = sum.
//
// mse_partial: grid-stride over float4 groups (cudaMalloc'd buffers are 256-byte aligned) plus the
// n % 4 tail. With reduction 'none' it writes y elementwise and is the only kernel that does work.
// Otherwise each block reduces its squares (warp shuffles, then shared memory) to one partial, and
// mse_final (one block) adds the P partials and divides by n for 'mean'. No atomics.
//
// Precision: the squares are non-negative, so an f32 tree would already be within 1e-5 relative; the
// reference accumulates in f64 anyway (free in a memory-bound kernel) so that it is the correctly
// rounded sum, and 'mean' is sum / n in f64, rounded once. n = 0 gives 0 / 0 = NaN for 'mean'.
//
// P = max(1, min(cdiv(n, 4096), 1024)) blocks (2^23 elements: 1024 blocks, 32 elements a thread).

// @kbx scratch part f64 [max(1, min(cdiv(n, 4096), 1024))]
// @kbx launch mse_partial<<<max(1, min(cdiv(n, 4096), 1024)), 256>>>(input, target, y, part, n, reduction)
// @kbx launch mse_final<<<1, 256>>>(part, y, n, i64(max(1, min(cdiv(n, 4096), 1024))), reduction)

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

__device__ __forceinline__ float sq_diff(float a, float b)
{
	float d = a - b;
	return d * d;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
mse_partial(const float *__restrict__ input, const float *__restrict__ target, float *__restrict__ y,
	    double *__restrict__ part, long long n, int reduction)
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
			y4[v] = make_float4(sq_diff(a.x, b.x), sq_diff(a.y, b.y), sq_diff(a.z, b.z), sq_diff(a.w, b.w));
		}
		if (tail < n)
			y[tail] = sq_diff(input[tail], target[tail]);
		return;
	}

	double acc = 0.0;
	for (long long v = tid; v < n4; v += stride) {
		float4 a = a4[v], b = b4[v];
		acc += (double)sq_diff(a.x, b.x);
		acc += (double)sq_diff(a.y, b.y);
		acc += (double)sq_diff(a.z, b.z);
		acc += (double)sq_diff(a.w, b.w);
	}
	if (tail < n)
		acc += (double)sq_diff(input[tail], target[tail]);
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		part[blockIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
mse_final(const double *__restrict__ part, float *__restrict__ y, long long n, long long chunks, int reduction)
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
