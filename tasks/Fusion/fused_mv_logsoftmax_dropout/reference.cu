// Fusion/fused_mv_logsoftmax_dropout: the reference since 2026-12-04. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Run on an H200 (2026-12-04, bench/h200_steps.sh X, swapped in on a copy of the catalogue):
// tools/crosscheck.py against PyTorch 8/8 outputs pass (max err 7.6e-06; 12 stochastic cases
// left to kbx's own law); tests/gpu/check_task.sh at every case and perf row: this kernel
// passes, the former reference and every example give their announced verdicts. Over the perf
// rows, one call each (--warmup 0 --rep 0): 0.7 ms against 0.9 ms for the former reference
// (pass_former_reference.cu). What the header says below about not having run on a GPU
// predates that run.
//
// Fast version, two launches (the fallback of pass_fast_coop.cu if a cooperative launch or its grid
// barrier misbehaves on the timing machine): the same first phase, then a small second kernel.
//
// Why the reference is slow at the perf sizes (n = m = 4096: 64 MiB of matrix, 67.2 MB counted):
// four dependent launches (each a launch gap plus ramp-up/drain), lsm_stats in ONE block of 1024
// threads (two serial passes over n with f64 exp), mv_rows with 4-byte loads and a dependent f64
// FMA chain (two f32 -> f64 conversions per element), two extra round trips through memory (the
// mv and log_softmax buffers). Measured: 1477 GB/s (35% of the 4253 GB/s copy rate).
//
// What it does:
// - mv_rows_stats (min(4 * sms, cdiv(n, 8)) blocks of 256: one wave): a warp per row, 16-byte
//   streaming loads (four float4 in flight per lane), vec through L1, EXACT f32 accumulation
//   (TwoProduct + TwoSum per element, the s and c of the lanes added in f64, rounded once: the
//   correctly rounded dot product, i.e. the reference's z), z to scratch `mv`; then the block's
//   (max, sum expf(z - max)) pair to scratch `lsm_part`.
// - lsm_dropout (cdiv(n, 256) blocks of 256): every block reduces the pairs (M = NaN-propagating
//   max, S = sum of sum_b * expf(max_b - M) in f64), then y = (float)(((double)z - M) - log S)
//   and the reference's dropout, one row per thread.
// The matrix is read once; the second kernel touches ~20 KB.
//
// Tolerance, special values and dropout: as in pass_fast_coop.cu (same arithmetic, same order):
// z is the reference's z (exact accumulation; a plain f32 dot product would fail kbx's re-check
// of the perf rows after timing, where z ~ 1024 and one f32 ulp = 1.2e-4 > atol), log S within
// ~1e-7; -inf entries give -inf (dropped: NaN), a NaN or +inf makes everything NaN; the mask is
// kbx_uniform(seed, row) >= p with v * mask * scale (two __fmul_rn), as dropout_fwd.
//
// Expected at n = m = 4096 (67.2 MB): the first kernel ~16.5 us (matrix at about the copy rate,
// 5.3 us of FP32 issue hidden), plus one launch gap and the small kernel (~2.5-3.5 us): ~19.5 us
// -> ~3450 GB/s (81%); the cooperative version saves the second launch (~90%). Reference: 45.5 us.
//
// @kbx scratch mv f32 [n]
// @kbx scratch lsm_part f32 [8192]
// @kbx launch mv_rows_stats<<<max(1, min(min(sms * 4, 4096), cdiv(n, 8))), 256>>>(input, vec, mv, lsm_part, n, m)
// @kbx launch lsm_dropout<<<max(1, min(cdiv(n, 256), 65535)), 256>>>(mv, lsm_part, y, n, i32(max(1, min(min(sms * 4, 4096), cdiv(n, 8)))), p, training, seed)

#include <kbx/rng.h>

// max that propagates NaN (the reference's nmax, in f32: z is f32)
static __device__ __forceinline__ float nmaxf(float a, float c)
{
	return (a != a || a > c) ? a : c;
}

// exp(z - mx) for the sums; a -inf entry adds 0 (so a block of only -inf rows has the sum 0 and
// the max -inf, and contributes nothing once the global max is known)
static __device__ __forceinline__ float exp_term(float z, float mx)
{
	return z == -__int_as_float(0x7f800000) ? 0.0f : expf(z - mx);
}

// s + c += a * b with no rounding lost: the product is split exactly (p + e = a * b, an FMA),
// p is added to s by TwoSum (Knuth: t + err = s + p exactly), the small terms err + e go to c.
// The explicit _rn intrinsics keep the compiler from contracting or reassociating any of it.
static __device__ __forceinline__ void acc_exact(float &s, float &c, float a, float b)
{
	const float p = __fmul_rn(a, b);
	const float e = __fmaf_rn(a, b, -p);
	const float t = __fadd_rn(s, p);
	const float bp = __fsub_rn(t, s);
	const float err = __fadd_rn(__fsub_rn(s, __fsub_rn(t, bp)), __fsub_rn(p, bp));
	c = __fadd_rn(c, __fadd_rn(err, e));
	s = t;
}

static __device__ __forceinline__ void acc4(float &s0, float &s1, float &s2, float &s3, float &c0, float &c1,
					    float &c2, float &c3, const float4 x, const float4 w)
{
	acc_exact(s0, c0, x.x, w.x);
	acc_exact(s1, c1, x.y, w.y);
	acc_exact(s2, c2, x.z, w.z);
	acc_exact(s3, c3, x.w, w.w);
}

// the matrix is read once: streaming (evict-first) loads keep vec in L1
static __device__ __forceinline__ float4 ld_stream(const float4 *p)
{
	return __ldcs(p);
}

extern "C" __global__ void __launch_bounds__(256, 4)
mv_rows_stats(const float *__restrict__ a, const float *__restrict__ v, float *__restrict__ zs,
	      float2 *__restrict__ part, long long n, long long m)
{
	__shared__ float red_f[8];
	const float ninf = -__int_as_float(0x7f800000);
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	const long long nwarps = (long long)gridDim.x * 8;
	const long long warp = (long long)blockIdx.x * 8 + w;
	const bool vec4 = (m & 3) == 0 &&
			  ((reinterpret_cast<unsigned long long>(a) | reinterpret_cast<unsigned long long>(v)) & 15) == 0;

	// ---- phase 1: z = A v, a warp per row (rows warp, warp + nwarps, ...); the warp's max
	float wmax = ninf, z_first = 0.0f;
	for (long long row = warp; row < n; row += nwarps) {
		float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f, c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
		if (vec4) {
			const float4 *a4 = reinterpret_cast<const float4 *>(a + row * m);
			const float4 *v4 = reinterpret_cast<const float4 *>(v);
			const long long m4 = m >> 2;
			long long k = lane;
			for (; k + 96 < m4; k += 128) {
				const float4 x0 = ld_stream(a4 + k), x1 = ld_stream(a4 + k + 32);
				const float4 x2 = ld_stream(a4 + k + 64), x3 = ld_stream(a4 + k + 96);
				const float4 w0 = __ldg(v4 + k), w1 = __ldg(v4 + k + 32);
				const float4 w2 = __ldg(v4 + k + 64), w3 = __ldg(v4 + k + 96);
				acc4(s0, s1, s2, s3, c0, c1, c2, c3, x0, w0);
				acc4(s0, s1, s2, s3, c0, c1, c2, c3, x1, w1);
				acc4(s0, s1, s2, s3, c0, c1, c2, c3, x2, w2);
				acc4(s0, s1, s2, s3, c0, c1, c2, c3, x3, w3);
			}
			for (; k < m4; k += 32)
				acc4(s0, s1, s2, s3, c0, c1, c2, c3, ld_stream(a4 + k), __ldg(v4 + k));
		} else {
			const float *ar = a + row * m;
			for (long long k = lane; k < m; k += 32)
				acc_exact(s0, c0, __ldg(ar + k), __ldg(v + k));
		}
		// the lane's exact partial is sum(s) + sum(c); add up in f64 across the warp (xor tree:
		// every lane ends with the same bits), round once to f32
		double S = ((double)s0 + (double)s1) + ((double)s2 + (double)s3);
		double C = ((double)c0 + (double)c1) + ((double)c2 + (double)c3);
		for (int off = 16; off > 0; off >>= 1) {
			S += __shfl_xor_sync(0xffffffffu, S, off);
			C += __shfl_xor_sync(0xffffffffu, C, off);
		}
		// inf / NaN products make the error terms NaN: then the plain sum S carries the answer
		// (-inf stays -inf, +inf, NaN and inf - inf as in the exact sum)
		const float z = isfinite(S) ? (float)(S + C) : (float)S;
		if (lane == 0)
			zs[row] = z;
		if (row == warp)
			z_first = z;
		wmax = nmaxf(wmax, z);
	}
	// the block's (max, sum exp(z - max)) over its rows: the z of a warp's rows other than its first
	// come back from zs (written by lane 0 of the same warp before the barrier, read through L2)
	if (lane == 0)
		red_f[w] = wmax;
	__syncthreads();
	float bmax = red_f[0];
	for (int i = 1; i < 8; i++)
		bmax = nmaxf(bmax, red_f[i]);
	float wsum = 0.0f;
	for (long long i = lane; warp + i * nwarps < n; i += 32)
		wsum += exp_term(i == 0 ? z_first : __ldcg(zs + warp + i * nwarps), bmax);
	for (int off = 16; off > 0; off >>= 1)
		wsum += __shfl_xor_sync(0xffffffffu, wsum, off);
	__syncthreads(); /* red_f is reused */
	if (lane == 0)
		red_f[w] = wsum;
	__syncthreads();
	if (threadIdx.x == 0) {
		float bsum = red_f[0];
		for (int i = 1; i < 8; i++)
			bsum += red_f[i];
		part[blockIdx.x] = make_float2(bmax, bsum);
	}
}

// every block: the global (M, S) from the G pairs, then its rows
extern "C" __global__ void __launch_bounds__(256)
lsm_dropout(const float *__restrict__ zs, const float2 *__restrict__ part, float *__restrict__ y, long long n,
	    int G, float p, int training, long long seed)
{
	__shared__ float red_f[8];
	__shared__ double red_d[8];
	const float ninf = -__int_as_float(0x7f800000);
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	float2 pc[4];
#pragma unroll
	for (int j = 0; j < 4; j++) {
		const int b = threadIdx.x + 256 * j;
		pc[j] = b < G ? part[b] : make_float2(ninf, 0.0f);
	}
	float gmax = nmaxf(nmaxf(pc[0].x, pc[1].x), nmaxf(pc[2].x, pc[3].x));
	for (int b = threadIdx.x + 1024; b < G; b += 256)
		gmax = nmaxf(gmax, part[b].x);
	for (int off = 16; off > 0; off >>= 1)
		gmax = nmaxf(gmax, __shfl_xor_sync(0xffffffffu, gmax, off));
	if (lane == 0)
		red_f[w] = gmax;
	__syncthreads();
	float M = red_f[0];
	for (int i = 1; i < 8; i++)
		M = nmaxf(M, red_f[i]);
	double gsum = 0.0;
#pragma unroll
	for (int j = 0; j < 4; j++)
		gsum += (double)pc[j].y * (double)exp_term(pc[j].x, M);
	for (int b = threadIdx.x + 1024; b < G; b += 256) {
		const float2 pb = part[b];
		gsum += (double)pb.y * (double)exp_term(pb.x, M);
	}
	for (int off = 16; off > 0; off >>= 1)
		gsum += __shfl_xor_sync(0xffffffffu, gsum, off);
	if (lane == 0)
		red_d[w] = gsum;
	__syncthreads();
	double S = red_d[0];
	for (int i = 1; i < 8; i++)
		S += red_d[i];

	const bool active = training && p > 0.0f;
	const float keep = (float)(1.0 - (double)p);
	const float scale = p < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x; row < n; row += stride) {
		float o = (float)(((double)zs[row] - (double)M) - log(S));
		if (active) {
			const float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)row) >= p ? 1.0f : 0.0f;
			o = __fmul_rn(__fmul_rn(o, mask), scale);
		}
		y[row] = o;
	}
}
