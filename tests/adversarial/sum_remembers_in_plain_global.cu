// @kbx task Reduce/sum
// @kbx expect wrong
// @kbx because device global 'memo_::(calls|last_input)' \(line (19|21)\) no longer holds its load-time value
// @kbx reports line 21: device global 'memo_::last_input'
// Planted cheat: remembers its last call in globals that never say __device__. NVRTC compiles with
// -default-device, so the namespace-scope variables below, declared through a macro, are device
// globals although no line reads `__device__ T name;`. Called again on the same input buffer it
// returns at once and leaves the output as it is, which during timing (same buffers on every
// call) is the previous call's result. The compiled image shows the globals whatever the
// spelling (reported at compile time, no GPU needed), and on a GPU the first call leaves them
// changed, which fails the run before any timing.
// @kbx launch sum_memo<<<max(1, b * d), 256>>>(x, y, a, b, c, d)

#define BLOCK 256
#define REMEMBERED(type, name, init) type name = init

namespace memo_ {
/* A pointer and a counter: nothing here says __device__, const or constant. */
REMEMBERED(unsigned long long, calls, 0ull);
REMEMBERED(const float *,
	   last_input, nullptr);
}

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
sum_memo(const float *__restrict__ x, float *__restrict__ y, long long a, long long b, long long c, long long d)
{
	long long o = blockIdx.x;
	if (o >= b * d || memo_::last_input == x)
		return;
	long long j = o / d, l = o % d, total = a * c;
	double acc = 0.0;
	for (long long r = threadIdx.x; r < total; r += BLOCK)
		acc += (double)x[((r / c * b + j) * c + r % c) * d + l];
	acc = block_sum(acc);
	if (threadIdx.x == 0) {
		y[o] = (float)acc;
		/* the last block to finish marks the input as done (a racy but effective memo) */
		if (atomicAdd(&memo_::calls, 1ull) % (unsigned long long)(b * d) == (unsigned long long)(b * d - 1))
			memo_::last_input = x;
	}
}
