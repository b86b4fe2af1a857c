// fused_masked_select_add_gelu reference: the three PyTorch stages, each into its own buffer.
//   stage `masked_select` (torch.masked_select): the elements with a nonzero mask byte, in order
//   stage `add`           (torch.add(z, other, alpha)): add = z + alpha * other
//   stage `gelu`          (F.gelu): y = gelu(add), exact (erf) or tanh form, f32
// Keeping `masked_select` and `add` in memory costs two extra passes over the cnt selected values:
// the price of a reference whose stages can be diffed.
//
// masked_select is a stream compaction in three launches, no atomics: ms_count counts the nonzero
// mask bytes of each 4096-element chunk (one block per chunk, warp ballots); ms_scan turns the
// per-chunk counts into exclusive offsets (one block: each thread scans a run of counts, then a
// block scan of the run totals); ms_write has each block walk its chunk in tiles of 256 elements,
// rank every kept element inside the tile by a ballot + popcount per warp and the warps' prefix in
// shared memory, and write it at chunk offset + running count + rank. Reads are coalesced; the
// order of the input is kept exactly. add and gelu: elementwise grid-stride loops.
//
// @kbx scratch masked_select_counts i64 [max(1, cdiv(n, 4096))]
// @kbx scratch masked_select f32 [cnt]
// @kbx scratch add f32 [cnt]
// @kbx launch ms_count<<<max(1, cdiv(n, 4096)), 256>>>(mask, masked_select_counts, n)
// @kbx launch ms_scan<<<1, 1024>>>(masked_select_counts, i64(cdiv(n, 4096)))
// @kbx launch ms_write<<<max(1, cdiv(n, 4096)), 256>>>(input, mask, masked_select_counts, masked_select, n)
// @kbx launch add_fwd<<<max(1, min(cdiv(cnt, 1024), 65536)), 256>>>(masked_select, add, cnt, other, alpha)
// @kbx launch gelu_fwd<<<max(1, min(cdiv(cnt, 1024), 65536)), 256>>>(add, y, cnt, approximate)

#define CHUNK 4096
#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
ms_count(const unsigned char* __restrict__ mask, long long* __restrict__ counts, long long n)
{
	__shared__ int warp_counts[BLOCK / 32];
	const long long c0 = (long long)blockIdx.x * CHUNK;
	int cnt = 0;
	for (int t = 0; t < CHUNK; t += BLOCK) {
		long long i = c0 + t + threadIdx.x;
		bool keep = i < n && mask[i] != 0;
		cnt += __popc(__ballot_sync(0xffffffffu, keep));
	}
	if ((threadIdx.x & 31) == 0)
		warp_counts[threadIdx.x >> 5] = cnt;
	__syncthreads();
	if (threadIdx.x == 0) {
		long long s = 0;
		for (int w = 0; w < BLOCK / 32; w++)
			s += warp_counts[w];
		if (c0 < n || blockIdx.x == 0)
			counts[blockIdx.x] = s;
	}
}

// counts[0 .. chunks) -> exclusive prefix sums, in place; one block of 1024 threads
extern "C" __global__ void __launch_bounds__(1024)
ms_scan(long long* __restrict__ counts, long long chunks)
{
	__shared__ long long part[1024];
	const long long per = (chunks + 1023) / 1024;
	const long long lo = threadIdx.x * per, hi = min(chunks, lo + per);
	long long s = 0;
	for (long long c = lo; c < hi; c++)
		s += counts[c];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int off = 1; off < 1024; off <<= 1) { // Hillis-Steele inclusive scan of the run totals
		long long v = threadIdx.x >= off ? part[threadIdx.x - off] : 0;
		__syncthreads();
		part[threadIdx.x] += v;
		__syncthreads();
	}
	long long run = threadIdx.x > 0 ? part[threadIdx.x - 1] : 0;
	for (long long c = lo; c < hi; c++) {
		long long v = counts[c];
		counts[c] = run;
		run += v;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
ms_write(const float* __restrict__ x, const unsigned char* __restrict__ mask, const long long* __restrict__ offsets,
         float* __restrict__ out, long long n)
{
	__shared__ int warp_counts[BLOCK / 32];
	const long long c0 = (long long)blockIdx.x * CHUNK;
	if (c0 >= n)
		return;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	long long pos = offsets[blockIdx.x];
	for (int t = 0; t < CHUNK && c0 + t < n; t += BLOCK) {
		const long long i = c0 + t + threadIdx.x;
		const bool keep = i < n && mask[i] != 0;
		const unsigned bal = __ballot_sync(0xffffffffu, keep);
		if (lane == 0)
			warp_counts[warp] = __popc(bal);
		__syncthreads();
		int before = 0, total = 0;
		for (int w = 0; w < BLOCK / 32; w++) {
			int c = warp_counts[w];
			before += w < warp ? c : 0;
			total += c;
		}
		if (keep)
			out[pos + before + __popc(bal & ((1u << lane) - 1u))] = x[i];
		pos += total;
		__syncthreads(); // warp_counts is rewritten by the next tile
	}
}

// torch.add(z, other, alpha) with a Python-number other: z + alpha * other, one f32 product and one
// f32 sum (alpha * other is exact in every case of this task)
extern "C" __global__ void __launch_bounds__(BLOCK)
add_fwd(const float* __restrict__ z, float* __restrict__ s, long long cnt, float other, float alpha)
{
	const float ao = __fmul_rn(alpha, other);
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < cnt; e += stride)
		s[e] = __fadd_rn(z[e], ao);
}

// F.gelu on CUDA, in f32: approximate = 0: x * 0.5 * (1 + erf(x * M_SQRT1_2));
// approximate = 1: 0.5 * x * (1 + tanh(kBeta * (x + kKappa * x^3))), kBeta = sqrt(2 / pi).
static __device__ __forceinline__ float gelu_one(float x, int approximate)
{
	if (approximate) {
		const float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		return 0.5f * x * (1.0f + tanhf(inner));
	}
	const float kAlpha = 0.7071067811865476f;
	return x * 0.5f * (1.0f + erff(x * kAlpha));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
gelu_fwd(const float* __restrict__ x, float* __restrict__ y, long long cnt, int approximate)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < cnt; e += stride)
		y[e] = gelu_one(x[e], approximate);
}
