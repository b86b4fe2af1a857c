// fused_gelu_std reference: the two PyTorch stages, each into its own buffer.
//   stage `gelu` (F.gelu): gelu = gelu(input), PyTorch's CUDA formulas in f32
//   stage `std`  (torch.std over the middle dim of [a, c, d]): y[i, l]
// Keeping `gelu` in memory costs an extra write and read of the input's size: the price of a
// reference whose stages can be diffed.
//
// std in one pass over the data, two levels, no atomics: with the shift s = gelu[i, 0, l] (an element
// of the column, so |g - s| is of the order of the spread), std_partial accumulates in f64
// S1 = sum (g - s) and S2 = sum (g - s)^2 over its chunk of the c axis (d = 1: one row per block, 256
// threads striding over k, coalesced; d > 1: a 32-wide tile of l with lane = l and 8 warps striding
// over k), reduced with warp shuffles and shared memory. Partials with the same shift add, so
// std_final (one warp per output) sums them and computes M2 = S2 - S1^2 / c, var = M2 / max(0,
// c - correction), y = sqrt(var) in f64, rounded once. f64 leaves ~29 bits of headroom over the f32
// data, so this is the correctly rounded std for any data inside the contract. inf or NaN anywhere in
// a column makes S1 or S2 NaN or inf and M2 NaN, as PyTorch's Welford does.
// P = max(1, min(cdiv(c * min(d, 32), 8192), 1024)) chunks per output.
//
// @kbx scratch gelu f32 [a, c, d]
// @kbx scratch std_s1 f64 [a * d * max(1, min(cdiv(c * min(d, 32), 8192), 1024))]
// @kbx scratch std_s2 f64 [a * d * max(1, min(cdiv(c * min(d, 32), 8192), 1024))]
// @kbx launch gelu_fwd<<<max(1, min(cdiv(a * c * d, 1024), 65536)), 256>>>(input, gelu, i64(a * c * d), approximate)
// @kbx launch std_partial<<<dim3(max(1, a * cdiv(d, 32)), max(1, min(cdiv(c * min(d, 32), 8192), 1024))), 256>>>(gelu, std_s1, std_s2, a, c, d)
// @kbx launch std_final<<<max(1, cdiv(a * d, 8)), 256>>>(std_s1, std_s2, y, i64(a * d), i64(max(1, min(cdiv(c * min(d, 32), 8192), 1024))), c, correction)

#define BLOCK 256

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
gelu_fwd(const float* __restrict__ x, float* __restrict__ y, long long n, int approximate)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
		y[e] = gelu_one(x[e], approximate);
}

static __device__ __forceinline__ double warp_sum(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
std_partial(const float* __restrict__ g, double* __restrict__ ps1, double* __restrict__ ps2, long long a,
            long long c, long long d)
{
	__shared__ double sh1[BLOCK], sh2[BLOCK];
	const long long chunks = gridDim.y, p = blockIdx.y;
	const long long chunk = (c + chunks - 1) / chunks;
	const long long k0 = p * chunk, k1 = min(c, k0 + chunk);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	double s1 = 0.0, s2 = 0.0;

	if (d == 1) {
		const long long i = blockIdx.x;
		if (i >= a)
			return;
		const float* row = g + i * c;
		const double shift = (double)row[0];
		for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK) {
			double v = (double)row[k] - shift;
			s1 += v;
			s2 = fma(v, v, s2);
		}
		s1 = warp_sum(s1);
		s2 = warp_sum(s2);
		if (lane == 0) {
			sh1[warp] = s1;
			sh2[warp] = s2;
		}
		__syncthreads();
		if (warp == 0) {
			s1 = lane < BLOCK / 32 ? sh1[lane] : 0.0;
			s2 = lane < BLOCK / 32 ? sh2[lane] : 0.0;
			s1 = warp_sum(s1);
			s2 = warp_sum(s2);
			if (lane == 0) {
				ps1[i * chunks + p] = s1;
				ps2[i * chunks + p] = s2;
			}
		}
		return;
	}

	const long long tiles = (d + 31) / 32;
	const long long i = blockIdx.x / tiles;
	const long long l = (blockIdx.x % tiles) * 32 + lane;
	if (i >= a)
		return;
	if (l < d) {
		const float* col = g + i * c * d + l;
		const double shift = (double)col[0];
		for (long long k = k0 + warp; k < k1; k += BLOCK / 32) {
			double v = (double)col[k * d] - shift;
			s1 += v;
			s2 = fma(v, v, s2);
		}
	}
	sh1[threadIdx.x] = s1;
	sh2[threadIdx.x] = s2;
	__syncthreads();
	if (warp == 0 && l < d) {
		for (int w = 1; w < BLOCK / 32; w++) {
			s1 += sh1[w * 32 + lane];
			s2 += sh2[w * 32 + lane];
		}
		const long long o = i * d + l;
		ps1[o * chunks + p] = s1;
		ps2[o * chunks + p] = s2;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
std_final(const double* __restrict__ ps1, const double* __restrict__ ps2, float* __restrict__ y, long long outputs,
          long long chunks, long long c, long long correction)
{
	const long long o = (long long)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5);
	const int lane = threadIdx.x & 31;
	if (o >= outputs)
		return;
	double s1 = 0.0, s2 = 0.0;
	for (long long p = lane; p < chunks; p += 32) {
		s1 += ps1[o * chunks + p];
		s2 += ps2[o * chunks + p];
	}
	s1 = warp_sum(s1);
	s2 = warp_sum(s2);
	if (lane == 0) {
		double m2 = s2 - s1 * (s1 / (double)c);
		if (m2 < 0.0) // rounding only; keeps NaN
			m2 = 0.0;
		double dof = c - correction > 0 ? (double)(c - correction) : 0.0;
		y[o] = (float)sqrt(m2 / dof);
	}
}
