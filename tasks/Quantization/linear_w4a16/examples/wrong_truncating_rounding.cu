// @kbx expect wrong
// Mistake: the reference's scheme (int4 per output channel, scale = max |w| / 7.0f, clamped to
// [-8, 7], packed eight nibbles per 32-bit word, f32 products and sums) with another rounding
// mode: w / scale is truncated toward zero (truncf) instead of rounded to the nearest step. Every
// quantized weight moves by less than one step, but always toward zero, and an int4 step is a
// seventh of the row's largest |w|: about half the weights end a whole step nearer zero than the
// reference's, and the row's largest weights too, wherever the f32 quotient max / scale lands a
// hair below 7 or -7. A numpy model of both (f16 inputs, f32 scales and quotients; 10 seeds, and
// kbx's own seed-0 inputs) fails the first case already, corner_int4_boundary, whatever the seed
// (its inputs are fixed): 8 / 7 rounds up in f32, so -8 / scale is -6.9999995 and truncates to -6,
// and q = (6, -6, 3, -3) sums to an output of 0 where the reference gives -8/7 (q = (6, -7, 3, -3))
// and the exact F.linear -1: cosine 0 and l1_relative 1 against both, rmse 1.14 and 1.0 (the
// reference: 0.143 from the exact result). On the randn cases rmse 2.8 to 4.9 from the reference
// (threshold 0.15) and 2.2 to 4.0 from the exact F.linear, where the reference is 1.2 to 2.1 from
// it (l1_relative 0.24 to 0.30 and 0.20 to 0.25, against its 0.11 to 0.13), so the exact target,
// widened to the reference's own error, misses it too; on the outlier draws 9 to 22 and 7.5 to
// 18.5 (the reference: 4.8 to 12.2); on perf_like_uniform, all weights positive and each about
// half a step (a fourteenth of the row's max) smaller, l1_relative 0.143 and rmse ~146 on outputs
// ~1000 from both (the reference: 1.4 to 1.7 from the exact result). truncf is no rounding to the
// nearest either, so the source also lacks the round_to_int evidence; the outputs fail on their
// own. The scales are the reference's and kept under its name, and so are the packed weights, so
// the first wrong stage reported should be `w_packed`.
// The lens sees every output error within one step, and the stage diff, comparing w_packed as the
// int4 values it holds (the reference declares it `packs s4`), every differing value one step
// nearer zero: the diagnosis should say `truncation toward zero`.
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
	const float t = truncf(w / scale);   /* the mistake: toward zero, not to the nearest */
	const int q = (int)fminf(fmaxf(t, -8.0f), 7.0f);
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
	const float scale = amax / 7.0f;
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
