// @kbx expect wrong
// Mistake: the int4 scales are taken along the wrong axis of weight [n, k]: one per input column,
// k_scale[c] = max over the n output channels of |weight[j, c]| / 7, instead of one per output
// channel (the max along row j). The scheme is consistent, only its granularity is wrong: each
// weight is quantized with its column's scale (rint(w[j, c] / k_scale[c]), clamped to [-8, 7],
// packed as the reference packs) and dequantized with that same scale inside the k-sum (f32
// q * k_scale[c], then an fma with the activation), and y = f16(sum + bias). On randn weights a
// column's max is about a row's, so the random draws rarely see it. A numpy model of this source
// (f16 inputs, f32 scales, quotients and sums; kbx's own inputs for seeds 0 to 14): on the randn
// cases it is closer to the exact F.linear than the reference in 57 of 60 draws (rmse 1.05 to 1.94
// against the reference's 1.20 to 2.11) and passes them against the exact result, except primes
// at 2 seeds and random_standard_8x128x64 at 1; it fails corner_zero_row at 7 seeds (rmse up to
// 0.79 from the exact result), perf_like_uniform at 5 and the outlier draws at 3. It passes the
// other cases at every seed: corner_int4_boundary (each column holds one weight, so q = (7, -7, 7,
// -7) and the output is -1, the exact result), corner_extreme_scale (row 1 drops its first 0.1:
// 0.3 for 0.4, rmse 0.07 from the exact result, where the reference is 0.22), corner_single_output,
// size_1, the empty cases and the auto:scale cases. channel_ranges is the case that sees it: its
// weight rows alternate between ~100 (multiples of 14, on the reference's grid) and ~1, so each
// column's scale is set by its large weight, the large rows come back exact and the small ones
// keep q in {-1, 0, 1}, three of 32 non-zero: rmse 1.86 to 3.26 from the exact result, where the
// reference is 0.22 to 0.41 (1.82 to 3.07 from the reference, threshold 0.15), at every seed and
// 5.4 times the allowed rmse at worst over seeds 0 to 29; cosine (>= 0.9999) and l1_relative
// (<= 0.014) stay inside, as the large rows' outputs (~300) set them. At seeds 3, 4, 6 and 10 it
// is the only case that fails. At the perf rows (numpy draws of uniform weights) a column's max
// over 4096 or 16384 rows is about a row's over 4096: rmse 0.28 to 0.37 from the reference, and
// 1.50 to 1.58 from the exact result where the reference is 1.51 to 1.59, so they would pass.
// The scales are under another name and size (not compared) and the reference's w_scale is
// absent; the packed weights keep the reference's name and layout and differ in every failing
// case with outputs (corner_zero_row, the first to fail at seed 0: its row 0 is q = (1, 2, 3, 3)
// for the reference's (2, 3, 5, 7), row 2 (7, 7, 7, 7) for (4, 5, 6, 7)); so
// the first wrong stage reported should be `w_packed`. On channel_ranges the lens sees the error
// differ from output channel to channel: the diagnosis should say `the channel scales differ`.
//
// @kbx scratch k_scale f32 [k]
// @kbx scratch w_packed i32 [n, cdiv(k, 8)]
// @kbx launch col_scale<<<max(1, cdiv(k, 256)), 256>>>(weight, k_scale, n, k)
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

// One thread per input column c: the mistake, the max down column c over the n output channels
// (consecutive threads read consecutive columns of each row).
extern "C" __global__ void __launch_bounds__(256)
col_scale(const __half* __restrict__ weight, float* __restrict__ k_scale, long long n, long long k)
{
	const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= k)
		return;
	float amax = 0.0f;
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

// The reference's kernel with the column scales: the activations and the 256 column scales of
// each k-slice are staged in shared memory, and each q is dequantized with its own column's scale
// inside the sum (nothing is left to factor out of it).
extern "C" __global__ void __launch_bounds__(256)
linear_w4(const __half* __restrict__ x, const unsigned int* __restrict__ packed, const float* __restrict__ k_scale,
          const __half* __restrict__ bias, __half* __restrict__ y, long long m, long long k, long long n, int has_bias)
{
	__shared__ float4 xs[8][64]; // 8 batch rows x 256 k of activations, as f32
	__shared__ float4 ss[64];    // the 256 column scales of the slice
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
				// thread t stages 8 activations: batch row t / 32, k = c0 + 8 (t % 32) ..; the
				// first warp also the 8 column scales of those k
				const int r = threadIdx.x / 32, seg = threadIdx.x % 32;
				float v[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
				if (m0 + r < m)
					load8(x + (m0 + r) * k, c0 + 8 * seg, k, v);
				xs[r][2 * seg] = make_float4(v[0], v[1], v[2], v[3]);
				xs[r][2 * seg + 1] = make_float4(v[4], v[5], v[6], v[7]);
				if (r == 0) {
					float s[8];
					for (int e = 0; e < 8; e++)
						s[e] = c0 + 8 * seg + e < k ? k_scale[c0 + 8 * seg + e] : 0.0f;
					ss[2 * seg] = make_float4(s[0], s[1], s[2], s[3]);
					ss[2 * seg + 1] = make_float4(s[4], s[5], s[6], s[7]);
				}
			}
			__syncthreads();
			const long long wi = c0 / 8 + lane;
			if (wi < words) {
				const float4 sa = ss[2 * lane], sb = ss[2 * lane + 1];
				const float sv[8] = { sa.x, sa.y, sa.z, sa.w, sb.x, sb.y, sb.z, sb.w };
				float wd[2][8];
				for (int f = 0; f < 2; f++) {
					const unsigned int word = j0 + f < n ? packed[(j0 + f) * words + wi] : 0u;
					for (int e = 0; e < 8; e++)
						wd[f][e] = (float)nibble(word, e) * sv[e];
				}
				for (int r = 0; r < 8; r++) {
					const float4 a = xs[r][2 * lane], b = xs[r][2 * lane + 1];
					const float xv[8] = { a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w };
					for (int f = 0; f < 2; f++)
						for (int e = 0; e < 8; e++)
							acc[f][r] = fmaf(xv[e], wd[f][e], acc[f][r]);
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
				y[row * n + j] = __float2half_rn(sum + b);
			}
		}
	}
}
