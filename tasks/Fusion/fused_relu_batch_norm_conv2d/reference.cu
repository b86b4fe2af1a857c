// Fusion/fused_relu_batch_norm_conv2d: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference_2.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 39/39 outputs pass (max err 1.5e-05); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 293.3 ms
// against 369.1 ms for the former reference (pass_former_reference_2.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Correct and meant to be faster than reference.cu: the direct, shared-memory-tiled 3 x 3 convolution
// of Fusion/fused_instance_norm_selu_conv2d/reference.cu, with this task's batch norm and relu.
// It aims to give the same bits as reference.cu on every case and perf row (see "Numerics").
//
// Fast path (kh = kw = 3, stride 1, dilation 1, groups 1, any padding, any sizes; every perf row,
// and the cases test_case_1_training, random_standard, random_outlier, training_cnt2,
// training_many_values, eval_perf_like, eval_empty and special_eval):
// - pack_weight copies the weights once into conv_weight_packed[ci][ky][kx][co], co padded with
//   zeros to a multiple of 64, so that one stage's weights are contiguous 16-byte pieces.
// - conv3x3_bn_relu_tiled: a 256-thread block computes a tile of 64 output channels x 8 output rows
//   x 32 output columns of one image, looping over tiles (channel tile fastest, so the channel
//   tiles of one pixel tile share its input in L2). Input channels are staged 8 at a time (a
//   "chunk") into shared memory with cp.async, double buffered: the 8 x 10 x 34 input window (halo
//   included, zero-filled outside the image) and the 8 x 9 x 64 weights. Warp wid owns output
//   channels wid * 8 .. + 7 (its weight reads are broadcasts); lane (r = lane / 4, c = lane % 4)
//   owns output row r and columns c * 8 .. + 7. For each (ci, ky) a thread reads 10 inputs (five
//   8-byte loads, conflict-free with the row stride of 34) once and uses them for the 3 kx taps:
//   192 FMAs per 11 shared loads. 58624 bytes of shared memory per block, at most 128 registers
//   (__launch_bounds__(256, 2)): two blocks per SM.
// - Epilogue: v = acc, v = v + bias[co] (f32) when has_bias; eval: y = relu(((v - running_mean) *
//   invstd) * bn_weight + bn_bias) with invstd = f32(1 / sqrt(f64(running_var) + f64(eps))), the
//   reference's expressions and roundings (__fsub_rn, __fmul_rn, __fmul_rn, __fadd_rn; relu keeps
//   NaN and maps -0 and negatives to +0); training: y = v, normalised afterwards (below).
// General path (every other shape: stride 2, dilation, groups, other kernel sizes):
// conv_bn_relu_general, one thread per output and grid-stride step, the reference's sum itself (a
// sequential f32 fmaf chain over k = (ci, ky, kx) from 0.0f, padding taps as fmaf(w, 0, acc)) and
// the same epilogue. Each of the two conv kernels (and pack_weight) returns at once on the shapes of
// the other path, so every launch line always runs.
// Training (launch grids multiplied by `training`, so empty in eval): bn_stats and bn_apply_relu are
// reference.cu's, unchanged: per channel an f64 two-pass mean and biased variance over the nb * oh
// * ow raw conv values left in y (same thread order and reduction tree), the running statistics
// updated as reference.cu does, then y = relu(((y - mean) * invstd) * bn_weight + bn_bias) in place.
//
// Numerics against the reference. reference.cu computes each conv output as ONE sequential f32 fmaf
// chain over k = ci * 9 + ky * 3 + kx from 0.0f (padding taps fmaf'd with a 0; the k slots past K
// of its last slice are fmaf(0, 0, acc), which leave acc unchanged: acc starts at +0 and an exact
// zero sum rounds to +0, so acc is never -0), then v += bias. Both paths here perform the same fmaf
// chain in the same order, with the same operands (the fast path's padding taps are zeros in shared
// memory; channels past cin in the last chunk are skipped, where the reference adds exact zeros), then
// the same bias add and epilogue, and training uses the reference's own statistics kernels on the same
// conv values. So the error against the reference is 0 (same bits, NaN where it has NaN), and the
// error against the exact sum is the reference's own.
// This is deliberately NOT the instance-norm reference's two-level sum (72-term fmaf chains per
// 8-channel chunk, chunk sums added in order): that order is closer to the exact sum, but it differs
// from this reference by the reference's own chain error, which grows with K on uniform(0, 1) data.
// An emulation (numpy, exact fmaf) of both orders on sampled outputs of the perf rows, in units of the
// tolerance 1e-5 + 1e-5 |ref|: two-level vs reference max 0.17 / 0.21 / 0.37 / 0.44 / 0.64 (rms
// 0.036 / 0.051 / 0.072 / 0.10 / 0.145) for perf rows 1 - 5 (K = 576 .. 9216; 20000, 20000, 20000,
// 40000 and 60000 outputs); the reference chain vs the exact sum is the same size (max 0.63, rms
// 0.144 at row 5). Over row 5's 5.4e8 outputs (~6.1 sigma) the two-level order would reach ~0.9 of
// the tolerance: too close. The plain chain gives 0.
//
// Expected speed (an ESTIMATE, not measured): the same inner loop as the instance-norm reference,
// which measured 34 TFLOP/s at its largest row (one block per SM, two-level sums) and 281 ms with a
// plain chain at two blocks per SM; at this task's largest row (9.9 TFLOP) that is ~280 - 290 ms, and
// ~300 - 320 ms over the five perf rows (the other four rows hold 0.66 TFLOP) against ~334 ms for
// reference.cu (~1.1x) and ~32 ms golden (cuDNN, TF32 tensor cores). The f32 FMA peak (~67 TFLOP/s)
// bounds any kernel that keeps the reference's fmaf chain at ~160 ms over the perf rows.
//
// Checked: NOT YET RUN ON A GPU (2026-12-03). What was checked, without a GPU:
// - kbx compiles it with NVRTC for sm_90 (`kbx run`: compile ok, not_run), and tests/corpus/test_corpus
//   on a copy of this task alone compiles it and checks its launch lines against the kernels'
//   parameters (test_catalogue and test_golden_rows_line_up fail there for any partial catalogue).
// - nvcc 13.0 -arch=sm_90 -O3 -Xptxas -v: conv3x3_bn_relu_tiled 121 registers, conv_bn_relu_general
//   72, pack_weight / bn_stats / bn_apply_relu <= 32; no spills, no stack.
// - A numpy emulation of this file's kernels (exact f32 fmaf; the tiled kernel's staging, chunk,
//   (ci, ky, kx) loops, thread mapping and bounds as written; the general kernel; the epilogue; the
//   f64 two-pass statistics with their thread order and reduction tree) against a model of
//   reference.cu (its k slots including the zero tail of the last slice, bias, epilogue, bn_stats
//   and bn_apply_relu), on all 13 cases of task.ini with inputs drawn by kbx's own generator
//   (core/inputs.c gen_fill, seed 0, key task / case / arg): y, running_mean and running_var equal
//   bit for bit in every case (NaN at the same places: 90 outputs of special_eval, the 8 of output
//   channels 0 - 1 of special_training), every output written exactly once. The same emulation of
//   two whole tiles per perf row (a corner tile with the last channel tile, and the last pixel tile;
//   16384 outputs per row) equals the reference model bit for bit at perf rows 1 - 5. For context,
//   the reference model against an f64 PyTorch-like model: <= 0.25 of the tolerance on the cases.
// - Launch lines, by hand: on fast shapes the general kernel's blocks return at once and vice versa
//   (pack_weight too); nb = 0 leaves the conv kernels idle; bn_stats / bn_apply_relu get an empty
//   grid in eval (as in reference.cu).
// Not checked: anything on a GPU (timing, the cp.async pipeline's synchronisation, whether the
// driver gives two 58624-byte blocks per SM by default).
//
// @kbx scratch conv_weight_packed f32 [cin * kh * kw * cdiv(cout, 64) * 64]
// @kbx scratch bnf_mean f32 [cout]
// @kbx scratch bnf_invstd f32 [cout]
// @kbx launch pack_weight<<<max(1, min(cdiv(cin * kh * kw * cdiv(cout, 64) * 64, 256), 1024)), 256>>>(weight, conv_weight_packed, cin, cout, kh, kw, stride, dilation, groups)
// @kbx launch conv3x3_bn_relu_tiled<<<max(1, min(nb * cdiv(cout, 64) * cdiv((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1, 8) * cdiv((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1, 32), 1048576)), 256, 58624>>>(input, conv_weight_packed, bias, running_mean, running_var, bn_weight, bn_bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias, training, eps)
// @kbx launch conv_bn_relu_general<<<max(1, min(cdiv(nb * cout * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 256), 8 * sms)), 256>>>(input, weight, bias, running_mean, running_var, bn_weight, bn_bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias, training, eps)
// @kbx launch bn_stats<<<max(1, cout) * training, 256>>>(y, running_mean, running_var, bnf_mean, bnf_invstd, nb, cout, i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), training, momentum, eps)
// @kbx launch bn_apply_relu<<<dim3(max(1, min(cdiv(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 256)) * training, max(1, min(nb * cout, 65535))), 256>>>(y, bnf_mean, bnf_invstd, bn_weight, bn_bias, nb, cout, i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))

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

// The shapes the tiled kernel handles; every other one goes to conv_bn_relu_general.
static __device__ __forceinline__ bool fast_path(long long kh, long long kw, long long stride, long long dilation,
						 long long groups)
{
	return kh == 3 && kw == 3 && stride == 1 && dilation == 1 && groups == 1;
}

// The per-channel constants of the eval batch norm, as reference.cu's epilogue computes them.
struct BnChan {
	float mean, invstd, wt, bs;
};

static __device__ __forceinline__ BnChan bn_chan(const float *__restrict__ running_mean,
						 const float *__restrict__ running_var, const float *__restrict__ bn_weight,
						 const float *__restrict__ bn_bias, float eps, long long c)
{
	BnChan b;
	b.mean = running_mean[c];
	b.invstd = (float)(1.0 / sqrt((double)running_var[c] + (double)eps));
	b.wt = bn_weight[c];
	b.bs = bn_bias[c];
	return b;
}

// relu(((v - mean) * invstd) * bn_weight + bn_bias), NaN kept: reference.cu's roundings.
static __device__ __forceinline__ float bn_relu(float v, const BnChan &b)
{
	v = __fadd_rn(__fmul_rn(__fmul_rn(__fsub_rn(v, b.mean), b.invstd), b.wt), b.bs);
	return v > 0.0f || v != v ? v : 0.0f;
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

// The fast path: one 64 x 8 x 32 tile of y per block and loop step.
extern "C" __global__ void __launch_bounds__(256, 2)
conv3x3_bn_relu_tiled(const float *__restrict__ input, const float *__restrict__ wpk, const float *__restrict__ bias,
		      const float *__restrict__ running_mean, const float *__restrict__ running_var,
		      const float *__restrict__ bn_weight, const float *__restrict__ bn_bias, float *__restrict__ y,
		      long long nb, long long cin, long long h, long long w, long long cout, long long kh,
		      long long kw, long long stride, long long padding, long long dilation, long long groups,
		      int has_bias, int training, float eps)
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

		// One f32 fmaf chain per output over the whole k = (ci, ky, kx) range, from 0.0f: the
		// reference's chain, operand for operand.
		float acc[8][8];
#pragma unroll
		for (int i = 0; i < 8; i++)
#pragma unroll
			for (int j = 0; j < 8; j++)
				acc[i][j] = 0.0f;

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
								acc[i][j] = fmaf(wv[i], xv[j + kx], acc[i][j]);
					}
				}
			}
			__syncthreads(); // the buffer is free for the chunk after next
		}

		// epilogue: bias, then batch norm + relu (eval) or the raw conv (training); rows and
		// columns past the output are dropped
		const long long oy = oy0 + r;
		if (oy < oh) {
#pragma unroll
			for (int i = 0; i < 8; i++) {
				const long long co = ct * TCO + wid * 8 + i;
				if (co >= cout)
					continue;
				const float b = has_bias ? bias[co] : 0.0f;
				BnChan bc = {0.0f, 0.0f, 0.0f, 0.0f};
				if (!training)
					bc = bn_chan(running_mean, running_var, bn_weight, bn_bias, eps, co);
				float *yp = y + ((n * cout + co) * oh + oy) * ow + ox0 + cg * 8;
#pragma unroll
				for (int j = 0; j < 8; j++)
					if (ox0 + cg * 8 + j < ow) {
						float v = has_bias ? __fadd_rn(acc[i][j], b) : acc[i][j];
						yp[j] = training ? v : bn_relu(v, bc);
					}
			}
		}
	}
}

// Every other shape: one output per thread and loop step, reference.cu's conv sum itself (a
// sequential f32 fmaf chain over (ci, ky, kx) from 0.0f, padding taps fmaf'd with 0), then the bias
// and the same epilogue as the fast path.
extern "C" __global__ void __launch_bounds__(256)
conv_bn_relu_general(const float *__restrict__ input, const float *__restrict__ weight, const float *__restrict__ bias,
		     const float *__restrict__ running_mean, const float *__restrict__ running_var,
		     const float *__restrict__ bn_weight, const float *__restrict__ bn_bias, float *__restrict__ y,
		     long long nb, long long cin, long long h, long long w, long long cout, long long kh,
		     long long kw, long long stride, long long padding, long long dilation, long long groups,
		     int has_bias, int training, float eps)
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
		float acc = 0.0f;
		for (long long ci = 0; ci < cin_g; ci++)
			for (long long ky = 0; ky < kh; ky++) {
				const long long iy = oy * stride - padding + ky * dilation;
				for (long long kx = 0; kx < kw; kx++) {
					const long long ix = ox * stride - padding + kx * dilation;
					const bool ok = iy >= 0 && iy < h && ix >= 0 && ix < w;
					const float xv = ok ? xp[(ci * h + iy) * w + ix] : 0.0f;
					acc = fmaf(wp[(ci * kh + ky) * kw + kx], xv, acc);
				}
			}
		const float v = has_bias ? __fadd_rn(acc, bias[co]) : acc;
		y[e] = training ? v : bn_relu(v, bn_chan(running_mean, running_var, bn_weight, bn_bias, eps, co));
	}
}

// Training only (the launch lines give these two kernels an empty grid in eval): reference.cu's
// bn_stats and bn_apply_relu, unchanged. bn_stats reads the raw conv that the kernels above left in
// y (same f64 two-pass sums, thread order and reduction tree); bn_apply_relu normalises and applies
// relu in place.
static __device__ double block_sum(double v, double *sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		sh[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < 8 ? sh[lane] : 0.0;
		for (int o = 4; o > 0; o >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, o);
		if (lane == 0)
			sh[8] = v;
	}
	__syncthreads();
	double r = sh[8];
	__syncthreads(); // sh is reused by the next call
	return r;
}

extern "C" __global__ void __launch_bounds__(256)
bn_stats(const float *__restrict__ x, float *__restrict__ running_mean, float *__restrict__ running_var,
	 float *__restrict__ mean_c, float *__restrict__ invstd_c, long long nb, long long c, long long hw,
	 int training, float momentum, float eps)
{
	__shared__ double sh[9];
	const long long ch = blockIdx.x;
	if (ch >= c)
		return;
	if (!training) {
		if (threadIdx.x == 0) {
			mean_c[ch] = running_mean[ch];
			invstd_c[ch] = (float)(1.0 / sqrt((double)running_var[ch] + (double)eps));
		}
		return;
	}
	const long long cnt = nb * hw;
	double s = 0.0;
	for (long long i = threadIdx.x; i < cnt; i += blockDim.x) {
		long long b = i / hw, p = i - b * hw;
		s += (double)x[(b * c + ch) * hw + p];
	}
	const double mean = block_sum(s, sh) / (double)cnt;
	double q = 0.0;
	for (long long i = threadIdx.x; i < cnt; i += blockDim.x) {
		long long b = i / hw, p = i - b * hw;
		double d = (double)x[(b * c + ch) * hw + p] - mean;
		q += d * d;
	}
	const double var = block_sum(q, sh) / (double)cnt; // biased: used to normalise
	if (threadIdx.x == 0) {
		float mean_f = (float)mean;
		float var_unbiased = (float)(var * (double)cnt / (double)(cnt - 1));
		mean_c[ch] = mean_f;
		invstd_c[ch] = (float)(1.0 / sqrt((double)(float)var + (double)eps));
		running_mean[ch] = (1.0f - momentum) * running_mean[ch] + momentum * mean_f;
		running_var[ch] = (1.0f - momentum) * running_var[ch] + momentum * var_unbiased;
	}
}

extern "C" __global__ void __launch_bounds__(256)
bn_apply_relu(float *y, const float *__restrict__ mean_c, const float *__restrict__ invstd_c,
	      const float *__restrict__ weight, const float *__restrict__ bias, long long nb, long long c, long long hw)
{
	const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long plane = blockIdx.y; plane < nb * c; plane += gridDim.y) {
		const long long ch = plane % c;
		const float mean = mean_c[ch], invstd = invstd_c[ch], wt = weight[ch], bs = bias[ch];
		float *yp = y + plane * hw;
		for (long long i = tid; i < hw; i += stride) {
			const float v = __fadd_rn(__fmul_rn(__fmul_rn(__fsub_rn(yp[i], mean), invstd), wt), bs);
			yp[i] = v > 0.0f || v != v ? v : 0.0f;
		}
	}
}
