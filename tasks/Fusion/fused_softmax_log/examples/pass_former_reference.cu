// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// fused_softmax_log reference: the two PyTorch stages, each into its own buffer.
//   stage `log`     (torch.log): log = logf(x), the f32 log (NVRTC's logf, ~1 ulp)
//   stage `softmax` (F.softmax along the view's middle axis): y = exp(v - max) / sum exp(v - max)
// Writing `log` out and reading it back is one extra pass: the price of a reference whose stages can
// be diffed.
//
// softmax: one 256-thread block per row (j, l) (grid-stride over rows), the row's c values at
// stride d. Pass 1: each thread keeps an online (max, sum exp(v - max)) pair in f64 (rescaling the
// sum when the max grows), merged over the block with warp shuffles + shared memory. Pass 2: y =
// exp(v - max) / sum in f64, rounded once. Special values as PyTorch: NaN or +inf in a row makes it
// NaN (NaN max, or inf - inf), -inf entries get 0, an all -inf row is NaN (-inf - -inf).
//
// @kbx scratch log f32 [b, c, d]
// @kbx launch log_k<<<max(1, min(cdiv(b * c * d, 1024), 65536)), 256>>>(x, log, i64(b * c * d))
// @kbx launch softmax_rows<<<max(1, min(b * d, 65536)), 256>>>(log, y, b, c, d)

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
	for (long long r = blockIdx.x; r < b * d; r += gridDim.x) { // uniform over the block
		const long long j = r / d, l = r % d;
		const float* row = v + j * c * d + l;
		float* out = y + j * c * d + l;
		double m = NEG_INF, s = 0.0;
		for (long long k = threadIdx.x; k < c; k += 256)
			merge(m, s, (double)row[k * d], 1.0);
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
		for (long long k = threadIdx.x; k < c; k += 256)
			out[k * d] = (float)(exp((double)row[k * d] - m) * inv);
	}
}
