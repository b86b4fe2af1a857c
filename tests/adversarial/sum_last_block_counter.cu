// @kbx task Reduce/sum
// @kbx expect pass
// @kbx reports line 15: device global 'retired'
// Correct, with a mutable device global: the "last block finishes the sum" pattern. Every block
// writes its partial sum to scratch and takes a ticket from a global counter; the block that takes
// the last ticket adds the partials and puts the counter back to 0 before it returns. The global is
// reported (it could keep state), but every call leaves it as loaded, so the run must pass: kbx
// fails a global only when a call leaves it changed.
// @kbx scratch partial f64 [b * d * 8]
// @kbx launch sum_tickets<<<dim3(8, max(1, b * d)), 256>>>(x, y, partial, a, b, c, d)

#define BLOCK 256
#define SLICES 8

__device__ unsigned int retired;

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
sum_tickets(const float *__restrict__ x, float *__restrict__ y, double *partial, long long a, long long b,
	    long long c, long long d)
{
	__shared__ bool last;
	long long o = blockIdx.y, outputs = b * d;
	if (o >= outputs)
		return;
	long long j = o / d, l = o % d, total = a * c;
	double acc = 0.0;
	for (long long r = blockIdx.x * (long long)BLOCK + threadIdx.x; r < total; r += (long long)BLOCK * SLICES)
		acc += (double)x[((r / c * b + j) * c + r % c) * d + l];
	acc = block_sum(acc);
	if (threadIdx.x == 0) {
		partial[o * SLICES + blockIdx.x] = acc;
		__threadfence();
		unsigned int ticket = atomicAdd(&retired, 1u);
		last = ticket == gridDim.x * gridDim.y - 1;
	}
	__syncthreads();
	if (!last)
		return;
	/* the last block of the whole grid: every partial is visible */
	for (long long p = threadIdx.x; p < outputs; p += BLOCK) {
		double s = 0.0;
		for (int k = 0; k < SLICES; k++)
			s += ((volatile double *)partial)[p * SLICES + k];
		y[p] = (float)s;
	}
	if (threadIdx.x == 0)
		retired = 0;
}
