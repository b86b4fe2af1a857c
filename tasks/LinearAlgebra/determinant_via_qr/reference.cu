// LinearAlgebra/determinant_via_qr: the reference since 2026-12-01. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// The determinant det(Q) prod(diag R) from a blocked Householder QR in f64 (LAPACK
// dgeqrf: panels of 32 reflectors in the compact WY form I - V T V^T), one persistent
// cooperative kernel. Q is never formed: det(Q) = (-1)^(number of reflectors with tau != 0).
//
// What the former reference does and why it is slow: an unblocked f64 Householder QR (geqr2), one grid
// barrier per column; at each of the n steps every warp reads and rewrites one trailing column
// of the f64 working copy, so the trailing matrix is streamed through memory once per column:
// 16 n^3 / 3 bytes = 2.9 TB at n = 8192 (the 512 MB matrix is far beyond the 50 MB L2), i.e.
// ~0.7 s at 4.2 TB/s even at full bandwidth (its perf rows sum to 4.3 s).
//
// What this kernel does (the same reflectors: beta = -sign(alpha) |x|, tau = (beta - alpha) /
// beta, v = x / (alpha - beta), tau = 0 when x is zero below the diagonal), per panel of NB = 32:
//   panel: rows split over P blocks (P = 1, shared memory and block barriers only, while the
//     panel has at most RMAX = 352 rows; else 128 or more rows per block). One reduction per
//     column: each block sums x_i a_ic over its rows below the diagonal for all 32 panel columns
//     (|x|^2, v^T a_c, and V^T v_j for T), the owner of row j publishes the row, one grid
//     barrier, every panel block adds the P partials in one fixed order (same bits everywhere),
//     builds the reflector and updates its rows; block 0 builds T (dlarft) and multiplies det
//     by -beta_j (tau_j != 0) or beta_j, in column order, in f64, as the former reference does.
//   trailing update C -= V T^T (V^T C) as three grid-wide phases: W = V^T C (16-row steps over
//     row chunks of 256 columns, partials per chunk added in a fixed order), W2 = T^T W (a thread
//     per column), C -= V W2 (128 x 64 tiles, 8 x 4 outputs per thread, K = 32 from shared
//     memory). det = +-inf beyond the f32 range (the rounding of the f64 product), 1 for n = 0.
//
// Tolerance: f64 throughout like the former reference, rounded to f32 once: the blocked and unblocked
// Householder QR are both backward stable to ~n 1e-16 |A|, so the two f64 determinants agree
// to ~1e-12 relative on the cases (cond(A) <= ~1e4), far inside rtol = atol = 1e-5, and the
// sign of an overflowing determinant is the sign of the same product. The order of the
// multiplications is the former reference's (j = 0 .. n-1), so overflow happens at the same step.
// Why not f32 (half the cost): the perf rows are verified too, and at n = 16 and 32 the randn
// determinant is finite (~1e6, ~1e17) and held to rtol 1e-5, which an f32 QR misses on some
// draws (task.ini: 5.3e-5 at n = 5); from n = 64 on it is +-inf and only its sign matters.
//
// Expected speed at n = 8192 (perf row 10): 4/3 n^3 = 7.3e11 flop of rank-32 updates in f64
// (33 TFLOP/s FMA peak) at ~50% -> ~45 ms; the trailing matrix is streamed 3 times per panel:
// 3 * 8 B * n^3 / (3 * 32) = 137 GB -> ~33 ms at 4.2 TB/s, largely overlapped with the
// arithmetic (two blocks per SM); panels: 8192 columns x ~2-3 us (a grid barrier and a
// partial-sum read) ~ 20 ms. Total ~60-80 ms against the former reference's ~3 s at this row (most
// of its 4.3 s sum): ~40x, and under PyTorch's 129 ms. Small rows are latency-bound: one block
// factors each panel while it has at most 352 rows (~1 us a column), 4 grid barriers a panel.
//
// Bounds: zero padding at every tile edge, a last panel narrower than 32, n = 0 (no panel, det
// = 1), n = 1 (one trivial reflector: det = a). Indexes are long long.
//
// @kbx scratch wk f64 [max(1, n * n)]
// @kbx scratch tall f64 [max(1, cdiv(n, 32) * 32 * 32)]
// @kbx scratch part f64 [2 * (cdiv(n, 128) + 2) * 32 + 64]
// @kbx scratch wpart f64 [max(1, 16 * 32 * n)]
// @kbx scratch w2 f64 [max(1, 32 * n)]
// @kbx launch det_qr_blocked<<<2 * sms, 256, 100864>>>(a, d, wk, tall, part, wpart, w2, n, mode) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

typedef double real;

#define THREADS 256
#define NB 32          // panel width (reflectors per block); equals the warp width
#define RMAX 352       // most panel rows one block holds in shared memory
#define RB 128         // least rows per block when the panel is split over blocks
#define SMAX 16        // most row chunks of the W = V^T C phase
#define BK 16          // rows per step in W = V^T C
#define BNB 256        // columns per tile in W = V^T C
#define BM 128         // rows per tile in C -= V W2
#define BN 64          // columns per tile in C -= V W2
// dynamic shared memory, in reals: panel rows, 8 x NB reduction slots, tot, rowj, T
#define OFF_RED (RMAX * NB)
#define OFF_TOT (OFF_RED + 8 * NB)
#define OFF_ROWJ (OFF_TOT + NB)
#define OFF_TS (OFF_ROWJ + NB)
#define SMEM_REALS (OFF_TS + NB * NB) // 12608 reals = 100864 bytes (the launch line's number)
static_assert(SMEM_REALS >= BK * NB + BK * BNB && SMEM_REALS >= NB * BM + NB * BN && SMEM_REALS >= NB * NB + NB * THREADS,
	      "shared memory of the phases");
static_assert(THREADS == 256 && NB == 32 && BNB == 256 && BM == 128 && BN == 64, "thread mappings assume these");

__device__ __forceinline__ long long cdivl(long long a, long long b) { return (a + b - 1) / b; }
__device__ __forceinline__ long long lminl(long long a, long long b) { return a < b ? a : b; }
__device__ __forceinline__ long long lmaxl(long long a, long long b) { return a > b ? a : b; }

// V (the panel's reflectors, unit lower trapezoidal, stored below the diagonal of the panel)
// at row i, column q of the panel, rows counted from the panel's first row.
__device__ __forceinline__ real v_at(const real* V, long long ldv, int kb, long long i, int q)
{
	if (q >= kb || i < q)
		return (real)0;
	if (i == q)
		return (real)1;
	return V[i * ldv + q];
}

// Rows per chunk and number of chunks of the W = V^T C phase (the same in every block).
__device__ __forceinline__ long long w_chunks(long long mp, long long nc, int G, long long* L)
{
	long long nct = cdivl(nc, BNB);
	long long S = G / nct;
	if (S > SMAX)
		S = SMAX;
	if (S < 1)
		S = 1;
	long long len = cdivl(cdivl(mp, S), BK) * BK;
	*L = len;
	return cdivl(mp, len);
}

// wpart[s][q][c] = sum over the rows of chunk s of V[i][q] * C[i][c]  (nc columns, mp rows)
__device__ __noinline__ void phase_vtc(const real* V, long long ldv, int kb, long long mp, const real* C, long long ldc, long long nc,
			  real* wpart, real* sm)
{
	const int tid = threadIdx.x, G = gridDim.x;
	const int tq = tid >> 7, tc = tid & 127; // q = tq * 16 + 0..15, c = tc + 128 e
	real* Vs = sm;            // [BK][NB]
	real* Cs = sm + BK * NB;  // [BK][BNB]
	long long L;
	const long long S = w_chunks(mp, nc, G, &L);
	const long long nct = cdivl(nc, BNB);
	for (long long t = blockIdx.x; t < S * nct; t += G) {
		const long long s = t / nct, c0 = (t % nct) * BNB;
		const long long rbeg = s * L, rend = lminl(mp, rbeg + L);
		real acc[16][2];
#pragma unroll
		for (int a = 0; a < 16; a++)
			acc[a][0] = acc[a][1] = 0;
		for (long long r0 = rbeg; r0 < rend; r0 += BK) {
			for (int idx = tid; idx < BK * NB; idx += THREADS) {
				const long long gi = r0 + idx / NB;
				Vs[idx] = gi < rend ? v_at(V, ldv, kb, gi, idx % NB) : (real)0;
			}
#pragma unroll
			for (int u = 0; u < BK; u++) { // row u, column tid: coalesced
				const long long gi = r0 + u, gc = c0 + tid;
				Cs[u * BNB + tid] = (gi < rend && gc < nc) ? C[gi * ldc + gc] : (real)0;
			}
			__syncthreads();
#pragma unroll 2
			for (int i = 0; i < BK; i++) {
				const real c0v = Cs[i * BNB + tc], c1v = Cs[i * BNB + tc + 128];
#pragma unroll
				for (int h = 0; h < 8; h++) {
					const double2 vv = *reinterpret_cast<const double2*>(&Vs[i * NB + tq * 16 + 2 * h]);
					acc[2 * h][0] += vv.x * c0v;
					acc[2 * h][1] += vv.x * c1v;
					acc[2 * h + 1][0] += vv.y * c0v;
					acc[2 * h + 1][1] += vv.y * c1v;
				}
			}
			__syncthreads();
		}
#pragma unroll
		for (int e = 0; e < 2; e++) {
			const long long gc = c0 + tc + 128 * e;
			if (gc < nc)
#pragma unroll
				for (int a = 0; a < 16; a++)
					wpart[(s * NB + tq * 16 + a) * nc + gc] = acc[a][e];
		}
	}
}

// w2[q][c] = sum_p T[p][q] * W[p][c] (T^T W), W = sum over the chunks of wpart.
// One thread per column; the column of W is kept in shared memory (Wc[q][tid]).
__device__ __noinline__ void phase_tw(const real* wpart, long long mp, long long nc, const real* Tg, real* w2, real* sm)
{
	const int tid = threadIdx.x, G = gridDim.x;
	real* Ts = sm;           // [NB][NB]
	real* Wc = sm + NB * NB; // [NB][THREADS]
	for (int idx = tid; idx < NB * NB; idx += THREADS)
		Ts[idx] = Tg[idx];
	__syncthreads();
	long long L;
	const long long S = w_chunks(mp, nc, G, &L);
	for (long long c = (long long)blockIdx.x * THREADS + tid; c < nc; c += (long long)G * THREADS) {
#pragma unroll 8
		for (int q = 0; q < NB; q++) {
			real w = wpart[q * nc + c];
			for (long long s = 1; s < S; s++)
				w += wpart[(s * NB + q) * nc + c];
			Wc[q * THREADS + tid] = w;
		}
		for (int q = 0; q < NB; q++) {
			real o = 0;
			for (int pp = 0; pp <= q; pp++) // T is upper triangular
				o += Ts[pp * NB + q] * Wc[pp * THREADS + tid];
			w2[q * nc + c] = o;
		}
	}
	__syncthreads();
}

// C[i][c] -= sum_q V[i][q] * w2[q][c]   (mp rows, nc columns)
__device__ __noinline__ void phase_update(const real* V, long long ldv, int kb, long long mp, real* C, long long ldc, long long nc,
			     const real* w2, real* sm)
{
	const int tid = threadIdx.x, G = gridDim.x;
	const int ty = tid >> 4, tx = tid & 15; // rows ty*4 + 0..3 (+64), columns tx*2 + 0..1 (+32)
	real* Vt = sm;           // [NB][BM]: Vt[q][i]
	real* Ws = sm + NB * BM; // [NB][BN]
	const long long nrt = cdivl(mp, BM), nct = cdivl(nc, BN);
	for (long long t = blockIdx.x; t < nrt * nct; t += G) {
		const long long r0 = (t / nct) * BM, c0 = (t % nct) * BN;
		for (int idx = tid; idx < NB * BM; idx += THREADS) {
			const int i = idx % BM, q = idx / BM;
			const long long gi = r0 + i;
			Vt[idx] = gi < mp ? v_at(V, ldv, kb, gi, q) : (real)0;
		}
		for (int idx = tid; idx < NB * BN; idx += THREADS) {
			const int cc = idx % BN, q = idx / BN;
			const long long gc = c0 + cc;
			Ws[idx] = gc < nc ? w2[q * nc + gc] : (real)0;
		}
		__syncthreads();
		real acc[8][4];
#pragma unroll
		for (int i = 0; i < 8; i++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[i][e] = 0;
#pragma unroll 4
		for (int kq = 0; kq < NB; kq++) {
			const double2 a0 = *reinterpret_cast<const double2*>(&Vt[kq * BM + ty * 4]);
			const double2 a1 = *reinterpret_cast<const double2*>(&Vt[kq * BM + ty * 4 + 2]);
			const double2 a2 = *reinterpret_cast<const double2*>(&Vt[kq * BM + 64 + ty * 4]);
			const double2 a3 = *reinterpret_cast<const double2*>(&Vt[kq * BM + 64 + ty * 4 + 2]);
			const double2 b0 = *reinterpret_cast<const double2*>(&Ws[kq * BN + tx * 2]);
			const double2 b1 = *reinterpret_cast<const double2*>(&Ws[kq * BN + 32 + tx * 2]);
			const real av[8] = { a0.x, a0.y, a1.x, a1.y, a2.x, a2.y, a3.x, a3.y };
			const real bv[4] = { b0.x, b0.y, b1.x, b1.y };
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int e = 0; e < 4; e++)
					acc[i][e] += av[i] * bv[e];
		}
		__syncthreads(); // Vt, Ws are refilled by the next tile
		const int rlim = (int)lminl(mp - r0, BM), clim = (int)lminl(nc - c0, BN); // valid rows, columns
		real* Ct = C + r0 * ldc + c0;
#pragma unroll
		for (int i = 0; i < 8; i++) {
			const int ri = i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4;
			if (ri < rlim) {
				real* row = Ct + ri * ldc;
#pragma unroll
				for (int e = 0; e < 4; e++) {
					const int ce = e < 2 ? tx * 2 + e : 32 + tx * 2 + e - 2;
					if (ce < clim)
						row[ce] -= acc[i][e];
				}
			}
		}
	}
}

// One panel: columns j0 .. j0 + kb - 1, rows j0 .. m - 1 of wk (row-major, leading dimension n).
// Leaves V below the diagonal, R on and above it, and T in tall[p]. Called by every block.
// Returns det times (tau_j != 0 ? -beta_j : beta_j) over the panel's columns, in order (block 0).
__device__ __noinline__ double panel_factor(real* wk, real* tall, real* part, long long m, long long n, long long j0, int kb,
					    long long p, real* sm, double det)
{
	cg::grid_group grid = cg::this_grid();
	real* Ps = sm;
	real* red = sm + OFF_RED;
	real* tot = sm + OFF_TOT;
	real* rowj = sm + OFF_ROWJ;
	real* Ts = sm + OFF_TS;
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const int b = blockIdx.x, G = gridDim.x;
	const long long mp = m - j0;
	const long long PMAX = cdivl(m, RB) + 1; // slots per parity in part (see the scratch size)
	real* rowjbuf = part + 2 * PMAX * NB;
	long long Rr;
	int P;
	if (mp <= RMAX) {
		P = 1;
		Rr = mp;
	} else {
		Rr = lmaxl(RB, cdivl(mp, G));
		if (Rr > RMAX)
			__trap(); // needs a grid of at least m / RMAX blocks
		P = (int)cdivl(mp, Rr);
	}
	const long long rb = j0 + (long long)b * Rr;                    // first row of this block
	const long long nr = b < P ? lminl(m, rb + Rr) - rb : 0;          // its rows
	if (b < P) {
		for (long long idx = tid; idx < nr * NB; idx += THREADS) {
			const long long i = idx / NB;
			const int c = (int)(idx % NB);
			Ps[idx] = c < kb ? wk[(rb + i) * n + j0 + c] : (real)0;
		}
		if (b == 0)
			for (int idx = tid; idx < NB * NB; idx += THREADS)
				Ts[idx] = 0;
		__syncthreads();
	}
	if (P > 1 || b == 0) {
		for (int jj = 0; jj < kb; jj++) {
			const long long j = j0 + jj;
			const int par = (int)(j & 1);
			const bool owner = j >= rb && j < rb + nr;
			if (b < P) {
				// partial sums x . a_c over this block's rows below row j, all c at once
				real acc = 0;
				for (long long i = warp; i < nr; i += 8)
					if (rb + i > j)
						acc += Ps[i * NB + jj] * Ps[i * NB + lane];
				red[warp * NB + lane] = acc;
				__syncthreads();
				if (tid < NB) {
					real s = 0;
					for (int w = 0; w < 8; w++)
						s += red[w * NB + tid];
					const real rv = owner ? Ps[(j - rb) * NB + tid] : (real)0;
					if (P == 1) {
						tot[tid] = s;
						rowj[tid] = rv;
					} else {
						part[((long long)par * PMAX + b) * NB + tid] = s;
						if (owner)
							rowjbuf[par * NB + tid] = rv;
					}
				}
			}
			if (P > 1)
				grid.sync();
			else
				__syncthreads();
			if (b < P) {
				if (P > 1) {
					real s = 0;
					for (int bb = warp; bb < P; bb += 8)
						s += part[((long long)par * PMAX + bb) * NB + lane];
					red[warp * NB + lane] = s;
					__syncthreads();
					if (tid < NB) {
						real t = 0;
						for (int w = 0; w < 8; w++)
							t += red[w * NB + tid];
						tot[tid] = t;
						rowj[tid] = rowjbuf[par * NB + tid];
					}
					__syncthreads();
				}
				// the reflector (every thread of every panel block computes the same bits)
				const real alpha = rowj[jj], ss = tot[jj];
				real tau = 0, scale = 0, beta = alpha;
				if (ss > (real)0) {
					const real nrm = sqrt(alpha * alpha + ss);
					beta = alpha >= (real)0 ? -nrm : nrm;
					tau = (beta - alpha) / beta;
					scale = (real)1 / (alpha - beta);
				}
				det *= tau != (real)0 ? -beta : beta; // det of a reflector with tau != 0 is -1
				if (b == 0) { // T[0:jj, jj] = -tau T[0:jj, 0:jj] (V^T v_jj); T[jj, jj] = tau
					if (tid < jj) {
						real sacc = 0;
						for (int qq = tid; qq < jj; qq++)
							sacc += Ts[tid * NB + qq] * (rowj[qq] + scale * tot[qq]);
						Ts[tid * NB + jj] = -tau * sacc;
					} else if (tid == jj) {
						Ts[jj * NB + jj] = tau;
					}
				}
				const real wc = lane > jj ? tau * (rowj[lane] + scale * tot[lane]) : (real)0;
				for (long long i = warp; i < nr; i += 8) {
					const long long g = rb + i;
					const real x = Ps[i * NB + jj];
					const real av = Ps[i * NB + lane];
					real nv = av;
					if (g > j) {
						if (lane == jj)
							nv = scale * x;
						else if (lane > jj)
							nv = av - scale * x * wc;
					} else if (g == j) {
						if (lane == jj)
							nv = beta;
						else if (lane > jj)
							nv = av - wc;
					}
					__syncwarp();
					Ps[i * NB + lane] = nv;
				}
				__syncthreads();
			}
		}
	}
	if (b < P) {
		for (long long idx = tid; idx < nr * NB; idx += THREADS) {
			const long long i = idx / NB;
			const int c = (int)(idx % NB);
			if (c < kb)
				wk[(rb + i) * n + j0 + c] = Ps[idx];
		}
		if (b == 0)
			for (int idx = tid; idx < NB * NB; idx += THREADS)
				tall[p * NB * NB + idx] = Ts[idx];
	}
	return det;
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
det_qr_blocked(const float* __restrict__ a, float* __restrict__ d, double* wk, double* tall, double* part,
	       double* wpart, double* w2, long long n, int mode)
{
	cg::grid_group grid = cg::this_grid();
	extern __shared__ __align__(16) unsigned char smem_raw[];
	real* sm = reinterpret_cast<real*>(smem_raw);
	const int tid = threadIdx.x;
	const int b = blockIdx.x, G = gridDim.x;
	const long long gtid = (long long)b * THREADS + tid, gstride = (long long)G * THREADS;
	const long long m = n, k = n; // square; mode changes nothing for a square matrix
	const long long npanel = cdivl(k, NB);
	double det = 1.0;

	for (long long e = gtid; e < m * n; e += gstride)
		wk[e] = (double)a[e];
	grid.sync();
	for (long long p = 0; p < npanel; p++) {
		const long long j0 = p * NB;
		const int kb = (int)lminl(NB, k - j0);
		const long long mp = m - j0;
		det = panel_factor(wk, tall, part, m, n, j0, kb, p, sm, det);
		grid.sync();
		const long long nc = n - j0 - kb;
		if (nc > 0) {
			const real* V = wk + j0 * n + j0;
			real* C = wk + j0 * n + j0 + kb;
			phase_vtc(V, n, kb, mp, C, n, nc, wpart, sm);
			grid.sync();
			phase_tw(wpart, mp, nc, tall + p * NB * NB, w2, sm);
			grid.sync();
			phase_update(V, n, kb, mp, C, n, nc, w2, sm);
			grid.sync();
		}
	}
	if (b == 0 && tid == 0)
		d[0] = (float)det;
}
