// @kbx expect wrong
// Mistake: normalising over the wrong axis: the softmax runs along the contiguous last axis of the
// view (d) instead of the requested one (c). For dim = -1 (d = 1) every "row" is a single value and
// y is all ones; for dim = 0 it normalises each row instead of each column. Every case with c > 1
// fails. Same stages and scratch names as the reference: `log` matches, the first wrong buffer is
// the output y.
//
// @kbx scratch log f32 [b, c, d]
// @kbx launch log_k<<<max(1, min(cdiv(b * c * d, 1024), 65536)), 256>>>(x, log, i64(b * c * d))
// @kbx launch softmax_rows<<<max(1, min(b * c, 65536)), 256>>>(log, y, b, c, d)

#define NEG_INF __longlong_as_double(0xfff0000000000000ULL)

extern "C" __global__ void __launch_bounds__(256)
log_k(const float* __restrict__ x, float* __restrict__ out, long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		out[i] = logf(x[i]);
}

// Merge (m2, s2) into (m, s): m the max (NaN wins), s the sum of exp(v - m); a part whose max is -inf
// (empty, or all -inf) contributes nothing.
static __device__ __forceinline__ void merge(double& m, double& s, double m2, double s2)
{
	const double mm = (m != m || m2 != m2) ? m + m2 : (m > m2 ? m : m2);
	const double a = m == NEG_INF ? 0.0 : s * exp(m - mm);
	const double c = m2 == NEG_INF ? 0.0 : s2 * exp(m2 - mm);
	m = mm;
	s = a + c;
}

extern "C" __global__ void __launch_bounds__(256)
softmax_rows(const float* __restrict__ v, float* __restrict__ y, long long b, long long c, long long d)
{
	__shared__ double sm[8], ss[8];
	// BUG: the rows are taken along the last axis (d values at stride 1) instead of the middle one
	for (long long r = blockIdx.x; r < b * c; r += gridDim.x) { // uniform over the block
		const float* row = v + r * d;
		float* out = y + r * d;
		double m = NEG_INF, s = 0.0;
		for (long long k = threadIdx.x; k < d; k += 256)
			merge(m, s, (double)row[k], 1.0);
		for (int off = 16; off > 0; off >>= 1)
			merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
		if ((threadIdx.x & 31) == 0) {
			sm[threadIdx.x >> 5] = m;
			ss[threadIdx.x >> 5] = s;
		}
		__syncthreads();
		m = NEG_INF;
		s = 0.0;
		for (int w = 0; w < 8; w++)
			merge(m, s, sm[w], ss[w]);
		__syncthreads(); // sm / ss are reused by the next row
		// an all -inf row: exp(-inf - -inf) = NaN, as in PyTorch
		const double inv = m == NEG_INF ? __longlong_as_double(0x7ff8000000000000ULL) : 1.0 / s;
		for (long long k = threadIdx.x; k < d; k += 256)
			out[k] = (float)(exp((double)row[k] - m) * inv);
	}
}
