// @kbx expect pass
// Faster version: a pipelined f32 SIMT batched GEMM with a two-level f32 accumulator, then one fused
// row pass (rms statistics, normalisation, GELU, dropout).
//
// What the reference does, and why it is slow at the perf sizes: its product accumulates in f64
// (fma on doubles) in 64 x 64 tiles, 4 x 4 outputs per thread, one shared buffer with two
// __syncthreads per 16-wide k-slice and no prefetch. f64 FMA runs at half the f32 rate on H200 and
// the small register block makes it shared-memory bound as well: ~11 TFLOP/s, 416 ms on the perf
// sum, ~80 ms at N = 2432 (2 * 32 * 2432^3 = 920 GFLOP). The rms_norm / GELU / dropout stages then
// make four more passes over the [b, n, p] result (~0.8 GB at N = 2432), minor next to the product.
//
// What this version does instead:
//  - bmm_f32: 128 x 128 tiles per 256-thread block (blockIdx.z = batch), 8 x 8 outputs per thread as
//    two 4-wide strips 64 apart in each dimension (float4 shared loads, 4 per 64 FMAs, conflict-free:
//    input1 is stored transposed, k-major, row stride 132), k in slices of 8 through double-buffered
//    shared memory with the next slice prefetched into registers (one __syncthreads per slice).
//    Global tiles use float4 loads when m (input1) / p (input2) is a multiple of 4 (every perf row),
//    guarded scalar loads otherwise; out-of-range elements load as 0, so any b, n, m, p works
//    (m = 0 gives a zero product). Result into the scratch `bmm` (the reference's stage name).
//  - rms_gelu_dropout: one 256-thread block per row: the sum of squares of the f32 product in f64
//    (as the reference), rstd = 1 / sqrt(ss / p + eps) in f64 rounded to f32 (also kept in the
//    reference's scratch `rmsnorm_rstd`), then, per element, __fmul_rn(z, rstd), the reference's GELU
//    formulas and its dropout (kbx_uniform(seed, e) >= p with e the flat index r * p + j, x * mask *
//    scale with the same f32 keep / scale), written once to y. The second read of the row hits
//    L1/L2 (a row is at most ~10 KB).
//
// Why it stays within tolerance (rtol = atol = 1e-5 after rms_norm): the reference's product is the
// correctly rounded f64 sum; an f32 product differs by the summation error. A plain sequential f32
// chain over m = 2432 terms has an error of ~1.2e-6 of the row RMS: a CPU model of this task's
// pipeline (randn inputs, GELU, scale 1/0.9) puts its elementwise score |c - r| / (atol + rtol |r|)
// at rms 0.035 and max 0.49 over 2.4e6 elements (the counts fall ~30x per 0.1 of score), so
// ~0.6-0.65 over the 1.9e8 elements of the largest perf row: it passes, but without much margin. This kernel therefore accumulates in two levels: every
// thread sums 32 consecutive k (four slices) into a fresh f32 chunk register, and adds the chunk to
// an f32 running total; the error then grows like sqrt(32 * m) + m / sqrt(32) instead of m. The same
// CPU model gives rms 0.008 and max 0.06 (about 4x less error; extrapolated max over the row ~0.15).
// Inputs with NaN / inf propagate exactly as in an f64 sum (the chunks are plain IEEE sums; no
// overflow in the test data). The statistics are computed in f64 from the f32 product like the
// reference; GELU and dropout are the reference's expressions, the mask stream is identical.
// A CPU emulation of both programs (every case of task.ini, plus odd shapes 2 x 131 x 67 x 135 and
// 1 x 200 x 129 x 260, and the perf_defaults case scaled by 0.01 and -3) passes everywhere, the
// worst element at 0.17 of the tolerance (p = 0.99, where the scale is 100), 0.04 at 256^3.
//
// Expected speed at the largest perf row (N = 2432, 920 GFLOP): f32 FMA peak on H200 ~66 TFLOP/s;
// this kernel shape (1 block of 8 warps per SM at 205 registers, 64 independent FMAs per k-step,
// double-buffered operands) should run at ~55-65% of peak, ~35-42 TFLOP/s, i.e. ~22-26 ms, plus the
// row pass (~0.76 GB read twice + written once, ~0.5 ms) against the reference's ~80 ms: ~3-3.5x
// there and on the perf sum (416 ms -> ~125-140 ms). PyTorch (cuBLAS SGEMM, 20.7 ms at N = 2432)
// remains ~1.2x faster; closing that needs tensor cores (3xTF32), which this does not attempt.
//
// @kbx scratch bmm f32 [b, n, p]
// @kbx scratch rmsnorm_rstd f32 [b * n]
// @kbx launch bmm_f32<<<dim3(cdiv(p, 128), cdiv(n, 128), b), 256>>>(input1, input2, bmm, b, n, m, p)
// @kbx launch rms_gelu_dropout<<<min(b * n, 1048576), 256>>>(bmm, rmsnorm_rstd, y, i64(b * n), p, dropout_p, eps, training, approximate, seed)

#include <kbx/rng.h>

#define BM 128
#define BN 128
#define BK 8
#define FLUSH 4 // k-slices per f32 chunk (32 k)

// c[z] = a[z] @ bb[z]: a [nb, n, m], bb [nb, m, p], c [nb, n, p], all contiguous. Thread (ty, tx)
// owns rows ty * 4 + (i % 4) + 64 * (i / 4) and columns tx * 4 + (j % 4) + 64 * (j / 4), i, j < 8.
extern "C" __global__ void __launch_bounds__(256, 1)
bmm_f32(const float *__restrict__ a, const float *__restrict__ bb, float *__restrict__ c, long long nb, long long n,
	long long m, long long p)
{
	__shared__ __align__(16) float As[2][BK][BM + 4]; // As[buf][k][row]
	__shared__ __align__(16) float Bs[2][BK][BN];     // Bs[buf][k][col]
	const long long z = blockIdx.z;
	if (z >= nb)
		return;
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
	const float *A = a + z * n * m;
	const float *B = bb + z * m * p;
	float *C = c + z * n * p;
	const bool avec = (m % 4) == 0, bvec = (p % 4) == 0;
	const long long T = (m + BK - 1) / BK;
	// This thread's float4 chunk of each tile: A (row ar, k 4 aq..4 aq + 3), B (k bk, cols 4 bq..).
	const int ar = tid / 2, aq = tid % 2, bk = tid / 32, bq = tid % 32;
	float4 ra, rb;

	auto load = [&](long long k0) {
		float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		long long gr = row0 + ar, gk = k0 + 4 * aq;
		if (gr < n) {
			const float *q = A + gr * m + gk;
			if (avec) {
				if (gk < m)
					v = __ldg((const float4 *)q);
			} else {
				if (gk < m) v.x = __ldg(q);
				if (gk + 1 < m) v.y = __ldg(q + 1);
				if (gk + 2 < m) v.z = __ldg(q + 2);
				if (gk + 3 < m) v.w = __ldg(q + 3);
			}
		}
		ra = v;
		v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		gk = k0 + bk;
		const long long gc = col0 + 4 * bq;
		if (gk < m) {
			const float *q = B + gk * p + gc;
			if (bvec) {
				if (gc < p)
					v = __ldg((const float4 *)q);
			} else {
				if (gc < p) v.x = __ldg(q);
				if (gc + 1 < p) v.y = __ldg(q + 1);
				if (gc + 2 < p) v.z = __ldg(q + 2);
				if (gc + 3 < p) v.w = __ldg(q + 3);
			}
		}
		rb = v;
	};
	auto store = [&](int buf) {
		As[buf][4 * aq + 0][ar] = ra.x;
		As[buf][4 * aq + 1][ar] = ra.y;
		As[buf][4 * aq + 2][ar] = ra.z;
		As[buf][4 * aq + 3][ar] = ra.w;
		*(float4 *)&Bs[buf][bk][4 * bq] = rb;
	};

	float acc[8][8], tot[8][8];
#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 8; j++) {
			acc[i][j] = 0.0f;
			tot[i][j] = 0.0f;
		}

	if (T > 0) {
		load(0);
		store(0);
	}
	__syncthreads();
	for (long long t = 0; t < T; t++) {
		const int buf = (int)(t & 1);
		if (t + 1 < T)
			load((t + 1) * BK);
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float av[8], bv[8];
			const float4 a0 = *(const float4 *)&As[buf][kk][ty * 4];
			const float4 a1 = *(const float4 *)&As[buf][kk][ty * 4 + 64];
			const float4 b0 = *(const float4 *)&Bs[buf][kk][tx * 4];
			const float4 b1 = *(const float4 *)&Bs[buf][kk][tx * 4 + 64];
			av[0] = a0.x; av[1] = a0.y; av[2] = a0.z; av[3] = a0.w;
			av[4] = a1.x; av[5] = a1.y; av[6] = a1.z; av[7] = a1.w;
			bv[0] = b0.x; bv[1] = b0.y; bv[2] = b0.z; bv[3] = b0.w;
			bv[4] = b1.x; bv[5] = b1.y; bv[6] = b1.z; bv[7] = b1.w;
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		if ((t % FLUSH) == FLUSH - 1 || t + 1 == T) {
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++) {
					tot[i][j] += acc[i][j];
					acc[i][j] = 0.0f;
				}
		}
		if (t + 1 < T)
			store(buf ^ 1);
		__syncthreads();
	}

#pragma unroll
	for (int i = 0; i < 8; i++) {
		const long long gr = row0 + ty * 4 + (i % 4) + 64 * (i / 4);
		if (gr >= n)
			continue;
		float *crow = C + gr * p;
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const long long gc = col0 + tx * 4 + 64 * h;
			if (bvec && gc + 3 < p) {
				*(float4 *)(crow + gc) = make_float4(tot[i][4 * h], tot[i][4 * h + 1], tot[i][4 * h + 2], tot[i][4 * h + 3]);
			} else {
#pragma unroll
				for (int e = 0; e < 4; e++)
					if (gc + e < p)
						crow[gc + e] = tot[i][4 * h + e];
			}
		}
	}
}

// Sum over the block (blockDim.x == 256); every thread gets the result.
static __device__ double block_sum(double v)
{
	__shared__ double sh[8];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int w = 0; w < 8; w++)
		r += sh[w];
	__syncthreads();
	return r;
}

// F.gelu on CUDA, in f32 (the reference's formulas).
static __device__ __forceinline__ float gelu_one(float x, int approximate)
{
	if (approximate) {
		const float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
		float x_cube = x * x * x;
		float inner = kBeta * (x + kKappa * x_cube);
		return 0.5f * x * (1.0f + tanhf(inner));
	}
	const float kAlpha = 0.7071067811865476f;
	return x * 0.5f * (1.0f + erff(x * kAlpha));
}

// y[r, :] = dropout(gelu(z[r, :] * rstd[r])): one block per row (grid-stride over rows).
extern "C" __global__ void __launch_bounds__(256)
rms_gelu_dropout(const float *__restrict__ z, float *__restrict__ rstd_out, float *__restrict__ y, long long rows,
		 long long p, float dp, float eps, int training, int approximate, long long seed)
{
	const bool active = training && dp > 0.0f;
	const float keep = (float)(1.0 - (double)dp);
	const float scale = dp < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
		const float *zr = z + r * p;
		double ss = 0.0;
		for (long long j = threadIdx.x; j < p; j += 256) {
			double v = (double)zr[j];
			ss += v * v;
		}
		ss = block_sum(ss);
		const float rs = (float)(1.0 / sqrt(ss / (double)p + (double)eps));
		if (threadIdx.x == 0)
			rstd_out[r] = rs;
		for (long long j = threadIdx.x; j < p; j += 256) {
			const long long e = r * p + j;
			float v = gelu_one(__fmul_rn(zr[j], rs), approximate);
			if (active) {
				float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)e) >= dp ? 1.0f : 0.0f;
				v = __fmul_rn(__fmul_rn(v, mask), scale);
			}
			y[e] = v;
		}
	}
}
