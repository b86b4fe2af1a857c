// @kbx expect pass
// The former reference, replaced on 2026-12-04 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// Fusion/fused_relu_batch_norm_conv2d: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// The reference's convolution algorithm, but pipelined and register-blocked (the kernel of
// Convolution/conv2d/reference.cu), with batch norm + relu fused into its epilogue in eval mode. It
// gives the same bits as the reference in both modes.
//
// The reference and why it is slow: conv2d_igemm is the former Convolution/conv2d reference. Each
// 256-thread block computes a 64 x 64 tile, 4 x 4 per thread, with 8 scalar shared loads per
// 16 FMAs. k is staged 16 at a time through one buffer with two barriers per slice and no prefetch,
// and the im2col index math is redone per element. It runs at ~10 TFLOP/s. Then bn_stats, bn_apply
// and relu make three more passes over the output. kbx's sweep (H200): 1077.6 ms over all perf rows
// against golden 32.2 ms. The largest row (1 x 1024 x 512 x 512 -> 2048 channels, 3 x 3, K = 9216)
// is 9.9 TFLOP, ~94% of the sum.
//
// This file: the conv kernels are Convolution/conv2d/reference.cu's (2026-12-01) templates
// unchanged, except for the epilogue. That code uses 128 x 128 tiles (8 x 8 per thread, 2 blocks
// per SM) when there are at least `sms` of them, else 64 x 64. Operands are float4 shared loads.
// 3 x 3 kernels take k slices of whole channels, copied with cp.async into double-buffered shared
// memory behind the current slice, with a 9-bit padding mask per pixel; other kernel sizes take a
// generic register-prefetched path. In eval (every perf row) the epilogue writes
// y = relu(((conv - running_mean) * invstd) * bn_weight + bn_bias) directly, with
// invstd = f32(1 / sqrt(f64(running_var) + eps)) computed once per channel per thread. The conv2d
// and batch_norm buffers and the three extra passes are gone, and the running statistics are left
// alone. In training the epilogue writes the raw conv into y. The reference's bn_stats then runs
// unchanged on y (f64 two-pass, running statistics updated), and bn_apply_relu normalises and
// applies relu in place. Their launch lines multiply the grid by `training`, so in eval they are
// empty and skipped.
//
// Why it stays within tolerance: it matches the reference bit for bit. The conv2d model is stated
// (and was checked by its authors in a CPU emulation) to be bit-identical to the former conv2d
// reference. That former reference is the same algorithm as this task's conv2d_igemm: every output
// is a sequential fmaf chain over k = 0 .. K - 1 from 0.0f with padding taps 0, then v += bias. The
// epilogue uses the reference's roundings (__fsub_rn, __fmul_rn, __fmul_rn, __fadd_rn, and relu
// with NaN kept) and the reference's invstd expression. Training uses the reference's statistics
// kernel on the same conv values. No TF32 and no change of summation order.
//
// Run on an H200 on 2026-12-03 (bench/h200_steps.sh X, before the swap): tools/crosscheck.py
// against PyTorch on every case passes, and tests/gpu/check_task.sh with every perf row (the former
// reference, now examples/pass_former_reference.cu, passes against it at every case and perf row;
// each wrong example keeps its verdict).
//
// How it was checked before that: it compiles with NVRTC through kbx (compile ok,
// not_run). The kernel body was compared by reading it against the model and against this task's
// reference (the same fmaf chain, the same epilogue roundings). The launch lines were checked by
// hand: eval gives empty grids for bn_stats / bn_apply_relu, and nb = 0 gives an empty conv grid.
// ptxas: the 128-tile kernel spills slightly more than the model (232 / 800 bytes against 140 /
// 520), because the epilogue holds 4 per-channel values for each of its 8 rows.
//
// Expected speed: the conv2d model estimates ~40 TFLOP/s for 128-tiles, so the largest row takes
// ~250 ms (reference ~1010 ms). Estimate for the perf sum: ~270 ms against 1078 ms (~4x). Golden
// (32 ms) is cuDNN with TF32 tensor cores; this task's f32 contract (uniform data, 1e-5) would
// allow 3xTF32 tensor-core emulation as a further step.
//
// @kbx scratch bnf_mean f32 [cout]
// @kbx scratch bnf_invstd f32 [cout]
// @kbx launch conv_bn_relu_t128<<<dim3(cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 128) * min(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 128) * cdiv(cout / groups, 128) * groups / sms), cdiv(cout / groups, 128), groups), 256>>>(input, weight, bias, running_mean, running_var, bn_weight, bn_bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias, training, eps)
// @kbx launch conv_bn_relu_t64<<<dim3(cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 64) * (1 - min(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 128) * cdiv(cout / groups, 128) * groups / sms)), cdiv(cout / groups, 64), groups), 256>>>(input, weight, bias, running_mean, running_var, bn_weight, bn_bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias, training, eps)
// @kbx launch bn_stats<<<max(1, cout) * training, 256>>>(y, running_mean, running_var, bnf_mean, bnf_invstd, nb, cout, i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)), training, momentum, eps)
// @kbx launch bn_apply_relu<<<dim3(max(1, min(cdiv(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 1024), 256)) * training, max(1, min(nb * cout, 65535))), 256>>>(y, bnf_mean, bnf_invstd, bn_weight, bn_bias, nb, cout, i64(((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1)))

// ---- the convolution: Convolution/conv2d/reference.cu (2026-12-01), epilogue extended ----

#include <cuda_pipeline_primitives.h>

#define CV_BK 8

// What the epilogue needs for the eval batch norm.
struct BnArgs {
	const float *running_mean, *running_var, *weight, *bias;
	float eps;
	int eval;
}; // k slice of the generic (non 3 x 3) path

// q = a / b, r = a - q * b for non-negative a, positive b; 32-bit division when both fit.
static __device__ __forceinline__ void cv_divmod(long long a, long long b, long long &q, long long &r)
{
	if (((unsigned long long)a | (unsigned long long)b) < 0x80000000ull) {
		unsigned int qq = (unsigned int)a / (unsigned int)b;
		q = qq;
		r = (long long)((unsigned int)a - qq * (unsigned int)b);
	} else {
		q = a / b;
		r = a - q * b;
	}
}

// Shared memory of one block, in floats: the larger of the 3 x 3 path's and the generic path's.
template <int BM>
struct cv_smem {
	static constexpr int CIB = 256 / BM;    // 3 x 3 path: input channels per k slice (2 or 4)
	static constexpr int BK3 = 9 * CIB;     // 3 x 3 path: k slice (18 or 36)
	static constexpr int PA3 = BM + BM / 8; // its weight row stride: 9 * PA3 = 512 / CIB (mod 32)
	static constexpr int F3 = 2 * BK3 * PA3 + 2 * BK3 * BM;
	static constexpr int FG = 2 * CV_BK * (BM + 4) + 2 * CV_BK * BM;
	static constexpr int FLOATS = F3 > FG ? F3 : FG;
};

// The k steps of one slice from shared memory: 16 x 16 threads, thread (ty, tx) owns channel rows
// ty * 4 + (i % 4) + 64 * (i / 4) and pixel columns tx * 4 + (j % 4) + 64 * (j / 4); As is k-major
// (row stride PA), Bs k-major (row stride BN). acc[i][j] = fmaf(a, b, acc[i][j]) in k order.
template <int TM, int TN, int KS, int PA>
static __device__ __forceinline__ void cv_mma(const float *As, const float *Bs, int tx, int ty, float (&acc)[TM][TN])
{
	constexpr int BN = 16 * TN;
#pragma unroll
	for (int kk = 0; kk < KS; kk++) {
		float a[TM], b[TN];
#pragma unroll
		for (int q = 0; q < TM / 4; q++) {
			float4 v = *reinterpret_cast<const float4 *>(As + kk * PA + q * 64 + ty * 4);
			a[4 * q] = v.x;
			a[4 * q + 1] = v.y;
			a[4 * q + 2] = v.z;
			a[4 * q + 3] = v.w;
		}
#pragma unroll
		for (int q = 0; q < TN / 4; q++) {
			float4 v = *reinterpret_cast<const float4 *>(Bs + kk * BN + q * 64 + tx * 4);
			b[4 * q] = v.x;
			b[4 * q + 1] = v.y;
			b[4 * q + 2] = v.z;
			b[4 * q + 3] = v.w;
		}
#pragma unroll
		for (int i = 0; i < TM; i++)
#pragma unroll
			for (int j = 0; j < TN; j++)
				acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
	}
}

// conv = acc (+ bias[c]), exactly the reference's conv2d stage. bn == 0 (training): y = conv (the
// statistics kernels follow). bn == 1 (eval): y = relu(((conv - mean) * invstd) * bn_weight + bn_bias) with
// the reference's roundings, mean = running_mean[c], invstd = f32(1 / sqrt(f64(running_var[c]) + eps)).
template <int TM, int TN>
static __device__ __forceinline__ void cv_store(const float (&acc)[TM][TN], const float *__restrict__ bias,
						float *__restrict__ y, long long p0, long long co0, long long g,
						long long N, long long P, long long cout, long long cout_g, int has_bias,
						int tx, int ty, const BnArgs &bn)
{
	float mean[TM], invstd[TM], wt[TM], bs[TM];
#pragma unroll
	for (int i = 0; i < TM; i++) {
		const long long co = co0 + (i / 4) * 64 + ty * 4 + (i % 4);
		mean[i] = invstd[i] = wt[i] = bs[i] = 0.0f;
		if (bn.eval && co < cout_g) {
			const long long c = g * cout_g + co;
			mean[i] = bn.running_mean[c];
			invstd[i] = (float)(1.0 / sqrt((double)bn.running_var[c] + (double)bn.eps));
			wt[i] = bn.weight[c];
			bs[i] = bn.bias[c];
		}
	}
#pragma unroll
	for (int j = 0; j < TN; j++) {
		const long long p = p0 + (j / 4) * 64 + tx * 4 + (j % 4);
		if (p >= N)
			continue;
		long long n, rem;
		cv_divmod(p, P, n, rem);
		float *yp = y + n * cout * P + rem;
#pragma unroll
		for (int i = 0; i < TM; i++) {
			const long long co = co0 + (i / 4) * 64 + ty * 4 + (i % 4);
			if (co >= cout_g)
				continue;
			const long long c = g * cout_g + co;
			float v = acc[i][j];
			if (has_bias)
				v += bias[c];
			if (bn.eval) {
				v = __fadd_rn(__fmul_rn(__fmul_rn(__fsub_rn(v, mean[i]), invstd[i]), wt[i]), bs[i]);
				v = v > 0.0f || v != v ? v : 0.0f;
			}
			yp[c * P] = v;
		}
	}
}

// One (16 TM) x (16 TN) tile of Y_g = W_g @ im2col(X_g), any kernel size (the non-3x3 cases).
// k slices of CV_BK; each thread loads AV consecutive weights of one row and BR consecutive k of one
// pixel per slice, (ci, ky, kx) carried from k to k.
template <int TM, int TN>
static __device__ __forceinline__ void conv_any(const float *__restrict__ input, const float *__restrict__ weight,
						const float *__restrict__ bias, float *__restrict__ y, long long nb,
						long long cin, long long h, long long w, long long cout, long long kh,
						long long kw, long long stride, long long padding, long long dilation,
						long long groups, int has_bias, float *smem, const BnArgs &bn)
{
	constexpr int BM = 16 * TM, BN = 16 * TN;
	constexpr int AV = BM * CV_BK / 256; // consecutive weights (along k) one thread loads per slice
	constexpr int APR = CV_BK / AV;      // threads per weight row
	constexpr int BR = BN * CV_BK / 256; // im2col elements (consecutive k, one pixel) per thread per slice
	constexpr int PA = BM + 4;
	float *As = smem;                      // [2][CV_BK][PA]
	float *Bs = smem + 2 * CV_BK * PA;     // [2][CV_BK][BN]

	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long P = oh * ow, N = nb * P, hw = h * w;
	const long long K = cin_g * kh * kw;
	const long long p0 = (long long)blockIdx.x * BN, co0 = (long long)blockIdx.y * BM, g = blockIdx.z;
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const int ih = (int)h, iw = (int)w, ikh = (int)kh, ikw = (int)kw, idil = (int)dilation;

	const int a_row = tid / APR, a_k = (tid % APR) * AV;
	const bool a_ok = co0 + a_row < cout_g;
	const float *a_src = weight + (g * cout_g + (a_ok ? co0 + a_row : 0)) * K + a_k;

	const int b_px = tid % BN, b_kk = (tid / BN) * BR;
	const float *b_src = input;
	int piy = -0x40000000, pix = 0; // a pixel past N fails every row bound check: loads 0
	{
		const long long p = p0 + b_px;
		if (p < N) {
			long long n, rem, oy, ox;
			cv_divmod(p, P, n, rem);
			cv_divmod(rem, ow, oy, ox);
			piy = (int)(oy * stride - padding);
			pix = (int)(ox * stride - padding);
			b_src = input + (n * cin + g * cin_g) * hw;
		}
	}
	const int khw = ikh * ikw;
	int kc = b_kk / khw, ky = (b_kk % khw) / ikw, kx = (b_kk % khw) % ikw;
	const int dkc = CV_BK / khw, dky = (CV_BK % khw) / ikw, dkx = (CV_BK % khw) % ikw;

	float ra[AV], rb[BR];
	auto load_slice = [&](long long k0) {
#pragma unroll
		for (int i = 0; i < AV; i++)
			ra[i] = (a_ok && k0 + a_k + i < K) ? a_src[k0 + i] : 0.0f;
		int c = kc, yy = ky, xx = kx;
#pragma unroll
		for (int r = 0; r < BR; r++) {
			if (r) { // next k: kx + 1 with carries into ky and ci
				if (++xx == ikw) {
					xx = 0;
					if (++yy == ikh) {
						yy = 0;
						c++;
					}
				}
			}
			const int iy = piy + yy * idil, ix = pix + xx * idil;
			rb[r] = (k0 + b_kk + r < K && (unsigned)iy < (unsigned)ih && (unsigned)ix < (unsigned)iw)
					? b_src[(long long)c * hw + (long long)iy * w + ix]
					: 0.0f;
		}
	};
	auto advance_k = [&]() {
		kx += dkx;
		if (kx >= ikw) {
			kx -= ikw;
			ky++;
		}
		ky += dky;
		if (ky >= ikh) {
			ky -= ikh;
			kc++;
		}
		kc += dkc;
	};
	auto store_slice = [&](int buf) {
#pragma unroll
		for (int i = 0; i < AV; i++)
			As[(buf * CV_BK + a_k + i) * PA + a_row] = ra[i];
#pragma unroll
		for (int r = 0; r < BR; r++)
			Bs[(buf * CV_BK + b_kk + r) * BN + b_px] = rb[r];
	};

	float acc[TM][TN];
#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++)
			acc[i][j] = 0.0f;

	const long long nslices = (K + CV_BK - 1) / CV_BK;
	load_slice(0);
	store_slice(0);
	__syncthreads();
	for (long long s = 0; s < nslices; s++) {
		const int cur = (int)(s & 1);
		const bool more = s + 1 < nslices;
		if (more) {
			advance_k();
			load_slice((s + 1) * CV_BK);
		}
		cv_mma<TM, TN, CV_BK, PA>(As + cur * CV_BK * PA, Bs + cur * CV_BK * BN, tx, ty, acc);
		if (more)
			store_slice(cur ^ 1);
		__syncthreads();
	}
	cv_store<TM, TN>(acc, bias, y, p0, co0, g, N, P, cout, cout_g, has_bias, tx, ty, bn);
}

// The same tile for a 3 x 3 kernel (every perf row; any stride, padding, dilation, groups): a k slice
// is CIB whole input channels (k = ci * 9 + ky * 3 + kx, 9 CIB rows), so each thread loads the 9
// weights of one (row, channel) and the 9 taps of one (pixel, channel) per slice, at offsets fixed
// for the whole loop; which taps fall in the padding is a 9-bit mask computed once per pixel.
template <int TM, int TN>
static __device__ __forceinline__ void conv_3x3(const float *__restrict__ input, const float *__restrict__ weight,
						const float *__restrict__ bias, float *__restrict__ y, long long nb,
						long long cin, long long h, long long w, long long cout, long long stride,
						long long padding, long long dilation, long long groups, int has_bias,
						float *smem, const BnArgs &bn)
{
	constexpr int BM = 16 * TM, BN = 16 * TN;
	static_assert(BM == BN, "square tiles: one channel of 9 weights and of 9 taps per thread");
	constexpr int CIB = cv_smem<BM>::CIB, BK = cv_smem<BM>::BK3, PA = cv_smem<BM>::PA3;
	float *As = smem;                  // [2][BK][PA]
	float *Bs = smem + 2 * BK * PA;    // [2][BK][BN]

	const long long oh = (h + 2 * padding - dilation * 2 - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * 2 - 1) / stride + 1;
	const long long cin_g = cin / groups, cout_g = cout / groups;
	const long long P = oh * ow, N = nb * P, hw = h * w;
	const long long K = cin_g * 9;
	const long long p0 = (long long)blockIdx.x * BN, co0 = (long long)blockIdx.y * BM, g = blockIdx.z;
	const int tid = threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;

	// weights: row a_row, channel a_c of each slice (9 consecutive floats)
	const int a_row = tid / CIB, a_c = tid % CIB;
	const bool a_ok = co0 + a_row < cout_g;
	const float *a_src = weight + (g * cout_g + (a_ok ? co0 + a_row : 0)) * K + a_c * 9;
	// im2col: pixel p0 + b_px, channel b_c of each slice (its 9 taps)
	const int b_px = tid % BN, b_c = tid / BN;
	const float *b_src = input;
	unsigned mask = 0; // bit ky * 3 + kx: that tap is inside the image
	{
		const long long p = p0 + b_px;
		if (p < N) {
			long long n, rem, oy, ox;
			cv_divmod(p, P, n, rem);
			cv_divmod(rem, ow, oy, ox);
			const long long iy0 = oy * stride - padding, ix0 = ox * stride - padding;
#pragma unroll
			for (int ky = 0; ky < 3; ky++)
#pragma unroll
				for (int kx = 0; kx < 3; kx++) {
					const long long iy = iy0 + ky * dilation, ix = ix0 + kx * dilation;
					if (iy >= 0 && iy < h && ix >= 0 && ix < w)
						mask |= 1u << (ky * 3 + kx);
				}
			b_src = input + ((n * cin + g * cin_g + b_c) * h + iy0) * w + ix0; // + tap offsets: in range where mask says
		}
	}
	const long long rstep = dilation * w; // tap offset ky * rstep + kx * dilation

	// Slice (channels ci0 .. ci0 + CIB - 1) into buffer buf: asynchronous 4-byte copies (cp.async)
	// for the elements that exist, plain zero stores for the rest (padding taps, pixels past N,
	// rows past cout_g, channels past cin_g). One commit group per slice.
	auto issue_slice = [&](long long ci0, int buf) {
		float *as = As + (buf * BK + a_c * 9) * PA + a_row;
		const bool aok = a_ok && ci0 + a_c < cin_g;
		const float *ap = a_src + ci0 * 9;
#pragma unroll
		for (int t = 0; t < 9; t++) {
			if (aok)
				__pipeline_memcpy_async(as + t * PA, ap + t, 4);
			else
				as[t * PA] = 0.0f;
		}
		float *bs = Bs + (buf * BK + b_c * 9) * BN + b_px;
		const bool bok = ci0 + b_c < cin_g;
		const float *bp = b_src + ci0 * hw;
#pragma unroll
		for (int t = 0; t < 9; t++) {
			if (bok && ((mask >> t) & 1u))
				__pipeline_memcpy_async(bs + t * BN, bp + (t / 3) * rstep + (t % 3) * dilation, 4);
			else
				bs[t * BN] = 0.0f;
		}
		__pipeline_commit();
	};

	float acc[TM][TN];
#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++)
			acc[i][j] = 0.0f;

	const long long nslices = (cin_g + CIB - 1) / CIB;
	issue_slice(0, 0);
	for (long long s = 0; s < nslices; s++) {
		const int cur = (int)(s & 1);
		__pipeline_wait_prior(0); // this thread's copies of slice s have landed
		__syncthreads();          // everyone's slice s is visible, and everyone is done with slice s - 1
		if (s + 1 < nslices)      // its buffer (cur ^ 1) is free: fetch slice s + 1 while computing s
			issue_slice((s + 1) * CIB, cur ^ 1);
		cv_mma<TM, TN, BK, PA>(As + cur * BK * PA, Bs + cur * BK * BN, tx, ty, acc);
	}
	cv_store<TM, TN>(acc, bias, y, p0, co0, g, N, P, cout, cout_g, has_bias, tx, ty, bn);
}

template <int T>
static __device__ __forceinline__ void conv_tile(const float *__restrict__ input, const float *__restrict__ weight,
						 const float *__restrict__ bias, float *__restrict__ y, long long nb,
						 long long cin, long long h, long long w, long long cout, long long kh,
						 long long kw, long long stride, long long padding, long long dilation,
						 long long groups, int has_bias, float *smem, const BnArgs &bn)
{
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	// uniform over the block (never true with the launch lines' grids)
	if ((long long)blockIdx.x * 16 * T >= nb * oh * ow || (long long)blockIdx.y * 16 * T >= cout / groups)
		return;
	if (kh == 3 && kw == 3)
		conv_3x3<T, T>(input, weight, bias, y, nb, cin, h, w, cout, stride, padding, dilation, groups, has_bias,
			       smem, bn);
	else
		conv_any<T, T>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups,
			       has_bias, smem, bn);
}

#define BN_CONV_PARAMS                                                                                   \
	const float *__restrict__ input, const float *__restrict__ weight, const float *__restrict__ bias,        \
		const float *__restrict__ running_mean, const float *__restrict__ running_var,                    \
		const float *__restrict__ bn_weight, const float *__restrict__ bn_bias, float *__restrict__ y,    \
		long long nb, long long cin, long long h, long long w, long long cout, long long kh, long long kw, \
		long long stride, long long padding, long long dilation, long long groups, int has_bias,          \
		int training, float eps

extern "C" __global__ void __launch_bounds__(256, 2) conv_bn_relu_t128(BN_CONV_PARAMS)
{
	__shared__ __align__(16) float smem[cv_smem<128>::FLOATS];
	const BnArgs bn = {running_mean, running_var, bn_weight, bn_bias, eps, training == 0};
	conv_tile<8>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias,
		     smem, bn);
}

extern "C" __global__ void __launch_bounds__(256) conv_bn_relu_t64(BN_CONV_PARAMS)
{
	__shared__ __align__(16) float smem[cv_smem<64>::FLOATS];
	const BnArgs bn = {running_mean, running_var, bn_weight, bn_bias, eps, training == 0};
	conv_tile<4>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias,
		     smem, bn);
}

// Training only (the launch lines give these two kernels an empty grid in eval). bn_stats is the
// reference's, unchanged (same f64 two-pass sums, thread order and reduction tree), reading the raw
// conv that the kernels above left in y; bn_apply_relu is the reference's bn_apply and relu in one
// pass, in place.
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
