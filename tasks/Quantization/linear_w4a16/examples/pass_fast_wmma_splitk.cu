// @kbx expect pass
// Why the reference is slow at the perf sizes ((m, k, n) = (1, 4096, 4096), (8, 4096, 4096),
// (32, 4096, 16384), f16): it measured 0.622 ms over the three rows against 0.083 ms for PyTorch
// (golden / ref 0.13). quant_pack reads every weight row twice (amax pass, then the packing pass).
// linear_w4 then computes all m x n x k products on CUDA cores in f32 (2.1 G FMAs at m = 32: over
// 60 us even at the FMA peak), re-reads the packed weights once per 8 batch rows, and each block
// walks k in 256-wide slices with two barriers and one 4-byte load per lane per slice.
//
// This version keeps the contract's two steps (quantize + pack into a scratch buffer, then the
// product from the packed weights) and adds a third small one:
//  1. quant_pack_fast: one warp per weight row; when k % 8 == 0 and k <= 4096 (the perf rows) the
//     warp loads the whole row once into registers (16-byte loads, 16 per lane), takes amax, and
//     quantizes and packs from the registers: the weights are read from DRAM once. Same formula
//     and layout as the reference (scale = amax / 7.0f, rintf(w / scale) clamped to [-8, 7], eight
//     nibbles per 32-bit word, nibble e = element 8 i + e, low nibble of each byte the even k).
//     Other shapes take the reference's loops.
//  2. w4_wmma: tensor cores (nvcuda::wmma, f16 x f16 -> f32, 16 x 16 x 16). A block of 8 warps
//     computes a 32 (batch rows) x 64 (features) tile over one chunk of k, 128 k per step: the
//     activations are copied as f16 into shared memory, the packed words are unpacked to f16 q
//     (exact: q + 1032 is built as the f16 bit pattern 0x6400 | (nibble ^ 8), then 1032 is
//     subtracted, two at a time with __hsub2), and each warp does 8 mma steps on its 16 x 16
//     fragment. The next step's global loads are in registers during the mma. k is split into
//     S chunks (blockIdx.z) so that the grid fills the GPU: S = max(1, min(k / 512,
//     264 / tiles)), 4 at the first two perf rows, 1 at the third (256 blocks each).
//     Each chunk writes its f32 sums to a scratch [S, m, n]; no atomics.
//  3. w4_epilogue: sum = the S chunk sums added in order z = 0, 1, ..; y = f16(sum * scale +
//     bias), the reference's final expression.
//
// Precision: every product f16 activation x 4-bit q is exact in f32 (the tensor cores multiply
// exactly and accumulate in f32), q and the scales are the reference's bits, and the sum is
// rounded to f16 once after sum * scale + bias: the only difference from the reference is the
// f32 summation order (tensor-core k-blocks of 16, S chunks), which task.ini measured at rmse
// below 0.01 against the threshold 0.15 where the outputs are ~1000; on the randn cases the
// outputs are ~10, where an f16 ulp is 2^-7 and the order changes nothing visible.
//
// Expected: the weights must be read in f16 every call (32 MB, 32 MB, 128 MB): step 1 at ~3.5-4
// TB/s takes ~10, ~10 and ~40 us; step 2 reads the packed weights (8 / 8 / 32 MB, mostly from L2
// where step 1 just wrote them) and the activations, ~3-4, ~3-4 and ~20 us; step 3 ~2 us. About
// 15 + 15 + 65 = 95 us against the reference's 622 us (~6.5x); golden 83 us.
//
// Checked (not yet run on a GPU): compiled and ABI-checked with kbx (verdict not_run, no device;
// the [static] evidence is found); ptxas: 99 / 62 / 32 registers, no spills. A numpy emulation of
// the three kernels (the lanes' word sets of both quant_pack_fast paths; every block of w4_wmma
// with the 256 threads' activation and word loads, their masks, the shared-memory layout, the
// nibble-to-f16 trick in f16, the split chunks, the eight 16 x 16 fragments with f32 sums per
// 16-k block, the part writes, each written exactly once; the epilogue with fma) against a model
// of the reference: scales and packed words bit-identical (also for [4, 4096] uniform, [3, 4096]
// outlier, [2, 4104], [3, 4088], [2, 250] weights); outputs identical on every task.ini case
// except one f16 ulp on 1 of 2048 outputs of random_standard_16x256x128 (rmse 7e-7), and
// identical on extra shapes with S = 1, 2, 8 and partial tiles ((m, k, n) = (33, 1032, 70),
// (8, 4096, 128), (2, 4104, 9), (32, 1024, 128), (40, 512, 130), (1, 4096, 64)). The tensor cores'
// internal f32 accumulation is modelled as one rounding per 16-k block; the hardware may truncate
// differently, an f32-order effect of the kind the tolerance comment bounds at rmse < 0.01.
//
// @kbx scratch w_scale f32 [n]
// @kbx scratch w_packed i32 [n, cdiv(k, 8)]
// @kbx scratch part f32 [max(1, max(1, min(k / 512, 264 / max(1, cdiv(n, 64) * cdiv(m, 32)))) * m * n)]
// @kbx launch quant_pack_fast<<<max(1, cdiv(n, 8)), 256>>>(weight, w_packed, w_scale, n, k)
// @kbx launch w4_wmma<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(m, 32)), max(1, min(k / 512, 264 / max(1, cdiv(n, 64) * cdiv(m, 32))))), 256>>>(input, w_packed, part, m, k, n, i32(max(1, min(k / 512, 264 / max(1, cdiv(n, 64) * cdiv(m, 32))))))
// @kbx launch w4_epilogue<<<max(1, min(cdiv(m * n, 256), 8192)), 256>>>(part, w_scale, bias, y, m, n, i32(max(1, min(k / 512, 264 / max(1, cdiv(n, 64) * cdiv(m, 32))))), has_bias)

#include <cuda_fp16.h>
#include <mma.h>

#define KC 128      /* k per step */
#define LDH (KC + 8) /* shared-memory row length in halves */
#define RW 16       /* uint4 (8 halves) per lane in the register path: k <= 32 * 8 * RW = 4096 */

// Eight f16 values starting at p (element index kk of a row of k) widened to f32; zero past k.
static __device__ __forceinline__ void load8(const __half *__restrict__ p, long long kk, long long k, float *v)
{
	if ((k & 7) == 0 && kk < k) {
		const uint4 u = *reinterpret_cast<const uint4 *>(p + kk);
		const unsigned int w[4] = { u.x, u.y, u.z, u.w };
		for (int i = 0; i < 4; i++) {
			const float2 f = __half22float2(*reinterpret_cast<const __half2 *>(&w[i]));
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

extern "C" __global__ void __launch_bounds__(256)
quant_pack_fast(const __half *__restrict__ weight, unsigned int *__restrict__ packed, float *__restrict__ w_scale,
		long long n, long long k)
{
	const long long row = (long long)blockIdx.x * 8 + threadIdx.x / 32;
	const int lane = threadIdx.x % 32;
	if (row >= n)
		return;
	const __half *wr = weight + row * k;
	const long long words = (k + 7) / 8;
	float amax = 0.0f;
	if ((k & 7) == 0 && k <= 32 * 8 * RW) { /* the row in registers, read once */
		uint4 r[RW];
#pragma unroll
		for (int j = 0; j < RW; j++)
			if (lane + 32 * j < words)
				r[j] = *reinterpret_cast<const uint4 *>(wr + 8 * (lane + 32 * j));
#pragma unroll
		for (int j = 0; j < RW; j++)
			if (lane + 32 * j < words) {
				const unsigned int w[4] = { r[j].x, r[j].y, r[j].z, r[j].w };
				for (int i = 0; i < 4; i++) {
					const float2 f = __half22float2(*reinterpret_cast<const __half2 *>(&w[i]));
					amax = fmaxf(amax, fabsf(f.x));
					amax = fmaxf(amax, fabsf(f.y));
				}
			}
		for (int off = 16; off > 0; off >>= 1)
			amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
		const float scale = amax / 7.0f;
		if (lane == 0)
			w_scale[row] = scale;
#pragma unroll
		for (int j = 0; j < RW; j++)
			if (lane + 32 * j < words) {
				const unsigned int w[4] = { r[j].x, r[j].y, r[j].z, r[j].w };
				unsigned int word = 0;
				for (int i = 0; i < 4; i++) {
					const float2 f = __half22float2(*reinterpret_cast<const __half2 *>(&w[i]));
					word |= quantize4(f.x, scale) << (8 * i);
					word |= quantize4(f.y, scale) << (8 * i + 4);
				}
				packed[row * words + lane + 32 * j] = word;
			}
		return;
	}
	/* the reference's loops */
	float v[8];
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

// A packed word (8 signed nibbles, nibble e = element e) as 8 f16 q values, exactly: with
// u = nibble ^ 8 = q + 8 in 0..15, the f16 with bits 0x6400 | u is 1024 + u; minus 1032 is q.
static __device__ __forceinline__ uint4 nibble_unpack8(unsigned int word)
{
	const unsigned int x = word ^ 0x88888888u;
	unsigned int h[4];
#pragma unroll
	for (int p = 0; p < 4; p++) {
		const unsigned int bits = 0x64006400u | ((x >> (8 * p)) & 0xFu) | (((x >> (8 * p + 4)) & 0xFu) << 16);
		__half2 v = *reinterpret_cast<const __half2 *>(&bits);
		v = __hsub2(v, __floats2half2_rn(1032.0f, 1032.0f));
		h[p] = *reinterpret_cast<const unsigned int *>(&v);
	}
	return make_uint4(h[0], h[1], h[2], h[3]);
}

// part[z, i, j] = sum over k in chunk z of input[i, k] * q[j, k] (f32), tensor cores.
extern "C" __global__ void __launch_bounds__(256)
w4_wmma(const __half *__restrict__ x, const unsigned int *__restrict__ packed, float *__restrict__ part, long long m,
	long long k, long long n, int splits)
{
	using namespace nvcuda;
	__shared__ __align__(128) __half As[32 * LDH]; // activations [row][k], f16
	__shared__ __align__(128) __half Bs[64 * LDH]; // q [feature][k], f16
	__shared__ __align__(128) float Cs[32 * 68];   // the block's sums [row][feature]
	const int tid = threadIdx.x, warp = tid >> 5;
	const long long m0 = (long long)blockIdx.y * 32, n0 = (long long)blockIdx.x * 64;
	const long long words = (k + 7) / 8;
	const long long kc = ((k + splits - 1) / splits + KC - 1) / KC * KC;
	const long long kbeg = (long long)blockIdx.z * kc;
	const long long kend = kbeg + kc < k ? kbeg + kc : k;
	const long long wend = (kend + 7) / 8; /* words of this chunk: [kbeg / 8, wend) */
	const int steps = kend > kbeg ? (int)((kend - kbeg + KC - 1) / KC) : 0;
	const bool xvec = (k & 7) == 0, wvec = (words & 3) == 0;
	/* activation loads: row ar, halves 8 as and 8 (as + 8) of the step; word loads: feature bf,
	   words 4 bw .. 4 bw + 3 of the step (k 32 bw .. 32 bw + 31) */
	const int ar = tid >> 3, as = tid & 7, bf = tid >> 2, bw = tid & 3;
	const bool arow = m0 + ar < m, brow = n0 + bf < n;
	const __half *xp = x + (arow ? (m0 + ar) * k : 0);
	const unsigned int *wp = packed + (brow ? (n0 + bf) * words : 0);

	uint4 xa[2], wq;
#define LOADG(k0)                                                                                  \
	do {                                                                                       \
		_Pragma("unroll") for (int h = 0; h < 2; h++)                                      \
		{                                                                                  \
			const long long kk = (k0) + 8 * (as + 8 * h);                              \
			if (xvec) {                                                                \
				xa[h] = (arow && kk < kend) ? *reinterpret_cast<const uint4 *>(xp + kk) \
							    : make_uint4(0u, 0u, 0u, 0u);          \
			} else {                                                                   \
				unsigned short e[8];                                               \
				for (int t = 0; t < 8; t++)                                        \
					e[t] = (arow && kk + t < kend)                             \
						       ? __half_as_ushort(xp[kk + t])              \
						       : (unsigned short)0;                        \
				xa[h] = make_uint4(e[0] | ((unsigned int)e[1] << 16),              \
						   e[2] | ((unsigned int)e[3] << 16),              \
						   e[4] | ((unsigned int)e[5] << 16),              \
						   e[6] | ((unsigned int)e[7] << 16));             \
			}                                                                          \
		}                                                                                  \
		const long long wi = (k0) / 8 + 4 * bw;                                            \
		if (wvec) {                                                                        \
			wq = (brow && wi < wend) ? *reinterpret_cast<const uint4 *>(wp + wi)       \
						 : make_uint4(0u, 0u, 0u, 0u);                     \
		} else {                                                                           \
			wq.x = (brow && wi < wend) ? wp[wi] : 0u;                                  \
			wq.y = (brow && wi + 1 < wend) ? wp[wi + 1] : 0u;                          \
			wq.z = (brow && wi + 2 < wend) ? wp[wi + 2] : 0u;                          \
			wq.w = (brow && wi + 3 < wend) ? wp[wi + 3] : 0u;                          \
		}                                                                                  \
	} while (0)

	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
	wmma::fill_fragment(acc, 0.0f);
	const int fr = 16 * (warp >> 2), fc = 16 * (warp & 3); /* this warp's fragment: rows, features */

	if (steps > 0)
		LOADG(kbeg);
	for (int st = 0; st < steps; st++) {
		/* registers -> shared memory */
		*reinterpret_cast<uint4 *>(&As[ar * LDH + 8 * as]) = xa[0];
		*reinterpret_cast<uint4 *>(&As[ar * LDH + 8 * (as + 8)]) = xa[1];
		*reinterpret_cast<uint4 *>(&Bs[bf * LDH + 32 * bw]) = nibble_unpack8(wq.x);
		*reinterpret_cast<uint4 *>(&Bs[bf * LDH + 32 * bw + 8]) = nibble_unpack8(wq.y);
		*reinterpret_cast<uint4 *>(&Bs[bf * LDH + 32 * bw + 16]) = nibble_unpack8(wq.z);
		*reinterpret_cast<uint4 *>(&Bs[bf * LDH + 32 * bw + 24]) = nibble_unpack8(wq.w);
		__syncthreads();
		if (st + 1 < steps)
			LOADG(kbeg + (long long)(st + 1) * KC);
#pragma unroll
		for (int kk = 0; kk < KC; kk += 16) {
			wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
			wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
			wmma::load_matrix_sync(fa, &As[fr * LDH + kk], LDH);
			wmma::load_matrix_sync(fb, &Bs[fc * LDH + kk], LDH);
			wmma::mma_sync(acc, fa, fb, acc);
		}
		__syncthreads();
	}
#undef LOADG
	wmma::store_matrix_sync(&Cs[fr * 68 + fc], acc, 68, wmma::mem_row_major);
	__syncthreads();
	float *pz = part + (long long)blockIdx.z * m * n;
#pragma unroll
	for (int i = 0; i < 8; i++) {
		const int e = tid + 256 * i, r = e >> 6, c = e & 63;
		if (m0 + r < m && n0 + c < n)
			pz[(m0 + r) * n + n0 + c] = Cs[r * 68 + c];
	}
}

// y[i, j] = f16(sum_z part[z, i, j] * scale[j] + bias[j]), the reference's final expression.
extern "C" __global__ void __launch_bounds__(256)
w4_epilogue(const float *__restrict__ part, const float *__restrict__ w_scale, const __half *__restrict__ bias,
	    __half *__restrict__ y, long long m, long long n, int splits, int has_bias)
{
	const long long total = m * n;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
	     e += (long long)gridDim.x * blockDim.x) {
		const long long j = e % n;
		float sum = part[e];
		for (int z = 1; z < splits; z++)
			sum += part[(long long)z * total + e];
		const float b = has_bias ? __half2float(bias[j]) : 0.0f;
		y[e] = __float2half_rn(sum * w_scale[j] + b);
	}
}
