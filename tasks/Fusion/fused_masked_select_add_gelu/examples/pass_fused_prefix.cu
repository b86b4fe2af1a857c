// @kbx expect pass
// Correct alternative: two kernels and no intermediate values. Kernel 1 counts the nonzero mask
// bytes of each 16384-element chunk. Kernel 2: each block adds up the counts of the chunks before
// its own (an O(chunks) prefix per block instead of a separate scan), then walks its chunk tile by
// tile with ballots, and writes gelu(z + alpha * other) straight into y at the element's rank.
//
// @kbx scratch chunk_counts i64 [max(1, cdiv(n, 16384))]
// @kbx launch count_chunks<<<max(1, cdiv(n, 16384)), 256>>>(mask, chunk_counts, n)
// @kbx launch select_add_gelu<<<max(1, cdiv(n, 16384)), 256>>>(input, mask, chunk_counts, y, n, other, alpha, approximate)

extern "C" __global__ void count_chunks(const unsigned char* __restrict__ mask, long long* __restrict__ counts, long long n)
{
	__shared__ int part[256];
	const long long c0 = (long long)blockIdx.x * 16384;
	int c = 0;
	for (long long i = c0 + threadIdx.x; i < n && i < c0 + 16384; i += 256)
		c += mask[i] != 0;
	part[threadIdx.x] = c;
	__syncthreads();
	for (int s = 128; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		counts[blockIdx.x] = part[0];
}

__device__ float gelu1(float x, int approximate)
{
	if (approximate)
		return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	return x * 0.5f * (1.0f + erff(x * 0.70710678f));
}

extern "C" __global__ void select_add_gelu(const float* __restrict__ x, const unsigned char* __restrict__ mask,
                                           const long long* __restrict__ counts, float* __restrict__ y, long long n,
                                           float other, float alpha, int approximate)
{
	__shared__ long long part[256];
	__shared__ int wc[8];
	const long long c0 = (long long)blockIdx.x * 16384;
	if (c0 >= n)
		return;
	long long s = 0;
	for (long long c = threadIdx.x; c < blockIdx.x; c += 256)
		s += counts[c];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int k = 128; k > 0; k >>= 1) {
		if (threadIdx.x < k)
			part[threadIdx.x] += part[threadIdx.x + k];
		__syncthreads();
	}
	long long pos = part[0];
	const float ao = alpha * other;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (long long t = c0; t < c0 + 16384 && t < n; t += 256) {
		const long long i = t + threadIdx.x;
		const bool keep = i < n && mask[i] != 0;
		const unsigned bal = __ballot_sync(0xffffffffu, keep);
		if (lane == 0)
			wc[warp] = __popc(bal);
		__syncthreads();
		int before = 0, total = 0;
		for (int w = 0; w < 8; w++) {
			before += w < warp ? wc[w] : 0;
			total += wc[w];
		}
		if (keep)
			y[pos + before + __popc(bal & ((1u << lane) - 1u))] = gelu1(x[i] + ao, approximate);
		pos += total;
		__syncthreads();
	}
}
