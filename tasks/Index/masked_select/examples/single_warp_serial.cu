// @kbx expect pass
// Correct alternative: one warp walks the whole input in order, 32 elements at a time, and places the
// kept ones with a ballot prefix: trivially ordered and deterministic, but a single warp for the whole
// tensor (slow on the perf sizes).
// @kbx launch ms_serial<<<1, 32>>>(x, mask, y, i64(a * b * c), b, c, cnt)

extern "C" __global__ void ms_serial(const float *__restrict__ x, const unsigned char *__restrict__ mask,
				     float *__restrict__ y, long long n, long long b, long long c, long long cnt)
{
	int lane = threadIdx.x;
	long long out = 0;
	for (long long r = 0; r < n; r += 32) {
		long long e = r + lane;
		bool k = e < n && mask[(e / c) % b] != 0;
		unsigned int bal = __ballot_sync(0xffffffffu, k);
		long long slot = out + __popc(bal & ((1u << lane) - 1u));
		if (k && slot < cnt)
			y[slot] = x[e];
		out += __popc(bal);
	}
}
