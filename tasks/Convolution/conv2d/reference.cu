// Convolution/conv2d: the reference since 2026-12-01. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// A pipelined, register-blocked SIMT implicit GEMM, bit-identical to the former reference.
//
// What the former reference does, and why it is slow at the perf sizes: Y_g = W_g @ im2col(X_g) with a
// 64 x 64 tile per 256-thread block, a 4 x 4 register block per thread whose operands are 8 SCALAR
// shared loads per 16 FMAs (rows ty + 16 i, columns tx + 16 j), k staged 16 at a time through ONE
// shared buffer with two __syncthreads per slice and no prefetch (every slice waits for its global
// loads), and the im2col index math (two 64-bit divisions per element) redone for every element of
// every slice. The perf sum is dominated by its last row (x [128, 1024, 16, 16], w [2048, 1024, 3, 3]:
// M = 2048 channels, N = 128 * 14 * 14 = 25088 pixels, K = 9216, 947 GFLOP = 7/8 of the sum), where
// that loop runs at ~10 TFLOP/s (~93 of the 106 ms).
//
// What this kernel does instead (one template, two tile sizes):
//  - 128 x 128 tiles (8 x 8 outputs per thread, launch bounds 2 blocks of 8 warps per SM) when there
//    are at least `sms` such tiles (perf rows 5-7), else 64 x 64 tiles (4 x 4 per thread: rows 1-4,
//    where 128-tiles would leave most SMs idle). The other launch gets an empty grid, which kbx skips;
//  - the thread's register block is two 4-wide strips 64 apart in each dimension, so every k step
//    reads its operands with float4 shared loads (4 LDS.128 per 64 FFMA), conflict-free;
//  - 3 x 3 kernels (every perf row; any stride, padding, dilation, groups) take k slices of whole
//    input channels: 2 channels = 18 k per slice for 128-tiles (4 = 36 for 64-tiles). Each thread
//    copies the 9 weights of one (row, channel) and the 9 taps of one (pixel, channel) per slice at
//    offsets fixed for the whole loop; which taps fall in the padding is a 9-bit mask computed once
//    per pixel (no index math per element, no division in the loop). The copies are cp.async
//    (4-byte, through cuda_pipeline_primitives.h) into the other half of a double-buffered shared
//    memory (39 KB static), issued before the current slice is multiplied: one __syncthreads per
//    slice, global latency hidden behind 18 k steps. Elements that do not exist (padding taps,
//    pixels past N, rows past cout/groups, channels past cin/groups) are stored as 0 directly.
//    Weight rows are stored k-major with stride BM + BM / 8 (144 or 72: the 2 or 4 channels a warp
//    writes land in distinct banks), im2col rows with stride BN;
//  - other kernel sizes (the 1 x 1 and 3 x 5 cases) take a generic path in the same kernels: k
//    slices of 8 with the (ci, ky, kx) of each k carried from k to k, register-prefetched;
//  - general: groups (grid z), stride, padding, dilation, any nb (nb = 0: empty grids, nothing is
//    launched; the output is empty), cout not a multiple of the tile, 64-bit offsets.
//
// Why it stays within tolerance: it is bit-identical to the former reference, so the tight rtol = atol =
// 1e-5 (which an f32 sum in another order would break at the perf rows: R = 9216 randn products,
// outputs near 0) is never at stake. Every output is the same sequential fmaf chain over
// k = 0, 1, ..., K - 1 (ordered ci, ky, kx) starting from 0.0f, one fmaf(w, x, acc) per k with the
// same w and x (padding taps x = 0, like the former reference), then `v += bias[c]` when has_bias. The
// zero-filled tail past K adds fmaf(0, 0, acc) = acc (the former reference pads K to a multiple of 16, this
// to whole channels or 8: only the sign of an exact zero can differ, which compares equal). No TF32,
// no split-K. Checked off-GPU by running both this file and reference.cu in a CPU emulation of the
// CUDA execution model (one thread per CUDA thread, barriers for __syncthreads): every task case,
// the derived scalings, 150 random configurations (groups, strides, dilations, paddings, kernel
// sizes, both tile sizes) and sampled blocks of every perf row, all bit-identical.
//
// Expected speed at the largest perf row (947 GFLOP; 52 MB in, 205 MB out: ~60 us of traffic, so
// compute bound): H200 SIMT f32 peak ~66 TFLOP/s. Per 18-k slice a thread issues 1152 FFMA, 72
// LDS.128 and ~280 other instructions (18 copies, addresses, the sync, a few spill reloads at the
// 128-register cap): ~77% of issue slots are FFMA, so ~50 TFLOP/s at full issue; 3136 tiles are 12
// waves of 2 blocks per SM. Expect ~40 TFLOP/s: ~24 ms for the row (reference ~93 ms), ~3.9x; the
// perf sum ~28 ms vs 106 ms (~3.8x). PyTorch's 2.85 ms at that row is cuDNN with TF32 tensor cores
// (333 TFLOP/s), which this task does not accept.
//
// @kbx launch conv2d_f32_t128<<<dim3(cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 128) * min(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 128) * cdiv(cout / groups, 128) * groups / sms), cdiv(cout / groups, 128), groups), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)
// @kbx launch conv2d_f32_t64<<<dim3(cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 64) * (1 - min(1, cdiv(nb * ((h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1) * ((w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1), 128) * cdiv(cout / groups, 128) * groups / sms)), cdiv(cout / groups, 64), groups), 256>>>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias)

#include <cuda_pipeline_primitives.h>

#define CV_BK 8 // k slice of the generic (non 3 x 3) path

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

// y[n, g * cout_g + co, oy, ox] = acc (+ bias[c]), exactly the reference's epilogue.
template <int TM, int TN>
static __device__ __forceinline__ void cv_store(const float (&acc)[TM][TN], const float *__restrict__ bias,
						float *__restrict__ y, long long p0, long long co0, long long g,
						long long N, long long P, long long cout, long long cout_g, int has_bias,
						int tx, int ty)
{
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
						long long groups, int has_bias, float *smem)
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
	cv_store<TM, TN>(acc, bias, y, p0, co0, g, N, P, cout, cout_g, has_bias, tx, ty);
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
						float *smem)
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
	cv_store<TM, TN>(acc, bias, y, p0, co0, g, N, P, cout, cout_g, has_bias, tx, ty);
}

template <int T>
static __device__ __forceinline__ void conv_tile(const float *__restrict__ input, const float *__restrict__ weight,
						 const float *__restrict__ bias, float *__restrict__ y, long long nb,
						 long long cin, long long h, long long w, long long cout, long long kh,
						 long long kw, long long stride, long long padding, long long dilation,
						 long long groups, int has_bias, float *smem)
{
	const long long oh = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1;
	const long long ow = (w + 2 * padding - dilation * (kw - 1) - 1) / stride + 1;
	// uniform over the block (never true with the launch lines' grids)
	if ((long long)blockIdx.x * 16 * T >= nb * oh * ow || (long long)blockIdx.y * 16 * T >= cout / groups)
		return;
	if (kh == 3 && kw == 3)
		conv_3x3<T, T>(input, weight, bias, y, nb, cin, h, w, cout, stride, padding, dilation, groups, has_bias,
			       smem);
	else
		conv_any<T, T>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups,
			       has_bias, smem);
}

extern "C" __global__ void __launch_bounds__(256, 2)
conv2d_f32_t128(const float *__restrict__ input, const float *__restrict__ weight, const float *__restrict__ bias,
		float *__restrict__ y, long long nb, long long cin, long long h, long long w, long long cout,
		long long kh, long long kw, long long stride, long long padding, long long dilation, long long groups,
		int has_bias)
{
	__shared__ __align__(16) float smem[cv_smem<128>::FLOATS];
	conv_tile<8>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias,
		     smem);
}

extern "C" __global__ void __launch_bounds__(256)
conv2d_f32_t64(const float *__restrict__ input, const float *__restrict__ weight, const float *__restrict__ bias,
	       float *__restrict__ y, long long nb, long long cin, long long h, long long w, long long cout,
	       long long kh, long long kw, long long stride, long long padding, long long dilation, long long groups,
	       int has_bias)
{
	__shared__ __align__(16) float smem[cv_smem<64>::FLOATS];
	conv_tile<4>(input, weight, bias, y, nb, cin, h, w, cout, kh, kw, stride, padding, dilation, groups, has_bias,
		     smem);
}
