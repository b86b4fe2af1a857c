// torch.masked_select(x, mask) with x viewed as [a, b, c] and mask [b] broadcast: y = the elements
// x[i, j, l] with mask[j] true, in row-major order (flat index e = (i * b + j) * c + l, kept when
// mask[(e / c) % b]).
//
// Stream compaction in three kernels over tiles of TILE = 4096 consecutive elements, no atomics, so
// the order is the input order and the result is deterministic:
//   ms_count  one block per tile: the number of kept elements (warp ballots + popc, then a block sum).
//   ms_scan   one block: exclusive prefix sum of the tile counts (1024 at a time, carried), the
//             output offset of each tile.
//   ms_write  one block per tile, in 16 rounds of 256 elements: each element's rank in the round is
//             its warp's ballot prefix (popc of the lower lanes) plus the counts of the earlier warps
//             (shared memory); kept elements are written at tile offset + rank, then the round's total
//             advances the tile offset. Reads are coalesced; writes land in consecutive slots.
// Writes are guarded by cnt (y's size), which each case binds to the exact count.
//
// Grid: cdiv(a * b * c, 4096) blocks of 256 (the perf workload's 2^22 elements: 1024 tiles).

// @kbx scratch counts i64 [max(1, cdiv(a * b * c, 4096))]
// @kbx launch ms_count<<<max(1, cdiv(a * b * c, 4096)), 256>>>(mask, counts, i64(a * b * c), b, c)
// @kbx launch ms_scan<<<1, 1024>>>(counts, i64(cdiv(a * b * c, 4096)))
// @kbx launch ms_write<<<max(1, cdiv(a * b * c, 4096)), 256>>>(x, mask, counts, y, i64(a * b * c), b, c, cnt)

#define TILE 4096
#define BLOCK 256
#define WARPS (BLOCK / 32)

__device__ __forceinline__ bool kept(const unsigned char *__restrict__ mask, long long e, long long b, long long c)
{
	return mask[(e / c) % b] != 0;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
ms_count(const unsigned char *__restrict__ mask, long long *__restrict__ counts, long long n, long long b,
	 long long c)
{
	__shared__ int warp_counts[WARPS];
	long long t0 = (long long)blockIdx.x * TILE;
	if (t0 >= n) /* the single dummy block of an empty input */
		return;
	long long t1 = min(n, t0 + TILE);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	int count = 0;
	for (long long e = t0 + threadIdx.x; e - threadIdx.x < t1; e += BLOCK) {
		bool k = e < t1 && kept(mask, e, b, c);
		unsigned int bal = __ballot_sync(0xffffffffu, k);
		count += lane == 0 ? __popc(bal) : 0;
	}
	if (lane == 0)
		warp_counts[warp] = count;
	__syncthreads();
	if (threadIdx.x == 0) {
		long long total = 0;
		for (int w = 0; w < WARPS; w++)
			total += warp_counts[w];
		counts[blockIdx.x] = total;
	}
}

// In place: counts[t] becomes the number of kept elements in tiles before t.
extern "C" __global__ void __launch_bounds__(1024)
ms_scan(long long *__restrict__ counts, long long tiles)
{
	__shared__ long long s[1024];
	long long carry = 0;
	for (long long base = 0; base < tiles; base += 1024) {
		long long t = base + threadIdx.x;
		long long v = t < tiles ? counts[t] : 0;
		s[threadIdx.x] = v;
		__syncthreads();
		for (int off = 1; off < 1024; off <<= 1) { /* Hillis-Steele inclusive scan */
			long long add = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
			__syncthreads();
			s[threadIdx.x] += add;
			__syncthreads();
		}
		if (t < tiles)
			counts[t] = carry + s[threadIdx.x] - v;
		carry += s[1023];
		__syncthreads();
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
ms_write(const float *__restrict__ x, const unsigned char *__restrict__ mask, const long long *__restrict__ offsets,
	 float *__restrict__ y, long long n, long long b, long long c, long long cnt)
{
	__shared__ int warp_counts[WARPS];
	long long t0 = (long long)blockIdx.x * TILE;
	if (t0 >= n)
		return;
	long long t1 = min(n, t0 + TILE);
	long long out = offsets[blockIdx.x];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (long long r0 = t0; r0 < t1; r0 += BLOCK) {
		long long e = r0 + threadIdx.x;
		bool k = e < t1 && kept(mask, e, b, c);
		unsigned int bal = __ballot_sync(0xffffffffu, k);
		if (lane == 0)
			warp_counts[warp] = __popc(bal);
		__syncthreads();
		int before = 0, total = 0;
		for (int w = 0; w < WARPS; w++) {
			before += w < warp ? warp_counts[w] : 0;
			total += warp_counts[w];
		}
		long long slot = out + before + __popc(bal & ((1u << lane) - 1u));
		if (k && slot < cnt)
			y[slot] = x[e];
		out += total;
		__syncthreads(); /* warp_counts is rewritten by the next round */
	}
}
