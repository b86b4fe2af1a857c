// @kbx expect wrong
// Mistake: order. Each warp reserves its slots with an atomicAdd on a global counter, so warps land in
// whatever order they run: the right multiset of values, but not in row-major order (any case with
// more than one warp's worth of kept elements).
// @kbx scratch counter i64 [1]
// @kbx launch zero_counter<<<1, 1>>>(counter)
// @kbx launch ms_atomic<<<max(1, cdiv(a * b * c, 256)), 256>>>(x, mask, counter, y, i64(a * b * c), b, c, cnt)

extern "C" __global__ void zero_counter(unsigned long long *counter)
{
	*counter = 0;
}

extern "C" __global__ void ms_atomic(const float *__restrict__ x, const unsigned char *__restrict__ mask,
				     unsigned long long *counter, float *__restrict__ y, long long n, long long b,
				     long long c, long long cnt)
{
	long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x & 31;
	bool k = e < n && mask[(e / c) % b] != 0;
	unsigned int bal = __ballot_sync(0xffffffffu, k);
	unsigned long long base = 0;
	if (lane == 0 && bal)
		base = atomicAdd(counter, (unsigned long long)__popc(bal));
	base = __shfl_sync(0xffffffffu, base, 0);
	long long slot = (long long)base + __popc(bal & ((1u << lane) - 1u));
	if (k && slot < cnt)
		y[slot] = x[e];
}
