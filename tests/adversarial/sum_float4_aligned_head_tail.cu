// @kbx task Reduce/sum
// @kbx expect pass
// Correct, written in an unusual way: vectorised float4 loads with a scalar head AND tail. When the
// reduced elements of an output are contiguous (d = 1), each of its a segments x[i, j, :, 0] is
// read as: up to 3 scalars until the address is 16-byte aligned (segments start anywhere when
// c % 4 != 0), float4 groups, then up to 3 scalars. Other layouts (d > 1) use strided scalar
// loads. One block per output, f64 accumulation and a fixed-shape tree, so it is accurate (the
// task's f32 tolerance needs more than an f32 tree on the 8192-element rows) and bit-for-bit
// deterministic. Empty reductions give 0; no outputs, nothing.
// @kbx launch sum_vec<<<max(1, b * d), 256>>>(x, y, a, b, c, d)

#define BLOCK 256

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
sum_vec(const float *__restrict__ x, float *__restrict__ y, long long a, long long b, long long c, long long d)
{
	long long o = blockIdx.x;
	if (o >= b * d)
		return;
	long long j = o / d, l = o % d;
	double acc = 0.0;

	if (d == 1) {
		for (long long i = 0; i < a; i++) {
			const float *seg = x + (i * b + j) * c; /* c contiguous floats */
			long long head = (long long)((16 - ((unsigned long long)seg & 15)) & 15) / 4;
			if (head > c)
				head = c;
			long long groups = (c - head) / 4;
			long long tail = head + groups * 4; /* first element after the float4 body */
			if (threadIdx.x < head)
				acc += (double)seg[threadIdx.x];
			const float4 *body = reinterpret_cast<const float4 *>(seg + head);
			for (long long g = threadIdx.x; g < groups; g += BLOCK) {
				float4 v = body[g];
				acc += (double)v.x;
				acc += (double)v.y;
				acc += (double)v.z;
				acc += (double)v.w;
			}
			if (tail + threadIdx.x < c)
				acc += (double)seg[tail + threadIdx.x];
		}
	} else {
		for (long long i = 0; i < a; i++)
			for (long long k = threadIdx.x; k < c; k += BLOCK)
				acc += (double)x[((i * b + j) * c + k) * d + l];
	}
	acc = block_sum(acc);
	if (threadIdx.x == 0)
		y[o] = (float)acc;
}
