// @kbx expect pass
// Correct alternative: one warp per output, eight outputs per block, no shared memory: each lane walks
// every 32nd of the output's a * c elements with an f64 accumulator, then a shuffle tree. Exact, but
// slow for few long outputs (the perf workload's single output runs on one warp).
// @kbx launch mean_warp<<<max(1, cdiv(b * d, 8)), 256>>>(x, y, a, b, c, d)

extern "C" __global__ void mean_warp(const float *__restrict__ x, float *__restrict__ y, long long a, long long b,
				     long long c, long long d)
{
	long long o = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
	int lane = threadIdx.x & 31;
	if (o >= b * d)
		return;
	long long j = o / d, l = o % d;
	double acc = 0.0;
	for (long long r = lane; r < a * c; r += 32) {
		long long i = r / c, k = r % c;
		acc += x[((i * b + j) * c + k) * d + l];
	}
	for (int off = 16; off > 0; off >>= 1)
		acc += __shfl_down_sync(0xffffffffu, acc, off);
	if (lane == 0)
		y[o] = (float)(acc / (double)(a * c));
}
