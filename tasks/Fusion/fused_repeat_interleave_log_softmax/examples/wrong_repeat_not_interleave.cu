// @kbx expect wrong
// Mistake: Tensor.repeat order instead of repeat_interleave for an int repeats: the axis is laid out
// as [x0, x1, x2, x0, x1, x2] instead of [x0, x0, x1, x1, x2, x2]. The log-sum-exp of each row is
// the same (the same multiset of values), so only the placement is wrong, which every int-repeats
// case with c > 1 shows. Same stages and scratch names as the reference: the first wrong stage
// reported is `repeat_interleave`.
//
// @kbx scratch repeat_offsets i64 [rc + 1]
// @kbx scratch repeat_interleave f32 [b, total, d]
// @kbx scratch log_softmax_part f64 [b * d * max(1, min(cdiv(total, 8192), 1024)) * 2]
// @kbx scratch log_softmax_stats f64 [b * d * 2]
// @kbx launch repeat_scan<<<1, 1024>>>(repeats, repeat_offsets, rc, rep_tensor)
// @kbx launch repeat_gather<<<max(1, min(cdiv(b * total * d, 256), 65536)), 256>>>(input, repeat_offsets, repeat_interleave, b, c, d, total, rc, rep, rep_tensor)
// @kbx launch lsm_partial<<<dim3(max(1, b * d), max(1, min(cdiv(total, 8192), 1024))), 256>>>(repeat_interleave, log_softmax_part, b, total, d)
// @kbx launch lsm_combine<<<max(1, b * d), 256>>>(log_softmax_part, log_softmax_stats, i64(b * d), i64(max(1, min(cdiv(total, 8192), 1024))))
// @kbx launch lsm_out<<<max(1, min(cdiv(b * total * d, 256), 65536)), 256>>>(repeat_interleave, log_softmax_stats, y, b, total, d)

#define NEG_INF __longlong_as_double(0xfff0000000000000ULL)

// Exclusive prefix sum of the repeats tensor (rep_tensor = 1): offsets[0] = 0, offsets[k + 1] =
// offsets[k] + repeats[k]. One block: each thread sums a contiguous chunk, a shared-memory scan of
// the 1024 chunk sums, then each thread writes its chunk's offsets.
extern "C" __global__ void __launch_bounds__(1024)
repeat_scan(const long long* __restrict__ repeats, long long* __restrict__ offsets, long long rc, int rep_tensor)
{
	__shared__ long long sums[1024];
	if (!rep_tensor) {
		if (threadIdx.x == 0)
			offsets[0] = 0;
		return;
	}
	const long long chunk = (rc + 1023) / 1024;
	const long long k0 = threadIdx.x * chunk, k1 = min(rc, k0 + chunk);
	long long s = 0;
	for (long long k = k0; k < k1; k++)
		s += repeats[k];
	sums[threadIdx.x] = s;
	__syncthreads();
	for (int off = 1; off < 1024; off <<= 1) { // inclusive Hillis-Steele scan
		long long v = threadIdx.x >= off ? sums[threadIdx.x - off] : 0;
		__syncthreads();
		sums[threadIdx.x] += v;
		__syncthreads();
	}
	long long run = threadIdx.x ? sums[threadIdx.x - 1] : 0;
	if (threadIdx.x == 0)
		offsets[0] = 0;
	for (long long k = k0; k < k1; k++) {
		run += repeats[k];
		offsets[k + 1] = run;
	}
}

// One thread per output element of the [b, total, d] view (grid-stride, coalesced stores).
extern "C" __global__ void __launch_bounds__(256)
repeat_gather(const float* __restrict__ input, const long long* __restrict__ offsets, float* __restrict__ out,
              long long b, long long c, long long d, long long total, long long rc, long long rep, int rep_tensor)
{
	const long long n = b * total * d;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n;
	     o += (long long)gridDim.x * blockDim.x) {
		const long long l = o % d, t = (o / d) % total, j = o / (d * total);
		long long k;
		if (!rep_tensor) {
			k = t % c; // BUG: tensor.repeat order (the whole axis again and again), not repeat_interleave
		} else { // the largest k with offsets[k] <= t (skips zero-repeat entries)
			long long lo = 0, hi = rc; // offsets[lo] <= t < offsets[hi]
			while (hi - lo > 1) {
				long long mid = (lo + hi) / 2;
				if (offsets[mid] <= t)
					lo = mid;
				else
					hi = mid;
			}
			k = lo;
		}
		out[o] = input[(j * c + k) * d + l];
	}
}

// max that keeps NaN
static __device__ __forceinline__ double max_nan(double a, double b)
{
	if (a != a)
		return a;
	if (b != b)
		return b;
	return a > b ? a : b;
}

// (m, s) of a set of values: m its max (NaN if any), s = sum exp(v - m), s = 0 when m = -inf (empty
// or all -inf: contributes nothing when merged with finite parts).
static __device__ __forceinline__ void merge(double& m, double& s, double m2, double s2)
{
	const double mm = max_nan(m, m2);
	const double a = m == NEG_INF ? 0.0 : s * exp(m - mm);
	const double c = m2 == NEG_INF ? 0.0 : s2 * exp(m2 - mm);
	m = mm;
	s = a + c;
}

// Merge the (m, s) pairs of the block; valid in thread 0 (blockDim.x == 256).
static __device__ void block_merge(double& m, double& s)
{
	__shared__ double sm[8], ss[8];
	for (int off = 16; off > 0; off >>= 1) {
		double m2 = __shfl_down_sync(0xffffffffu, m, off), s2 = __shfl_down_sync(0xffffffffu, s, off);
		merge(m, s, m2, s2);
	}
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0) {
		sm[warp] = m;
		ss[warp] = s;
	}
	__syncthreads();
	if (threadIdx.x == 0)
		for (int w = 1; w < 8; w++)
			merge(m, s, sm[w], ss[w]);
}

// Block (o, p): chunk p of row o = j * d + l; two passes over the chunk (max, then sum of exp).
extern "C" __global__ void __launch_bounds__(256)
lsm_partial(const float* __restrict__ x, double* __restrict__ part, long long b, long long total, long long d)
{
	const long long o = blockIdx.x, chunks = gridDim.y, p = blockIdx.y;
	if (o >= b * d)
		return;
	const long long j = o / d, l = o % d;
	const long long chunk = (total + chunks - 1) / chunks;
	const long long t0 = p * chunk, t1 = min(total, t0 + chunk);
	const float* row = x + j * total * d + l;
	double m = NEG_INF;
	for (long long t = t0 + threadIdx.x; t < t1; t += 256)
		m = max_nan(m, (double)row[t * d]);
	double s = 0.0;
	if (m != NEG_INF)
		for (long long t = t0 + threadIdx.x; t < t1; t += 256)
			s += exp((double)row[t * d] - m);
	block_merge(m, s);
	if (threadIdx.x == 0) {
		part[(o * chunks + p) * 2] = m;
		part[(o * chunks + p) * 2 + 1] = s;
	}
}

// One block per row: merge its P pairs into (max, log sum). An all -inf row gets NaN, as in PyTorch
// (-inf - -inf).
extern "C" __global__ void __launch_bounds__(256)
lsm_combine(const double* __restrict__ part, double* __restrict__ stats, long long rows, long long chunks)
{
	const long long o = blockIdx.x;
	if (o >= rows)
		return;
	double m = NEG_INF, s = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += 256)
		merge(m, s, part[(o * chunks + p) * 2], part[(o * chunks + p) * 2 + 1]);
	block_merge(m, s);
	if (threadIdx.x == 0) {
		stats[o * 2] = m;
		stats[o * 2 + 1] = m == NEG_INF ? __longlong_as_double(0x7ff8000000000000ULL) : log(s);
	}
}

extern "C" __global__ void __launch_bounds__(256)
lsm_out(const float* __restrict__ x, const double* __restrict__ stats, float* __restrict__ y, long long b,
        long long total, long long d)
{
	const long long n = b * total * d;
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < n;
	     o += (long long)gridDim.x * blockDim.x) {
		const long long l = o % d, j = o / (d * total), row = j * d + l;
		y[o] = (float)(((double)x[o] - stats[row * 2]) - stats[row * 2 + 1]);
	}
}
