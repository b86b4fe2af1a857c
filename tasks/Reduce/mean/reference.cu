// Mean over dims 0 and 2 of the contiguous view x[a, b, c, d]:
// y[j, l] = (sum_{i < a, k < c} x[i, j, k, l]) / (a * c).
//
// Two levels, no atomics. mean_partial: block (o, p) takes output o = j * d + l and the p-th of P
// chunks of the c axis, loops over all i and its chunk of k and reduces its values with warp shuffles
// and shared memory to one partial. When d = 1 and c % 4 == 0 every row x[i, j, :] starts 16-byte
// aligned (cudaMalloc'd buffers are 256-byte aligned) and the chunk is read as float4 groups (chunks
// are rounded up to a multiple of 4 elements, so a group never straddles two chunks); otherwise the
// chunk is read element by element, thread-strided (coalesced when d = 1). mean_final: one block per
// output adds its P partials and divides by a * c.
//
// Precision: accumulation in f64 and one division in f64, rounded to f32 once: the correctly rounded
// mean for every case here. The kernel is memory-bound, so the f64 adds cost nothing. a * c = 0 gives
// 0 / 0 = NaN, as PyTorch.
//
// P = max(1, min(cdiv(c, 8192), 1024)): one chunk per 8192 elements of c, at most 1024 chunks
// (2^27 elements: 1024 blocks of 256 threads, 128 float4 loads per thread).

// @kbx scratch part f64 [b * d * max(1, min(cdiv(c, 8192), 1024))]
// @kbx launch mean_partial<<<dim3(max(1, b * d), max(1, min(cdiv(c, 8192), 1024))), 256>>>(x, part, a, b, c, d)
// @kbx launch mean_final<<<max(1, b * d), 256>>>(part, y, i64(b * d), i64(max(1, min(cdiv(c, 8192), 1024))), i64(a * c))

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

extern "C" __global__ void __launch_bounds__(BLOCK)
mean_partial(const float *__restrict__ x, double *__restrict__ part, long long a, long long b, long long c,
	     long long d)
{
	long long outputs = b * d;
	long long o = blockIdx.x;
	if (o >= outputs) /* only the single dummy block of an empty output */
		return;
	long long j = o / d, l = o % d;
	long long chunks = gridDim.y, p = blockIdx.y;
	long long chunk = ((c + chunks - 1) / chunks + 3) & ~3LL;
	long long k0 = p * chunk;
	long long k1 = min(c, k0 + chunk);

	double acc = 0.0;
	for (long long i = 0; i < a && k0 < k1; i++) {
		const float *base = x + (i * b + j) * c * d + l; /* &x[i, j, 0, l] */
		if (d == 1 && (c & 3) == 0) {
			const float4 *v = reinterpret_cast<const float4 *>(base);
#pragma unroll 4
			for (long long g = k0 / 4 + threadIdx.x; g < k1 / 4; g += BLOCK) {
				float4 q = v[g];
				acc += ((double)q.x + (double)q.y) + ((double)q.z + (double)q.w);
			}
		} else {
#pragma unroll 4
			for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK)
				acc += (double)base[k * d];
		}
	}
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		part[o * chunks + p] = acc;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
mean_final(const double *__restrict__ part, float *__restrict__ y, long long outputs, long long chunks,
	   long long count)
{
	long long o = blockIdx.x;
	if (o >= outputs)
		return;
	double acc = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += BLOCK)
		acc += part[o * chunks + p];
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		y[o] = (float)(acc / (double)count);
}
