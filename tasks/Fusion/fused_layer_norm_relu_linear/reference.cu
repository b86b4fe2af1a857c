// Fusion/fused_layer_norm_relu_linear: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 17/17 outputs pass (max err 2.9e-06); tests/gpu/check_task.sh
// at every case and perf row: this kernel passes, the former reference and every example give
// their announced verdicts. Over the perf rows, one call each (--warmup 0 --rep 0): 30.5 ms
// against 76.0 ms for the former reference (pass_former_reference.cu). What the header says below about
// not having run on a GPU predates that run.
//
// Faster version: an f32 SIMT GEMM (f32 FMA chunks of 128 k, summed in f64) fed by a 4-stage
// cp.async pipeline, split over k when there are too few feature tiles; then two light passes over
// the [m, n] result (split sum + bias + relu + layer-norm moments, then the normalised rows).
//
// What the reference does, and why it is slow at the perf sizes: its product converts both inputs to
// f64 in shared memory and accumulates with f64 FMA (half the f32 rate on H200) in 32 x 128 tiles of
// 4 x 4 outputs per thread, one shared buffer, two __syncthreads per 16-wide k-slice and no prefetch:
// at the largest perf row (m = 32, k = 131072, n = 65536: a 34 GB weight, 275 G FMA) it is bound by
// f64 issue and shared-memory traffic, far from both the f32 FMA peak (~8 ms of FMAs for 32 rows at
// 66 TFLOP/s) and the weight stream (34 GB / 4.2 TB/s = 8.2 ms). For the smaller rows its grid
// (cdiv(n, 128) blocks) leaves most SMs idle: n = 128 .. 8192 gives 1 .. 64 blocks.
//
// What this version does instead:
//  - lin_partial: a 256-thread block computes a 32-row x 256-feature tile over a slice of k
//    (blockIdx.z = split). Thread (warp w, lane = rg + 4 fl) owns rows rg + 4 j (j < 8) and features
//    8 w + fl + 64 i (i < 4): 32 outputs; per 4 k it reads 8 + 4 float4 from shared memory for 128
//    FMAs, conflict-free (k-contiguous rows of stride 36 floats; the 4 distinct rows / 8 distinct
//    features a warp reads at once fall in distinct bank quads). Tiles of 32 k of the input and the
//    weight stream through a 4-stage cp.async pipeline (162 KB of dynamic shared memory, 1 block per
//    SM, 3 tiles = 120 KB in flight per SM) with 16-byte copies when k % 4 == 0 (every perf row,
//    zero-filled past the ends), guarded scalar loads otherwise.
//    Split count S = max(1, min(k / 128, 264 / (feature tiles * row tiles))): 256 blocks (~2 per
//    SM on 132 SMs) whenever k allows; S = 1 at the largest row. Each split writes its f64
//    partial sums to the scratch lin_part [S, m, n].
//  - lin_relu_stats, then ln_rows_apply, on a grid of (row segments of 2048 features) x rows, 8
//    features per thread (32 x 32 = 1024 blocks at the largest row, so the L2-resident partials are
//    read with many loads in flight): the first sums the S partials and the bias of each feature in
//    f64, rounds once (as the reference), applies relu (NaN kept), stores the row in the scratch
//    `relu` and writes the segment's shifted f64 moments S1 = sum (r - r0), S2 = sum (r - r0)^2
//    (r0 = the row's first value, as the reference's ln_stats) to ln_part; the second adds up the
//    row's segments in a fixed order (deterministic), applies the reference's mean / invstd formulas
//    and writes (r - mean) * invstd.
//
// Why it stays within tolerance: the reference's linear is the exactly rounded dot product and the
// layer norm divides by the row spread (~0.58 sqrt(k) for randn inputs). A plain f32 FMA chain over
// k = 131072 has an error of ~3e-3 (~1.5e-5 of the spread): a CPU model of this task (randn, relu,
// layer norm, k = 131072) gives elementwise scores |c - r| / (atol + rtol |r|) of rms 0.37 and max
// 2.2 over 1024 outputs: it FAILS (so would cuBLAS's f32 GEMM). Here each thread sums 128
// consecutive k in an f32 register chunk (error ~sqrt(128 * k) instead of k) and adds the chunk to
// an f64 total; splits and the bias are summed in f64 and rounded once. The same CPU model with
// 128-k chunks gives rms 0.016, max 0.084 over 2048 outputs at k = 131072 (rms 0.017, max 0.11
// over 4096 at k = 65536): extrapolated max over the 2M outputs of a perf row ~0.2. The normalised
// error does not grow with k (chunk error ~sqrt(128 k), row spread ~sqrt(k)). Special values
// propagate as in the f64 sum (NaN / inf products reach the chunk and the total unchanged; no
// finite overflow in the data).
// A CPU emulation of both programs (every case of task.ini, plus k = 512 / 640 / 999 / 1000 /
// 1024, n up to 5000, forced split counts 2 .. 40 including empty splits) passes everywhere, the
// worst element at 0.18 of the tolerance (k = 256: one 128-k chunk per split, as at any k).
//
// Expected speed at the largest perf row (k = 131072, n = 65536): 256 blocks of 32 x 256 x 131072
// FMAs (1.07 G each) on 132 SMs, 1 block per SM: 2 rounds; at ~75-80% of the 128 FMA/clk/SM peak
// (~1.8 GHz) a block takes ~5.8 ms, so ~11.5-12 ms in all, with the weight streamed at ~3 TB/s
// (the 4.2 TB/s copy bandwidth alone would allow 8.2 ms: both limits are close, so expect 11-14 ms
// depending on how well the two overlap); the chunk -> f64 flush adds ~3% (one cvt + DADD per
// output per 128 k); the two row passes (16 MB of partials, 8 MB in, 8 MB out) take ~10 us.
// Against the reference's f64 GEMM (~45 ms there, most of its 64.7 ms sum) that is ~3.5-4x; PyTorch
// takes 21.7 ms at that row. The smaller rows gain from the split-k grid (e.g. k = 8192: 256 blocks
// instead of the reference's 32), so the perf sum should drop from 64.7 ms to ~16-18 ms.
//
// @kbx scratch lin_part f64 [max(1, min(k / 128, 264 / (max(1, cdiv(n, 256)) * max(1, cdiv(m, 32))))) * m * n]
// @kbx scratch relu f32 [m, n]
// @kbx scratch ln_part f64 [m * cdiv(n, 2048) * 2]
// @kbx scratch layer_norm_mean f32 [m]
// @kbx scratch layer_norm_invstd f32 [m]
// @kbx launch lin_partial<<<dim3(cdiv(n, 256), cdiv(m, 32), max(1, min(k / 128, 264 / (max(1, cdiv(n, 256)) * max(1, cdiv(m, 32)))))), 256, 165888>>>(input, weight, lin_part, m, k, n)
// @kbx launch lin_relu_stats<<<dim3(cdiv(n, 2048), m), 256>>>(lin_part, bias, relu, ln_part, m, n, i64(max(1, min(k / 128, 264 / (max(1, cdiv(n, 256)) * max(1, cdiv(m, 32)))))), has_bias)
// @kbx launch ln_rows_apply<<<dim3(cdiv(n, 2048), m), 256>>>(relu, ln_part, layer_norm_mean, layer_norm_invstd, y, m, n, eps)

#include <cuda_pipeline_primitives.h>

#define TR 32      // rows per tile
#define TF 256     // features per tile
#define TK 32      // k per pipeline stage
#define LDS 36     // shared row stride in floats (TK + 4: conflict-free float4 reads)
#define STAGES 4
#define FLUSH 4    // stages per f32 chunk (128 k)
#define STAGE_FLOATS ((TF + TR) * LDS) // 10368 floats = 41472 bytes; x 4 stages = 165888 bytes

// 16-byte global -> shared copy (cp.async through cuda_pipeline_primitives.h), or zeros.
static __device__ __forceinline__ void copy16(float *dst, const float *src, bool valid)
{
	if (valid)
		__pipeline_memcpy_async(dst, src, 16);
	else
		*(float4 *)dst = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// part[z, row, f] = sum over this split's k of x[row, k] * w[f, k] (f32 chunks of 128 k, f64 total).
extern "C" __global__ void __launch_bounds__(256, 1)
lin_partial(const float *__restrict__ x, const float *__restrict__ w, double *__restrict__ part, long long m,
	    long long k, long long n)
{
	extern __shared__ __align__(16) float lin_smem[];
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const long long f0 = (long long)blockIdx.x * TF, r0 = (long long)blockIdx.y * TR;
	const long long z = blockIdx.z, S = gridDim.z;
	const long long kchunk = ((k + S - 1) / S + TK - 1) / TK * TK;
	const long long ks = z * kchunk, ke = min(k, ks + kchunk);
	const long long T = ke > ks ? (ke - ks + TK - 1) / TK : 0;
	const bool vec = (k % 4) == 0;

	// Loader mapping: weight chunk c = tid + 256 l (l < 8) is feature c / 8, k-quad c % 8; input
	// chunk tid is row tid / 8, k-quad tid % 8. A warp reads 4 (weight) rows x 128 contiguous bytes.
	auto load_tile = [&](long long t, int stage) {
		float *ws = lin_smem + stage * STAGE_FLOATS;
		float *xs = ws + TF * LDS;
		const long long kb = ks + t * TK;
#pragma unroll
		for (int l = 0; l < 8; l++) {
			const int c = tid + 256 * l, f = c >> 3, q = c & 7;
			const long long gf = f0 + f, gk = kb + 4 * q;
			float *dst = ws + f * LDS + 4 * q;
			if (vec) {
				const bool ok = gf < n && gk < ke;
				copy16(dst, w + gf * k + gk, ok);
			} else {
				float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
				if (gf < n) {
					const float *p = w + gf * k;
					if (gk < ke) v.x = p[gk];
					if (gk + 1 < ke) v.y = p[gk + 1];
					if (gk + 2 < ke) v.z = p[gk + 2];
					if (gk + 3 < ke) v.w = p[gk + 3];
				}
				*(float4 *)dst = v;
			}
		}
		{
			const int r = tid >> 3, q = tid & 7;
			const long long gr = r0 + r, gk = kb + 4 * q;
			float *dst = xs + r * LDS + 4 * q;
			if (vec) {
				const bool ok = gr < m && gk < ke;
				copy16(dst, x + gr * k + gk, ok);
			} else {
				float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
				if (gr < m) {
					const float *p = x + gr * k;
					if (gk < ke) v.x = p[gk];
					if (gk + 1 < ke) v.y = p[gk + 1];
					if (gk + 2 < ke) v.z = p[gk + 2];
					if (gk + 3 < ke) v.w = p[gk + 3];
				}
				*(float4 *)dst = v;
			}
		}
	};

	// Compute mapping: rows rg + 4 j, features fg + 64 i.
	const int rg = lane & 3, fg = warp * 8 + (lane >> 2);
	float acc[8][4];
	double tot[8][4];
#pragma unroll
	for (int j = 0; j < 8; j++)
#pragma unroll
		for (int i = 0; i < 4; i++) {
			acc[j][i] = 0.0f;
			tot[j][i] = 0.0;
		}

#pragma unroll
	for (int s = 0; s < STAGES - 1; s++) {
		if (s < T)
			load_tile(s, s);
		__pipeline_commit();
	}
	for (long long t = 0; t < T; t++) {
		__pipeline_wait_prior(STAGES - 2); // this thread's copies of tile t have landed
		__syncthreads();             // everyone's have; everyone is done with tile t - 1
		{
			const long long tn = t + STAGES - 1;
			if (tn < T)
				load_tile(tn, (int)(tn % STAGES));
			__pipeline_commit();
		}
		const float *ws = lin_smem + (int)(t % STAGES) * STAGE_FLOATS;
		const float *xs = ws + TF * LDS;
#pragma unroll
		for (int k4 = 0; k4 < TK / 4; k4++) {
			float4 wv[4];
#pragma unroll
			for (int i = 0; i < 4; i++)
				wv[i] = *(const float4 *)(ws + (fg + 64 * i) * LDS + 4 * k4);
#pragma unroll
			for (int j = 0; j < 8; j++) {
				const float4 xv = *(const float4 *)(xs + (rg + 4 * j) * LDS + 4 * k4);
#pragma unroll
				for (int i = 0; i < 4; i++) {
					float a = acc[j][i];
					a = fmaf(xv.x, wv[i].x, a);
					a = fmaf(xv.y, wv[i].y, a);
					a = fmaf(xv.z, wv[i].z, a);
					a = fmaf(xv.w, wv[i].w, a);
					acc[j][i] = a;
				}
			}
		}
		if ((t % FLUSH) == FLUSH - 1 || t + 1 == T) {
#pragma unroll
			for (int j = 0; j < 8; j++)
#pragma unroll
				for (int i = 0; i < 4; i++) {
					tot[j][i] += (double)acc[j][i];
					acc[j][i] = 0.0f;
				}
		}
	}
	__pipeline_wait_prior(0);

#pragma unroll
	for (int j = 0; j < 8; j++) {
		const long long gr = r0 + rg + 4 * j;
		if (gr >= m)
			continue;
		double *prow = part + (z * m + gr) * n;
#pragma unroll
		for (int i = 0; i < 4; i++) {
			const long long gf = f0 + fg + 64 * i;
			if (gf < n)
				prow[gf] = tot[j][i];
		}
	}
}

// Sum over the block (blockDim.x == 256); every thread gets the result.
static __device__ double block_sum256(double v, double *sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	double r = 0.0;
	for (int i = 0; i < 8; i++)
		r += sh[i];
	__syncthreads();
	return r;
}

#define SEG 2048 // features per row segment: 256 threads x 8

// relu(linear) of one element: the S split partials and the bias summed in f64, rounded once.
static __device__ __forceinline__ float relu_of(double v, const float *__restrict__ bias, long long j, int has_bias)
{
	const float f = (float)(v + (has_bias ? (double)bias[j] : 0.0));
	return (f != f || f > 0.0f) ? f : 0.0f;
}

// Block (segment g, row): relu of the segment's features into `relu`, and the segment's shifted
// moments S1 = sum (r - r0), S2 = sum (r - r0)^2 (r0 = the row's first value) into ln_part.
extern "C" __global__ void __launch_bounds__(256)
lin_relu_stats(const double *__restrict__ part, const float *__restrict__ bias, float *__restrict__ relu,
	       double *__restrict__ ln_part, long long m, long long n, long long S, int has_bias)
{
	__shared__ double sh[8];
	const long long row = blockIdx.y, g = blockIdx.x, nseg = gridDim.x;
	if (row >= m)
		return;
	double v0 = 0.0;
	for (long long s = 0; s < S; s++)
		v0 += part[(s * m + row) * n];
	const double r0 = (double)relu_of(v0, bias, 0, has_bias);
	double v[8];
#pragma unroll
	for (int u = 0; u < 8; u++)
		v[u] = 0.0;
	const long long jb = g * SEG + threadIdx.x;
	for (long long s = 0; s < S; s++) { // 8 independent loads per split
		const double *ps = part + (s * m + row) * n;
#pragma unroll
		for (int u = 0; u < 8; u++)
			if (jb + 256 * u < n)
				v[u] += ps[jb + 256 * u];
	}
	double s1 = 0.0, s2 = 0.0;
#pragma unroll
	for (int u = 0; u < 8; u++) {
		const long long j = jb + 256 * u;
		if (j < n) {
			const float r = relu_of(v[u], bias, j, has_bias);
			relu[row * n + j] = r;
			const double d = (double)r - r0;
			s1 += d;
			s2 = fma(d, d, s2);
		}
	}
	s1 = block_sum256(s1, sh);
	s2 = block_sum256(s2, sh);
	if (threadIdx.x == 0) {
		ln_part[2 * (row * nseg + g)] = s1;
		ln_part[2 * (row * nseg + g) + 1] = s2;
	}
}

// Block (segment g, row): the row's mean and invstd from its segments' moments (the reference's
// formulas; every thread sums them in the same order), then y = (relu - mean) * invstd.
extern "C" __global__ void __launch_bounds__(256)
ln_rows_apply(const float *__restrict__ relu, const double *__restrict__ ln_part, float *__restrict__ mean_out,
	      float *__restrict__ invstd_out, float *__restrict__ y, long long m, long long n, float eps)
{
	const long long row = blockIdx.y, g = blockIdx.x, nseg = gridDim.x;
	if (row >= m)
		return;
	const float *rr = relu + row * n;
	double s1 = 0.0, s2 = 0.0;
	for (long long h = 0; h < nseg; h++) {
		s1 += ln_part[2 * (row * nseg + h)];
		s2 += ln_part[2 * (row * nseg + h) + 1];
	}
	const double r0 = (double)rr[0];
	double m2 = s2 - s1 * (s1 / (double)n);
	if (m2 < 0.0) // rounding only; keeps NaN
		m2 = 0.0;
	const float mean = (float)(r0 + s1 / (double)n);
	const float invstd = (float)(1.0 / sqrt(m2 / (double)n + (double)eps));
	if (g == 0 && threadIdx.x == 0) {
		mean_out[row] = mean;
		invstd_out[row] = invstd;
	}
	const long long jb = g * SEG + threadIdx.x;
#pragma unroll
	for (int u = 0; u < 8; u++) {
		const long long j = jb + 256 * u;
		if (j < n)
			y[row * n + j] = __fmul_rn(__fsub_rn(rr[j], mean), invstd);
	}
}
