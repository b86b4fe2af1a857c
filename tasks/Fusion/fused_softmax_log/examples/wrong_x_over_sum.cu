// @kbx expect wrong
// Mistake: a fusion "simplification": softmax(log x) = x / sum(x) holds for positive x, so the
// kernel skips log and exp. On the positive random and perf data it agrees to ~1e-7, but it drops
// the special values the stages define: a negative entry gives a negative "probability" instead of
// a NaN row, +inf gives inf / inf = NaN only for itself, an all-zero row gives 0 / 0 = NaN (right by
// luck). Fails special_rows and special_mixed. One kernel, no scratch: the output y is wrong.
//
// @kbx launch normalise<<<max(1, min(b * d, 65536)), 256>>>(x, y, b, c, d)

extern "C" __global__ void normalise(const float* __restrict__ x, float* __restrict__ y, long long b, long long c,
                                     long long d)
{
	__shared__ float sh[8];
	for (long long r = blockIdx.x; r < b * d; r += gridDim.x) {
		const long long j = r / d, l = r % d;
		const float* row = x + j * c * d + l;
		float s = 0.0f;
		for (long long k = threadIdx.x; k < c; k += 256)
			s += row[k * d];
		for (int off = 16; off > 0; off >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, off);
		if (threadIdx.x % 32 == 0)
			sh[threadIdx.x / 32] = s;
		__syncthreads();
		s = 0.0f;
		for (int w = 0; w < 8; w++)
			s += sh[w];
		__syncthreads();
		for (long long k = threadIdx.x; k < c; k += 256)
			y[j * c * d + l + k * d] = row[k * d] / s; // BUG: softmax(log x) only for positive finite x
	}
}
