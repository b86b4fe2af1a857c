// @kbx expect wrong
// Mistake: log-sum-exp without subtracting the row maximum first: log(sum exp(x)) overflows to inf
// once a value exceeds ~88 (exp in f32), so y = x - inf = -inf. Right on the randn cases, wrong on
// large_values (uniform(60, 120)). Fused: one block per row sums count * exp(x) over the input
// entries (never forming the repeated tensor), then one thread per output writes x - lse.
//
// @kbx scratch lse f32 [b * d]
// @kbx launch row_lse<<<max(1, b * d), 256>>>(input, repeats, lse, b, c, d, rep, rep_tensor)
// @kbx launch write_out<<<max(1, min(cdiv(b * total * d, 256), 65536)), 256>>>(input, repeats, lse, y, b, c, d, total, rep, rep_tensor)

extern "C" __global__ void row_lse(const float* __restrict__ x, const long long* __restrict__ repeats,
                                   float* __restrict__ lse, long long b, long long c, long long d, long long rep,
                                   int rep_tensor)
{
	__shared__ float sh[8];
	const long long row = blockIdx.x;
	if (row >= b * d)
		return;
	const long long j = row / d, l = row % d;
	float s = 0.0f;
	for (long long k = threadIdx.x; k < c; k += 256) {
		float cnt = (float)(rep_tensor ? repeats[k] : rep);
		if (cnt > 0.0f)
			s += cnt * expf(x[(j * c + k) * d + l]); // BUG: no max subtracted: exp overflows above ~88
	}
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		float t = 0.0f;
		for (int w = 0; w < 8; w++)
			t += sh[w];
		lse[row] = logf(t);
	}
}

extern "C" __global__ void write_out(const float* __restrict__ x, const long long* __restrict__ repeats,
                                     const float* __restrict__ lse, float* __restrict__ y, long long b, long long c,
                                     long long d, long long total, long long rep, int rep_tensor)
{
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < b * total * d;
	     o += (long long)gridDim.x * blockDim.x) {
		long long l = o % d, t = (o / d) % total, j = o / (d * total), k;
		if (rep_tensor) { // walk the counts (the cases' tensors are short)
			k = 0;
			for (long long acc = repeats[0]; acc <= t; acc += repeats[++k])
				;
		} else {
			k = t / rep;
		}
		y[o] = x[(j * c + k) * d + l] - lse[j * d + l];
	}
}
