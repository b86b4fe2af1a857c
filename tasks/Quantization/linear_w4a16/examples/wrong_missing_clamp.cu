// @kbx expect wrong
// Mistake: the int4 scale is max |w| / 8, as in wrong_scale_amax_over_8.cu, and the clamp to
// [-8, 7] is missing: q = rint(w / scale) goes into its nibble as it is. With the contract's
// max |w| / 7 nothing would need the clamp (|q| <= 7); with max / 8 every positive weight within
// 1/16 of the row's max |w| (w / scale >= 7.5, the row's largest weight whenever that one is
// positive) rounds to +8, which a signed nibble cannot hold: 8 & 0xF is 0b1000, and linear_w4
// sign-extends it to -8. Such a weight comes back as -max |w|: its sign flips, an error of 16 of
// this grid's steps (about 2 max |w|) where wrong_scale_amax_over_8.cu clamps it to 7, one step
// off. -8 itself (the row's most negative weight) fits and is not harmed. Packing, rounding and
// the f32 arithmetic are the reference's. A numpy model against the reference (f16 inputs, f32
// scales, quotients and sums; kbx's own inputs for seeds 0 to 9): a wrapped weight in 47% to 73%
// of the rows of the random draws (1.0 to 1.5 of them in such a row) and in every row of
// perf_like_uniform (about 257 of 4096: uniform weights have many near the max). Every case with
// outputs and a wrapped weight fails, against both targets, whatever the seed (size_1 aside):
// corner_extreme_scale (100 and the 0.1s all wrap: outputs (-100, -0.4) for (100, 0.4), cosine
// -1, rmse 141), corner_single_output (the weight 1 wraps: 6 for 10, rmse 4; the reference is
// exact), corner_zero_row (rmse 1.1 to 14), the randn cases (the two draws, primes and
// k_not_multiple_of_8: rmse 4.0 to 6.4 against the reference, threshold 0.15, and 4.0 to 6.0
// against the exact F.linear, where the reference is 1.2 to 2.1 from it; l1_relative 0.26 to
// 0.45, cosine 0.87 to 0.95), the outlier draws (rmse 13 to 44, cosine 0.30 to 0.80),
// perf_like_uniform (l1_relative 0.25, rmse 254 to 261 on outputs ~1000; the reference is 1.4 to
// 1.8 from the exact result) and the derived auto:scale cases, and a numpy draw of the square perf
// rows gives rmse ~258. size_1 fails on 4 of the 10 seeds: its one weight is positive on 5, and on
// the fifth the flipped product (0.11) hides beside the bias (1.1: l1_relative 0.1 exactly).
// wrong_scale_amax_over_8.cu passes the random draws against the exact result; the wrapped
// nibbles make this one fail them. corner_int4_boundary has no +8 (q = (7, -8, 4, -4), output
// -1, the exact result) and passes, as it does for amax_over_8. Without the clamp the source
// also lacks the clamp_to_range evidence; the outputs fail on their own. The scales, kept under
// the reference's name, are all 7/8 of its and come first, so the first wrong stage reported
// should be `w_scale` (w_packed differs too: another grid, and the wrapped nibbles).
// The stage diff sees every w_scale 7/8 of the reference's: the diagnosis should say `(7/8)`.
//
// @kbx scratch w_scale f32 [n]
// @kbx scratch w_packed i32 [n, cdiv(k, 8)]
// @kbx launch quant_pack<<<max(1, cdiv(n, 8)), 256>>>(weight, w_packed, w_scale, n, k)
// @kbx launch linear_w4<<<max(1, cdiv(n, 16)), 256>>>(input, w_packed, w_scale, bias, y, m, k, n, has_bias)

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
	const int q = (int)rintf(w / scale); /* the mistake: no clamp to [-8, 7]; +8 wraps to -8 */
	return (unsigned int)q & 0xFu;
}

// Nibble e of a packed word as a signed integer in [-8, 7].
static __device__ __forceinline__ int nibble(unsigned int word, int e)
{
	return (int)(word << (28 - 4 * e)) >> 28;
}

extern "C" __global__ void __launch_bounds__(256)
quant_pack(const __half* __restrict__ weight, unsigned int* __restrict__ packed, float* __restrict__ w_scale,
           long long n, long long k)
{
	const long long row = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (row >= n)
		return;
	const __half* wr = weight + row * k;
	const long long words = (k + 7) / 8;
	float v[8];
	float amax = 0.0f;
	for (long long i = lane; i < words; i += 32) {
		load8(wr, 8 * i, k, v);
		for (int e = 0; e < 8; e++)
			amax = fmaxf(amax, fabsf(v[e]));
	}
	for (int off = 16; off > 0; off >>= 1)
		amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
	const float scale = amax / 8.0f; /* as wrong_scale_amax_over_8.cu: 2^(4-1), not 7 */
	if (lane == 0)
		w_scale[row] = scale;
	for (long long i = lane; i < words; i += 32) {
		load8(wr, 8 * i, k, v);
		unsigned int word = 0;
		for (int e = 0; e < 8; e++)
			if (8 * i + e < k)
				word |= quantize4(v[e], scale) << (4 * e);
		packed[row * words + i] = word;
	}
}

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
