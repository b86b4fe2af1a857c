// @kbx expect pass
// Fast version: one cooperative kernel instead of the reference's four launches.
//
// Why the reference is slow at the perf sizes (n = m = 4096: 64 MiB of matrix, 67.2 MB counted):
// - four dependent launches (mv_rows, lsm_stats, lsm_apply, dropout_fwd): each adds a launch gap and
//   a ramp-up/drain; the last three move only n floats but each costs microseconds;
// - lsm_stats runs in ONE block of 1024 threads (two serial passes over n with f64 exp);
// - mv_rows reads the matrix with 4-byte scalar loads and a dependent f64 FMA chain per lane
//   (f32 -> f64 conversions on every element), little memory in flight per warp;
// - two extra round trips through memory (mv and log_softmax buffers).
// Measured: 1477 GB/s (35% of the 4253 GB/s copy bandwidth) at n = 4096.
//
// What this kernel does (grid = min(4 * sms, cdiv(n, 8)) blocks of 256, all resident: cooperative):
// 1. a warp per row (rows blockIdx.x * 8 + warp + k * 8 * gridDim.x): 16-byte loads of the row
//    (__ldcs, evict-first, four float4 in flight per lane, 64 B) against vec read through
//    L1 (__ldg, 16 KB, shared by every warp of the SM). Each lane keeps four EXACT f32 running
//    sums (s, c) (TwoProduct by an FMA, TwoSum, the small terms in c: ~10 FP32 ops per element,
//    no f64 conversions), the warp adds the s and c in f64 (xor tree) and rounds once, so z is
//    the correctly rounded exact dot product like the reference's f64 sum (see Tolerance).
//    Rows whose start is not 16-byte aligned (m % 4 != 0) or misaligned pointers use a scalar
//    coalesced loop with the same exact accumulation (all small test cases; every perf row has
//    m % 128 == 0). z goes to scratch `mv` (the reference's stage name, for stage diffs).
// 2. the block's statistics of its rows: max (NaN-propagating, f32: z is f32), then
//    sum expf(z - max) in f32, one pair per block to scratch `lsm_part` (float2).
// 3. grid.sync(); every block reads the pairs (4 KB, from L2, once), reduces them the same way:
//    M = max of the maxes, S = sum of sum_b * expf(max_b - M) in f64 (identical in every block),
//    and each warp writes y for its own rows (the row's z still in registers):
//    (float)(((double)z - M) - log(S)) in f64 like the reference, then the reference's dropout
//    arithmetic. Block 0 also writes `log_softmax_stats` = {M, log S}.
// So the matrix is read exactly once, nothing else touches DRAM beyond a few KB, and there is
// one launch plus one grid barrier.
//
// Special values: an exp term of a -inf entry (or of a block whose max is -inf: no rows, or only
// -inf rows) is 0, otherwise expf(z - max). Then a NaN in z makes M NaN (all outputs NaN); +inf
// makes its block's sum exp(inf - inf) = NaN, so S and every output are NaN (reference: the same);
// -inf entries give -inf (dropped: -inf * 0 = NaN, as the reference); all entries -inf give
// S = 0, log S = -inf and (-inf - -inf) = NaN everywhere (reference: exp(NaN) in its sum: NaN).
// n = 1 gives 0; m = 0 gives z = 0 and -log(n).
//
// Tolerance (rtol 1e-5, atol 5e-5): kbx also re-checks every PERF row after timing, and there
// (input and vec uniform(0, 1), m = 4096) z ~ 1024, where one f32 ulp is 1.2e-4 > atol: any plain
// f32 dot product (even the lane-strided one) misses the correctly rounded z now and then, and the
// top log-probabilities (r ~ 0) then fail (a CPU model of a plain four-accumulator f32 sum: 1 of
// 4096 elements at 1.15 x the budget). Hence the exact accumulation: the lane's s + c equal its
// exact partial sum up to ~2^-48 relative, the f64 cross-lane sum adds ~1e-16, and z is the
// correctly rounded value except at near-ties (~1e-9 per element): the reference's z. inf / NaN
// products make the error terms NaN, so then z is the plain sum S (-inf stays -inf as in the
// special_neg_inf case; NaN and inf - inf give NaN as the exact sum does).
// The statistics use f32 expf (a few ulp) of exact or nearly exact differences and f64 sums over
// blocks: log S is off by ~1e-7 absolute, 500 x below atol; the final subtraction is f64 like the
// reference's. A CPU model of this kernel (C: the same accumulation order, block pairs, f32
// exps) against the reference's formula: z bit-identical everywhere, y within 0.008 x the budget
// on every task case's shape and special values (NaN row, -inf entry, +inf, all -inf, m = 0,
// n = 1), and bit-identical on the perf workload n = m = 4096 with torch.rand inputs.
// Dropout: identical mask and arithmetic: keep iff kbx_uniform(seed, i) >= p on the row index i,
// v * mask * scale with scale = (float)(1 / (double)(float)(1 - (double)p)), two __fmul_rn as in
// dropout_fwd.
//
// Expected at n = m = 4096: bytes = (4096 * 4096 + 4096 + 5 * 4096) * 4 = 67.2 MB. The matrix read
// alone at the copy rate is 67.1 MB / 4253 GB/s = 15.8 us (a pure read stream usually runs a bit
// above the copy rate). The exact accumulation is ~10.5 instructions per element: 16.8 M * 10.5 /
// 32 = 5.5 M warp instructions / (132 SMs * 4/clk * 1.98 GHz) = 5.3 us of issue, a third of the
// memory time, hidden by the loads of other warps (64 registers, 4 blocks = 32 warps per SM,
// ~64 KB in flight per SM against ~25 KB that the DRAM latency needs). The grid barrier and the
// epilogue (4 KB of pairs per block from L2, three expf per thread, a few block reductions, 16 KB
// of y) add ~1.5-2 us: ~17.5 us -> 67.2 MB / 17.5 us = ~3840 GB/s (~90%); pessimistically 19 us
// -> 3540 GB/s (83%). Reference: 45.5 us.
//
// @kbx scratch mv f32 [n]
// @kbx scratch log_softmax_stats f64 [2]
// @kbx scratch lsm_part f32 [8192]
// @kbx launch mv_lsm_dropout<<<max(1, min(min(sms * 4, 4096), cdiv(n, 8))), 256>>>(input, vec, y, mv, lsm_part, log_softmax_stats, n, m, p, training, seed) cooperative

#include <cooperative_groups.h>
#include <kbx/rng.h>

namespace cg = cooperative_groups;

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
mv_lsm_dropout(const float *__restrict__ a, const float *__restrict__ v, float *__restrict__ y,
	       float *__restrict__ zs, float2 *__restrict__ part, double *__restrict__ stats,
	       long long n, long long m, float p, int training, long long seed)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ float red_f[8];
	__shared__ double red_d[8];
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

	grid.sync();

	// ---- phase 2: every block reduces all (max, sum) pairs the same way (identical M and S in
	// every block): M = NaN-propagating max of the maxes, S = sum of sum_b * exp(max_b - M) in f64
	// the pairs are read once from L2 (three per thread at most for 4 * 132 blocks; beyond four
	// per thread, which needs more than 256 SMs, they are read again)
	float2 pc[4];
#pragma unroll
	for (int j = 0; j < 4; j++) {
		const unsigned int b = threadIdx.x + 256u * j;
		pc[j] = b < gridDim.x ? __ldcg(part + b) : make_float2(ninf, 0.0f);
	}
	float gmax = nmaxf(nmaxf(pc[0].x, pc[1].x), nmaxf(pc[2].x, pc[3].x));
	for (unsigned int b = threadIdx.x + 1024u; b < gridDim.x; b += 256)
		gmax = nmaxf(gmax, __ldcg(part + b).x);
	for (int off = 16; off > 0; off >>= 1)
		gmax = nmaxf(gmax, __shfl_xor_sync(0xffffffffu, gmax, off));
	__syncthreads(); /* red_f is reused */
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
	for (unsigned int b = threadIdx.x + 1024u; b < gridDim.x; b += 256) {
		const float2 pb = __ldcg(part + b);
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
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		stats[0] = (double)M;
		stats[1] = log(S);
	}

	// ---- log_softmax + dropout for this warp's rows, a lane per row
	const bool active = training && p > 0.0f;
	const float keep = (float)(1.0 - (double)p);
	const float scale = p < 1.0f ? (float)(1.0 / (double)keep) : 0.0f;
	for (long long i = lane; warp + i * nwarps < n; i += 32) {
		const long long row = warp + i * nwarps;
		const float zz = i == 0 ? z_first : __ldcg(zs + row);
		float o = (float)(((double)zz - (double)M) - log(S));
		if (active) {
			const float mask = kbx_uniform((unsigned long long)seed, (unsigned long long)row) >= p ? 1.0f : 0.0f;
			o = __fmul_rn(__fmul_rn(o, mask), scale);
		}
		y[row] = o;
	}
}
