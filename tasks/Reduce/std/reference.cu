// Standard deviation over the middle dim of the contiguous view x[a, c, d]:
// y[i, l] = sqrt(M2 / max(0, c - correction)), M2 = sum_k (x[i, k, l] - mean)^2.
//
// Shifted sums: with K = x[i, 0, l] (the output's first element), S1 = sum (x - K) and
// S2 = sum (x - K)^2 are plain sums, so they split over blocks and merge by addition, and
// M2 = S2 - S1^2 / c. Shifting by a sample of the data keeps the cancellation in S2 - S1^2 / c to
// the order of (mean - K)^2 / var, a few units for any sane data, instead of mean^2 / var.
//
// Two levels, no atomics. std_partial: block (o, p) takes output o = i * d + l and the p-th of P
// chunks of the c axis and reduces (S1, S2) with warp shuffles and shared memory. When d = 1 and
// c % 4 == 0 rows start 16-byte aligned and the chunk is read as float4 groups (chunks are rounded up
// to a multiple of 4); otherwise element by element, thread-strided. std_final: one block per output
// adds the P pairs and finishes.
//
// Precision: everything in f64 (x - K is exact in f64 for f32 inputs, its square nearly so), the
// square root in f64, rounded to f32 once: relative error ~1e-15 before the final rounding. Memory-bound,
// so the f64 arithmetic costs nothing. NaN propagates through the sums; divisor 0 gives 0 / 0 = NaN or
// M2 / 0 = inf as PyTorch. A tiny negative M2 from rounding is clamped to 0 (NaN is kept).
//
// P = max(1, min(cdiv(c, 8192), 1024)).

// @kbx scratch part f64 [2 * a * d * max(1, min(cdiv(c, 8192), 1024))]
// @kbx launch std_partial<<<dim3(max(1, a * d), max(1, min(cdiv(c, 8192), 1024))), 256>>>(x, part, a, c, d)
// @kbx launch std_final<<<max(1, a * d), 256>>>(part, y, i64(a * d), i64(max(1, min(cdiv(c, 8192), 1024))), c, correction)

#define BLOCK 256

// Sums of u and v over the block (blockDim.x == BLOCK); the results are valid in thread 0.
__device__ __forceinline__ void block_sum2(double &u, double &v)
{
	__shared__ double su[BLOCK / 32], sv[BLOCK / 32];
	for (int off = 16; off > 0; off >>= 1) {
		u += __shfl_down_sync(0xffffffffu, u, off);
		v += __shfl_down_sync(0xffffffffu, v, off);
	}
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0) {
		su[warp] = u;
		sv[warp] = v;
	}
	__syncthreads();
	u = (threadIdx.x < BLOCK / 32) ? su[threadIdx.x] : 0.0;
	v = (threadIdx.x < BLOCK / 32) ? sv[threadIdx.x] : 0.0;
	if (warp == 0)
		for (int off = 16; off > 0; off >>= 1) {
			u += __shfl_down_sync(0xffffffffu, u, off);
			v += __shfl_down_sync(0xffffffffu, v, off);
		}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
std_partial(const float *__restrict__ x, double *__restrict__ part, long long a, long long c, long long d)
{
	long long outputs = a * d;
	long long o = blockIdx.x;
	if (o >= outputs) /* only the single dummy block of an empty output */
		return;
	long long i = o / d, l = o % d;
	long long chunks = gridDim.y, p = blockIdx.y;
	long long chunk = ((c + chunks - 1) / chunks + 3) & ~3LL;
	long long k0 = p * chunk;
	long long k1 = min(c, k0 + chunk);
	const float *base = x + i * c * d + l; /* &x[i, 0, l] */

	double s1 = 0.0, s2 = 0.0;
	if (k0 < k1) {
		double K = (double)base[0];
		if (d == 1 && (c & 3) == 0) {
			const float4 *v = reinterpret_cast<const float4 *>(base);
#pragma unroll 4
			for (long long g = k0 / 4 + threadIdx.x; g < k1 / 4; g += BLOCK) {
				float4 q = v[g];
				double e0 = (double)q.x - K, e1 = (double)q.y - K, e2 = (double)q.z - K, e3 = (double)q.w - K;
				s1 += (e0 + e1) + (e2 + e3);
				s2 += (e0 * e0 + e1 * e1) + (e2 * e2 + e3 * e3);
			}
		} else {
#pragma unroll 4
			for (long long k = k0 + threadIdx.x; k < k1; k += BLOCK) {
				double e = (double)base[k * d] - K;
				s1 += e;
				s2 += e * e;
			}
		}
	}
	block_sum2(s1, s2);
	if (threadIdx.x == 0) {
		part[2 * (o * chunks + p)] = s1;
		part[2 * (o * chunks + p) + 1] = s2;
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
std_final(const double *__restrict__ part, float *__restrict__ y, long long outputs, long long chunks, long long c,
	  int correction)
{
	long long o = blockIdx.x;
	if (o >= outputs)
		return;
	double s1 = 0.0, s2 = 0.0;
	for (long long p = threadIdx.x; p < chunks; p += BLOCK) {
		s1 += part[2 * (o * chunks + p)];
		s2 += part[2 * (o * chunks + p) + 1];
	}
	block_sum2(s1, s2);
	if (threadIdx.x == 0) {
		double n = (double)c;
		double m2 = s2 - s1 * (s1 / n); /* c = 0: 0 - 0 * NaN = NaN, PyTorch's 0 / 0 */
		if (m2 < 0.0)
			m2 = 0.0;
		double divisor = n > (double)correction ? n - (double)correction : 0.0;
		y[o] = (float)sqrt(m2 / divisor);
	}
}
