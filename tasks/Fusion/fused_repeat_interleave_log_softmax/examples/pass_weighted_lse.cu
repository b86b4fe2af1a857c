// @kbx expect pass
// Correct alternative: the repeated tensor is never formed. Entry k of a row appears repeats[k] times,
// so its log-sum-exp is max + log(sum_k repeats[k] * exp(x_k - max)) over the c input entries; one
// block per row computes it with an online (max, sum) merge in f32, then one thread per output
// writes x[k(t)] - lse, k(t) found by t / rep or a binary search of the prefix sums. The NaN / inf
// rules follow from the same arithmetic (NaN max or inf - inf poisons the row, -inf entries weigh 0).
//
// @kbx scratch offsets i64 [rc + 1]
// @kbx scratch lse f32 [b * d]
// @kbx launch scan_counts<<<1, 32>>>(repeats, offsets, rc, rep_tensor)
// @kbx launch row_lse<<<max(1, b * d), 512>>>(input, repeats, lse, b, c, d, rep, rep_tensor)
// @kbx launch write_out<<<max(1, min(cdiv(b * total * d, 256), 65536)), 256>>>(input, offsets, lse, y, b, c, d, total, rc, rep, rep_tensor)

#define NEG_INF __int_as_float(0xff800000)

// a simple serial scan (lane 0): fine for the short repeats tensors of this task
extern "C" __global__ void scan_counts(const long long* __restrict__ repeats, long long* __restrict__ offsets,
                                       long long rc, int rep_tensor)
{
	if (threadIdx.x != 0)
		return;
	offsets[0] = 0;
	if (rep_tensor)
		for (long long k = 0; k < rc; k++)
			offsets[k + 1] = offsets[k] + repeats[k];
}

static __device__ void merge(float& m, float& s, float m2, float s2)
{
	float mm = (m != m || m2 != m2) ? m + m2 : fmaxf(m, m2);
	float a = m == NEG_INF ? 0.0f : s * expf(m - mm);
	float b = m2 == NEG_INF ? 0.0f : s2 * expf(m2 - mm);
	m = mm;
	s = a + b;
}

extern "C" __global__ void row_lse(const float* __restrict__ x, const long long* __restrict__ repeats,
                                   float* __restrict__ lse, long long b, long long c, long long d, long long rep,
                                   int rep_tensor)
{
	__shared__ float shm[16], shs[16];
	const long long row = blockIdx.x;
	if (row >= b * d)
		return;
	const long long j = row / d, l = row % d;
	float m = NEG_INF, s = 0.0f;
	for (long long k = threadIdx.x; k < c; k += blockDim.x) {
		long long cnt = rep_tensor ? repeats[k] : rep;
		if (cnt > 0)
			merge(m, s, x[(j * c + k) * d + l], (float)cnt);
	}
	for (int off = 16; off > 0; off >>= 1)
		merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
	if ((threadIdx.x & 31) == 0) {
		shm[threadIdx.x >> 5] = m;
		shs[threadIdx.x >> 5] = s;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int w = 1; w < 16; w++)
			merge(m, s, shm[w], shs[w]);
		lse[row] = m == NEG_INF ? __int_as_float(0x7fc00000) : m + logf(s);
	}
}

extern "C" __global__ void write_out(const float* __restrict__ x, const long long* __restrict__ offsets,
                                     const float* __restrict__ lse, float* __restrict__ y, long long b, long long c,
                                     long long d, long long total, long long rc, long long rep, int rep_tensor)
{
	for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < b * total * d;
	     o += (long long)gridDim.x * blockDim.x) {
		long long l = o % d, t = (o / d) % total, j = o / (d * total), k;
		if (rep_tensor) {
			long long lo = 0, hi = rc;
			while (hi - lo > 1) {
				long long mid = (lo + hi) / 2;
				(offsets[mid] <= t ? lo : hi) = mid;
			}
			k = lo;
		} else {
			k = t / rep;
		}
		y[o] = x[(j * c + k) * d + l] - lse[j * d + l];
	}
}
