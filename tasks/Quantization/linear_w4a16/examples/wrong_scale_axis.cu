// @kbx expect wrong
// Mistake: the int4 scales are taken along the wrong axis of weight [n, k]: one per input column,
// k_scale[c] = max over the n output channels of |weight[r, c]| / 7, instead of one per output
// channel (the max along row j). quant_pack quantizes every weight with its column's scale
// (rint(w[j, c] / k_scale[c]), clamped to [-8, 7], packed as the reference packs), and linear_w4,
// the reference's kernel unchanged, still factors one scale per output channel out of the k-sum:
// it multiplies output j by k_scale[j], column j's scale, although each q of row j was taken with
// its own column's. So every product x[c] q[j, c] is weighted by k_scale[j] / k_scale[c] (0.65 to
// 1.5 for 90% of the pairs on the randn draws, anything with outliers). The scale buffer has
// max(n, k) slots so that this read stays in bounds where n > k (empty_k, the third perf row); a
// slot past k, a column with no weights, holds 0, the scale of an all-zero row.
// Why not the consistent scheme (each q dequantized with its own column's scale inside the sum):
// the task cannot see it reliably. On randn weights the column maxima are about as large as the
// rows', and a numpy model of it passes every case on 7 of 20 seeds (against the exact result, no
// farther from it than the reference) and fails only one or two cases on each of the other 13,
// mostly by small margins (corner_zero_row, perf_like_uniform, primes, the 8 x 128 x 64 draws).
// A numpy model of this source against the reference (f16 inputs, f32 scales, quotients and
// sums; kbx's own inputs for seeds 0 to 9) fails for every seed: corner_int4_boundary (each
// column holds one weight, so q = (7, -7, 7, -7) and the output is 1 x 0 = 0 where the reference
// gives -8/7 and the exact F.linear -1: cosine 0, l1_relative 1), corner_extreme_scale (row 0's
// q are all 7, scaled by 100 / 7: 400 for 100, rmse 212), corner_zero_row (rmse 0.46 to 3.1
// against the reference, 0.52 to 2.7 against the exact result, from which the reference is 0.11
// to 0.60), the randn cases (the two draws, primes and k_not_multiple_of_8: rmse 2.4 to 5.3
// against the reference, threshold 0.15, and 2.2 to 5.0 against the exact result where the
// reference is 1.2 to 2.1 from it; l1_relative 0.19 to 0.30 against its 0.10 to 0.13), the
// outlier draws (cosine 0.41 to 0.70, l1_relative 1.1 to 1.5, rmse 26 to 60), perf_like_uniform
// (rmse 8.6 to 12 on outputs ~1000; the reference is 1.4 to 1.8 from the exact result) and the
// derived auto:scale cases. It passes corner_single_output (column scales (0.5, 0.5, 1, 1) / 7,
// every q = +-7: output 10, exact), size_1 (its one column is its row) and the empty cases. At
// the square perf rows (a numpy draw of uniform weights) the column maxima of 4096 values are
// close to the rows': rmse ~0.5 against the reference and 1.57 to 1.64 against the exact result,
// where the reference is 1.54 to 1.61; at the third (n = 16384 > k) outputs j >= k are the bias.
// The scales are under another name and size (not compared) and the reference's w_scale is
// absent; the packed weights keep the reference's name and layout and differ in every failing
// case (corner_int4_boundary: q = (7, -7, 7, -7) for the reference's (6, -7, 3, -3)), so the
// first wrong stage reported should be `w_packed`.
//
// @kbx scratch k_scale f32 [max(n, k)]
// @kbx scratch w_packed i32 [n, cdiv(k, 8)]
// @kbx launch col_scale<<<max(1, cdiv(max(n, k), 256)), 256>>>(weight, k_scale, n, k, i64(max(n, k)))
// @kbx launch quant_pack<<<max(1, cdiv(n, 8)), 256>>>(weight, k_scale, w_packed, n, k)
// @kbx launch linear_w4<<<max(1, cdiv(n, 16)), 256>>>(input, w_packed, k_scale, bias, y, m, k, n, has_bias)

#include <cuda_fp16.h>

// Eight f16 values starting at p (element index kk of a row of k) widened to f32; zero past k.
// With k a multiple of 8 the eight values are one aligned 16-byte load.
static __device__ __forceinline__ void load8(const __half* __restrict__ p, long long kk, long long k, float* v)
{
	if ((k & 7) == 0 && kk < k) {
		const uint4 u = *reinterpret_cast<const uint4*>(p + kk);
		const unsigned int w[4] = { u.x, u.y, u.z, u.w };
		for (int i = 0; i < 4; i++) {
			const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&w[i]));
			v[2 * i] = f.x;
			v[2 * i + 1] = f.y;
		}
		return;
	}
	for (int e = 0; e < 8; e++)
		v[e] = kk + e < k ? __half2float(p[kk + e]) : 0.0f;
}

static __device__ __forceinline__ unsigned int quantize4(float w, float scale)
{
	if (!(scale > 0.0f))
		return 0u;
	const int q = (int)fminf(fmaxf(rintf(w / scale), -8.0f), 7.0f);
	return (unsigned int)q & 0xFu;
}

// Nibble e of a packed word as a signed integer in [-8, 7].
static __device__ __forceinline__ int nibble(unsigned int word, int e)
{
	return (int)(word << (28 - 4 * e)) >> 28;
}

// One thread per scale slot c: the mistake, the max down input column c over the n output
// channels (consecutive threads read consecutive columns of each row); slots c >= k have no
// column and get 0.
extern "C" __global__ void __launch_bounds__(256)
col_scale(const __half* __restrict__ weight, float* __restrict__ k_scale, long long n, long long k, long long slots)
{
	const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= slots)
		return;
	float amax = 0.0f;
	if (c < k)
		for (long long r = 0; r < n; r++)
			amax = fmaxf(amax, fabsf(__half2float(weight[r * k + c])));
	k_scale[c] = amax / 7.0f;
}

// The reference's packing (one warp per weight row j, eight nibbles per 32-bit word, nibble e of
// word i = element 8 i + e), each element quantized with its column's scale.
extern "C" __global__ void __launch_bounds__(256)
quant_pack(const __half* __restrict__ weight, const float* __restrict__ k_scale, unsigned int* __restrict__ packed,
           long long n, long long k)
{
	const long long row = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (row >= n)
		return;
	const __half* wr = weight + row * k;
	const long long words = (k + 7) / 8;
	float v[8];
	for (long long i = lane; i < words; i += 32) {
		load8(wr, 8 * i, k, v);
		unsigned int word = 0;
		for (int e = 0; e < 8; e++)
			if (8 * i + e < k)
				word |= quantize4(v[e], k_scale[8 * i + e]) << (4 * e);
		packed[row * words + i] = word;
	}
}

// The reference's kernel, unchanged: it is launched with k_scale as w_scale, so w_scale[j] below is
// column j's scale.
extern "C" __global__ void __launch_bounds__(256)
linear_w4(const __half* __restrict__ x, const unsigned int* __restrict__ packed, const float* __restrict__ w_scale,
          const __half* __restrict__ bias, __half* __restrict__ y, long long m, long long k, long long n, int has_bias)
{
	__shared__ float4 xs[8][64]; // 8 batch rows x 256 k of activations, as f32
	const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	const long long j0 = (long long)blockIdx.x * 16 + 2 * warp; // this warp's features j0, j0 + 1
	const long long words = (k + 7) / 8;

	for (long long m0 = 0; m0 < m; m0 += 8) {
		float acc[2][8];
		for (int f = 0; f < 2; f++)
			for (int r = 0; r < 8; r++)
				acc[f][r] = 0.0f;

		for (long long c0 = 0; c0 < k; c0 += 256) {
			{
				// thread t stages 8 activations: batch row t / 32, k = c0 + 8 (t % 32) ..
				const int r = threadIdx.x / 32, seg = threadIdx.x % 32;
				float v[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
				if (m0 + r < m)
					load8(x + (m0 + r) * k, c0 + 8 * seg, k, v);
				xs[r][2 * seg] = make_float4(v[0], v[1], v[2], v[3]);
				xs[r][2 * seg + 1] = make_float4(v[4], v[5], v[6], v[7]);
			}
			__syncthreads();
			const long long wi = c0 / 8 + lane;
			if (wi < words) {
				int q[2][8];
				for (int f = 0; f < 2; f++) {
					const unsigned int word = j0 + f < n ? packed[(j0 + f) * words + wi] : 0u;
					for (int e = 0; e < 8; e++)
						q[f][e] = nibble(word, e);
				}
				for (int r = 0; r < 8; r++) {
					const float4 a = xs[r][2 * lane], b = xs[r][2 * lane + 1];
					const float xv[8] = { a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w };
					for (int f = 0; f < 2; f++)
						for (int e = 0; e < 8; e++)
							acc[f][r] = fmaf(xv[e], (float)q[f][e], acc[f][r]);
				}
			}
			__syncthreads();
		}

		for (int f = 0; f < 2; f++)
			for (int r = 0; r < 8; r++)
				for (int off = 16; off > 0; off >>= 1)
					acc[f][r] += __shfl_xor_sync(0xffffffffu, acc[f][r], off);
		// every lane now holds all 16 sums; lane f * 8 + r writes feature j0 + f of batch row m0 + r
		if (lane < 16) {
			const int f = lane / 8, r = lane % 8;
			const long long j = j0 + f, row = m0 + r;
			if (j < n && row < m) {
				float sum = 0.0f;
				for (int ff = 0; ff < 2; ff++)
					for (int rr = 0; rr < 8; rr++)
						if (ff == f && rr == r)
							sum = acc[ff][rr];
				const float b = has_bias ? __half2float(bias[j]) : 0.0f;
				y[row * n + j] = __float2half_rn(sum * w_scale[j] + b);
			}
		}
	}
}
