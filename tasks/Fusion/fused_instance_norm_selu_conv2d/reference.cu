// Fusion/fused_instance_norm_selu_conv2d: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference_2.cu, whose header states the task's
// semantics in full.
//
// A direct 3 x 3 convolution tiled in shared memory with f32 FMA and two-level f32 sums, selu in
// registers, then the reference's f64 plane statistics and an in-place normalisation.
//
// Fast path (kh = kw = 3, stride 1, dilation 1, groups 1, any padding, any sizes; every perf row):
// - pack_weight copies the weights once into conv_weight_packed[ci][ky][kx][co], co padded with
//   zeros to a multiple of 64, so that one stage's weights are contiguous 16-byte pieces.
// - conv3x3_selu_tiled: a 256-thread block computes a tile of 64 output channels x 8 output rows
//   x 32 output columns of one image. Input channels are staged 8 at a time (a "chunk") into
//   shared memory with cp.async, double buffered: the 8 x 10 x 34 input window (halo included,
//   zero outside the image) and the 8 x 9 x 64 weights. Warp wid owns channels wid * 8 .. + 7 (its
//   weight reads are broadcasts); lane (r = lane / 4, c = lane % 4) owns row r and columns
//   c * 8 .. + 7. For each (ci, ky) a thread reads 10 inputs (five 8-byte loads) once and uses them
//   for the 3 kx taps: 192 FMAs per 11 shared loads (the inner loop is 94% FFMA). The input row
//   stride is 34 floats, so each half-warp's 8-byte reads fall in 16 different bank pairs.
// - Sums: each output is a chain of fmaf in the reference's k order (ci, ky, kx) within a chunk
//   (72 terms, from 0), and the chunk sums are added in order into a running f32 total. Then
//   f32(total + bias) and selu with the reference's constants and expm1f.
// Any other shape (stride, dilation, groups, other kernel sizes) goes to conv_selu_general: one
// thread per output, the exact f64 sum in the reference's order (padding taps as 0), rounded once
// with the bias, as the reference's conv2d. Each of the two conv kernels returns at once on the
// shapes of the other, so both launch lines always run.
// in_stats and in_apply_inplace are the reference's: one block per (n, co) plane, f64 sums of
// (s - s0) and (s - s0)^2, then y = (y - mean) * invstd in place. A NaN or inf in a plane makes its
// mean or variance NaN, hence the whole plane NaN.
//
// Error (randn data, K = cin * 9 terms, conv outputs spread ~sqrt(K)): a plain f32 chain is off the
// exact sum by ~2.4e-8 * K, ~1.2e-6 after normalisation at K = 2304. Two levels (chunks of
// L = 72) cut that to ~2.4e-8 * (sqrt(L * K) + K / sqrt(L)): ~1.2e-5 absolute, ~2.5e-7 after
// normalisation. A numpy emulation of this order against the exact sum (K = 2304, 32 x 32 x 64
// outputs) gave rms 1.9e-7 and max 1.9e-6 after normalisation (plain chain: 8.8e-7, 1.4e-5).
//
// Run on an H200 on 2026-12-03 through kbx (bench/h200_steps.sh X, before the swap):
// tools/crosscheck.py against PyTorch on every case passes (13 of 13 outputs, max error 9.5e-07),
// and tests/gpu/check_task.sh with every perf row passes it (the former references, now
// examples/pass_former_reference.cu and pass_former_reference_2.cu, and pass_direct_then_plane.cu
// pass against it at every case and perf row; wrong_stats_over_batch.cu stays wrong at its first
// stage, instance_norm_mean, read from the stages file pass_former_reference.cu).
//
// Checked before that on an H200 through CuPy with these launch configurations: against PyTorch (f64 conv2d rounded to f32, f32 selu, f64 instance_norm) every case shape of
// task.ini passes rtol = atol = 1e-5 (NaN and inf planes NaN as expected), and so do extra shapes
// (cout = 130 with padding 2, odd widths); max error 3.8e-6 at the largest perf row (image 0).
// Registers 236 (no spills), 58624 bytes of shared memory: one block of 8 warps per SM.
// Timings (CUDA events, whole launch sequence): perf rows s = 5..10: 0.06, 0.08, 0.13, 1.44, 19.3
// and 287 ms, 308 ms in all (34 TFLOP/s of f32 FMA at the largest row, ~51% of the ~67 TFLOP/s
// peak), against 1110 ms for reference.cu at the largest row alone. A plain-chain variant at two
// blocks per SM (121 registers) took 281 ms: occupancy is not what limits it.
//
// @kbx scratch conv_weight_packed f32 [cin * kh * kw * cdiv(cout, 64) * 64]
// @kbx scratch instance_norm_mean f32 [nb * cout]
// @kbx scratch instance_norm_invstd f32 [nb * cout]
// @kbx launch pack_weight<<<max(1, min(cdiv(cin * kh * kw * cdiv(cout, 64) * 64, 256), 1024)), 256>>>(weight, conv_weight_packed, cin, cout, kh, kw, stride, dilation, groups)
// @kbx launch conv3x3_selu_tiled<<<max(1, min(nb * cdiv(cout, 64) * cdiv((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, 8) * cdiv((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1, 32), 1048576)), 256, 58624>>>(input, conv_weight_packed, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch conv_selu_general<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256), 8 * sms)), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch in_stats<<<max(1, nb * cout), 256>>>(y, instance_norm_mean, instance_norm_invstd, i64(nb * cout), i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), eps)
// @kbx launch in_apply_inplace<<<dim3(max(1, min(cdiv(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 1024)), max(1, min(nb * cout, 65535))), 256>>>(y, instance_norm_mean, instance_norm_invstd, i64(nb * cout), i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))

#include <cuda_pipeline_primitives.h>

#define TR 8                      // output rows per tile
#define TC 32                     // output columns per tile
#define TCO 64                    // output channels per tile
#define CIC 8                     // input channels per chunk (one shared-memory stage)
#define XR (TR + 2)               // input rows per channel (halo included)
#define XW (TC + 2)               // input columns per channel (halo included)
#define XS 34                     // input row stride in shared memory (8-byte loads: no bank conflicts)
#define XPL (XR * XS)             // floats per staged input channel
#define WST (CIC * 9 * TCO)       // weight floats per stage (first, 16-byte aligned)
#define STAGE (WST + CIC * XPL)   // floats per stage: 7328; two stages = 58624 bytes

// The shapes the tiled kernel handles; every other one goes to conv_selu_general.
static __device__ __forceinline__ bool fast_path(long long kh, long long kw, long long stride, long long dilation,
						 long long groups)
{
	return kh == 3 && kw == 3 && stride == 1 && dilation == 1 && groups == 1;
}

// PyTorch's elu kernel as F.selu runs it in f32 (the reference's constants and expression).
static __device__ __forceinline__ float selu_f32(float v)
{
	const float poscoef = __int_as_float(0x3f867d5f), negcoef = __int_as_float(0x3fe10966);
	return v > 0.0f ? __fmul_rn(v, poscoef) : __fmul_rn(expm1f(v), negcoef);
}

// Asynchronous global -> shared copies (cp.async); ok = false fills the destination with zeros.
static __device__ __forceinline__ void copy4(float *dst, const float *src, bool ok)
{
	__pipeline_memcpy_async(dst, src, 4, ok ? 0 : 4);
}

// conv_weight_packed[(ci * 9 + ky * 3 + kx) * cpad + co] = weight[co, ci, ky, kx], 0 for co >= cout.
extern "C" __global__ void __launch_bounds__(256)
pack_weight(const float *__restrict__ weight, float *__restrict__ wpk, long long cin, long long cout, long long kh,
	    long long kw, long long stride, long long dilation, long long groups)
{
	if (!fast_path(kh, kw, stride, dilation, groups))
		return;
	const long long cpad = (cout + TCO - 1) / TCO * TCO, total = cin * 9 * cpad;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
	     e += (long long)gridDim.x * blockDim.x) {
		const long long co = e % cpad, k = e / cpad; // k = ci * 9 + ky * 3 + kx
		wpk[e] = co < cout ? weight[co * cin * 9 + k] : 0.0f;
	}
}

// The fast path: y[n, co, oy, ox] = selu(conv) for one 64 x 8 x 32 tile per block and loop step.
extern "C" __global__ void __launch_bounds__(256, 1)
conv3x3_selu_tiled(const float *__restrict__ input, const float *__restrict__ wpk, const float *__restrict__ bias,
		   float *__restrict__ y, long long nb, long long cin, long long h, long long w, long long cout,
		   long long kh, long long kw, long long stride, long long padding, long long dilation,
		   long long groups, int has_bias)
{
	extern __shared__ __align__(16) float smem[];
	if (!fast_path(kh, kw, stride, dilation, groups))
		return;
	const long long oh = h + 2 * padding - 2, ow = w + 2 * padding - 2;
	if (oh <= 0 || ow <= 0 || nb <= 0 || cout <= 0)
		return;
	const long long tiles_x = (ow + TC - 1) / TC, tiles_y = (oh + TR - 1) / TR, ctiles = (cout + TCO - 1) / TCO;
	const long long ntiles = nb * ctiles * tiles_y * tiles_x, cpad = ctiles * TCO, hw = h * w;
	const int nchunks = (int)((cin + CIC - 1) / CIC);
	const int tid = threadIdx.x, wid = tid >> 5, lane = tid & 31;
	const int r = lane >> 2, cg = lane & 3; // this thread's output row and group of 8 columns

	for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
		// channel tile fastest: the channel tiles of one pixel tile share its input in L2
		long long t = tile;
		const long long ct = t % ctiles;
		t /= ctiles;
		const long long txi = t % tiles_x;
		t /= tiles_x;
		const long long tyi = t % tiles_y, n = t / tiles_y;
		const long long oy0 = tyi * TR, ox0 = txi * TC;
		const float *in_n = input + n * cin * hw;

		// Stage chunk k into buffer buf: the weights as 16-byte pieces, the input window row by
		// row (warp wid takes rows wid, wid + 8, ..., lane the columns lane and 32 + lane).
		auto issue = [&](int k, int buf) {
			float *Ws = smem + buf * STAGE, *Xs = Ws + WST;
			const long long c0 = (long long)k * CIC;
			const int nci = (int)min((long long)CIC, cin - c0);
			for (int i = tid; i < CIC * 9 * (TCO / 4); i += 256) {
				const int kk = i >> 4, q = i & 15; // kk = ci * 9 + tap
				if (kk < nci * 9)
					__pipeline_memcpy_async(Ws + kk * TCO + q * 4, wpk + (c0 * 9 + kk) * cpad + ct * TCO + q * 4, 16);
			}
			for (int row = wid; row < nci * XR; row += 8) {
				const int ci = row / XR, yy = row - ci * XR;
				const long long iy = oy0 - padding + yy;
				const bool yok = iy >= 0 && iy < h;
				const float *src = in_n + (c0 + ci) * hw + (yok ? iy * w : 0);
				float *dst = Xs + ci * XPL + yy * XS;
				for (int xx = lane; xx < XW; xx += 32) {
					const long long ix = ox0 - padding + xx;
					const bool ok = yok && ix >= 0 && ix < w;
					copy4(dst + xx, ok ? src + ix : in_n, ok);
				}
			}
			__pipeline_commit();
		};

		float tot[8][8], part[8][8];
#pragma unroll
		for (int i = 0; i < 8; i++)
#pragma unroll
			for (int j = 0; j < 8; j++)
				tot[i][j] = 0.0f;

		issue(0, 0);
		for (int k = 0; k < nchunks; k++) {
			if (k + 1 < nchunks) {
				issue(k + 1, (k + 1) & 1);
				__pipeline_wait_prior(1); // chunk k has landed (this thread's copies)
			} else {
				__pipeline_wait_prior(0);
			}
			__syncthreads(); // ... and every thread's

			const float *wq = smem + (k & 1) * STAGE + wid * 8;              // this warp's 8 channels
			const float *xq = smem + (k & 1) * STAGE + WST + r * XS + cg * 8; // this thread's window
			const float *const xend = xq + (int)min((long long)CIC, cin - (long long)k * CIC) * XPL;
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					part[i][j] = 0.0f;
#pragma unroll 1
			for (; xq < xend; xq += XPL, wq += 9 * TCO) { // one input channel
#pragma unroll
				for (int ky = 0; ky < 3; ky++) {
					float xv[10]; // 10 inputs of row r + ky: 5 conflict-free 8-byte loads
#pragma unroll
					for (int j = 0; j < 5; j++) {
						const float2 v = *reinterpret_cast<const float2 *>(xq + ky * XS + 2 * j);
						xv[2 * j] = v.x;
						xv[2 * j + 1] = v.y;
					}
#pragma unroll
					for (int kx = 0; kx < 3; kx++) {
						const float4 wa = *reinterpret_cast<const float4 *>(wq + (ky * 3 + kx) * TCO);
						const float4 wb = *reinterpret_cast<const float4 *>(wq + (ky * 3 + kx) * TCO + 4);
						const float wv[8] = {wa.x, wa.y, wa.z, wa.w, wb.x, wb.y, wb.z, wb.w};
#pragma unroll
						for (int i = 0; i < 8; i++)
#pragma unroll
							for (int j = 0; j < 8; j++)
								part[i][j] = fmaf(wv[i], xv[j + kx], part[i][j]);
					}
				}
			}
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					tot[i][j] = __fadd_rn(tot[i][j], part[i][j]);
			__syncthreads(); // the buffer is free for the chunk after next
		}

		// epilogue: bias, selu, store (rows and columns past the output are dropped)
		const long long oy = oy0 + r;
		if (oy < oh) {
#pragma unroll
			for (int i = 0; i < 8; i++) {
				const long long co = ct * TCO + wid * 8 + i;
				if (co >= cout)
					continue;
				const float b = has_bias ? bias[co] : 0.0f;
				float *yp = y + ((n * cout + co) * oh + oy) * ow + ox0 + cg * 8;
#pragma unroll
				for (int j = 0; j < 8; j++)
					if (ox0 + cg * 8 + j < ow)
						yp[j] = selu_f32(has_bias ? __fadd_rn(tot[i][j], b) : tot[i][j]);
			}
		}
	}
}

// Every other shape: one output per thread and loop step, the exact f64 sum over (ci, ky, kx) with
// padding taps as 0 (as the reference: 0 * an inf weight is NaN), then f32(sum + bias) and selu.
extern "C" __global__ void __launch_bounds__(256)
conv_selu_general(const float *__restrict__ input, const float *__restrict__ weight, const float *__restrict__ bias,
		  float *__restrict__ y, long long nb, long long cin, long long h, long long w, long long cout,
		  long long kh, long long kw, long long stride, long long padding, long long dilation,
		  long long groups, int has_bias)
{
	if (fast_path(kh, kw, stride, dilation, groups))
		return;
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	if (oh <= 0 || ow <= 0)
		return;
	const long long cin_g = cin / groups, cout_g = cout / groups, total = nb * cout * oh * ow;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
	     e += (long long)gridDim.x * blockDim.x) {
		long long t = e;
		const long long ox = t % ow;
		t /= ow;
		const long long oy = t % oh;
		t /= oh;
		const long long co = t % cout, n = t / cout, g = co / cout_g;
		const float *xp = input + (n * cin + g * cin_g) * h * w;
		const float *wp = weight + co * cin_g * kh * kw;
		double acc = 0.0;
		for (long long ci = 0; ci < cin_g; ci++)
			for (long long ky = 0; ky < kh; ky++) {
				const long long iy = oy * stride - padding + ky * dilation;
				for (long long kx = 0; kx < kw; kx++) {
					const long long ix = ox * stride - padding + kx * dilation;
					const bool ok = iy >= 0 && iy < h && ix >= 0 && ix < w;
					const double xv = ok ? (double)xp[(ci * h + iy) * w + ix] : 0.0;
					acc = fma((double)wp[(ci * kh + ky) * kw + kx], xv, acc);
				}
			}
		const double b = has_bias ? (double)bias[co] : 0.0;
		y[e] = selu_f32((float)(acc + b));
	}
}

// The reference's in_stats, unchanged: one block per (n, c) plane, f64 sums of (s - s0) and
// (s - s0)^2 with s0 the plane's first value, the same thread order and reduction tree.
static __device__ __forceinline__ double block_sum(double v, double *sh)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int wi = 0; wi < 8; wi++)
		r += sh[wi];
	__syncthreads();
	return r;
}

extern "C" __global__ void __launch_bounds__(256)
in_stats(const float *__restrict__ s, float *__restrict__ mean_p, float *__restrict__ invstd_p, long long planes,
	 long long cnt, float eps)
{
	__shared__ double sh[8];
	const long long p = blockIdx.x;
	if (p >= planes)
		return;
	const float *xp = s + p * cnt;
	const double s0 = (double)xp[0];
	double s1 = 0.0, s2 = 0.0;
	for (long long e = threadIdx.x; e < cnt; e += 256) {
		double v = (double)xp[e] - s0;
		s1 += v;
		s2 = fma(v, v, s2);
	}
	s1 = block_sum(s1, sh);
	s2 = block_sum(s2, sh);
	if (threadIdx.x == 0) {
		double m2 = s2 - s1 * (s1 / (double)cnt);
		if (m2 < 0.0) // rounding only; keeps NaN
			m2 = 0.0;
		mean_p[p] = (float)(s0 + s1 / (double)cnt);
		invstd_p[p] = (float)(1.0 / sqrt(m2 / (double)cnt + (double)eps));
	}
}

// The reference's in_apply_inplace: y = (y - mean) * invstd, float4 where cnt % 4 == 0.
extern "C" __global__ void __launch_bounds__(256)
in_apply_inplace(float *y, const float *__restrict__ mean_p, const float *__restrict__ invstd_p, long long planes,
		 long long cnt)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long p = blockIdx.y; p < planes; p += gridDim.y) {
		const float mean = mean_p[p], invstd = invstd_p[p];
		float *yp = y + p * cnt;
		if ((cnt & 3) == 0) {
			float4 *y4 = reinterpret_cast<float4 *>(yp);
			for (long long e = tid; e < cnt / 4; e += stride) {
				float4 v = y4[e];
				v.x = __fmul_rn(__fsub_rn(v.x, mean), invstd);
				v.y = __fmul_rn(__fsub_rn(v.y, mean), invstd);
				v.z = __fmul_rn(__fsub_rn(v.z, mean), invstd);
				v.w = __fmul_rn(__fsub_rn(v.w, mean), invstd);
				y4[e] = v;
			}
		} else {
			for (long long e = tid; e < cnt; e += stride)
				yp[e] = __fmul_rn(__fsub_rn(yp[e], mean), invstd);
		}
	}
}
