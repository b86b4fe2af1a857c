// @kbx expect pass
// Faster alternative: blocked Householder QR (LAPACK sgeqrf + sorgqr: panels of 32 reflectors
// in the compact WY form I - V T V^T) in f32, one persistent cooperative kernel.
//
// What the reference does and why it is slow: an unblocked f64 Householder QR (geqr2 + org2r),
// one grid barrier per column; at each of the n steps every warp reads and rewrites one trailing
// column of the f64 working copy, so the factorization and the formation of Q each stream the
// trailing matrix through memory once per column: about 2 * 16 n^3 / 3 bytes = 0.73 TB at
// n = 4096 (the 134 MB f64 matrix does not fit the 50 MB L2), >= 175 ms even at the full
// 4.2 TB/s, which one warp per column with a shuffle reduction does not reach, plus 2n grid
// barriers; this row is most of the reference's 722 ms.
//
// What this kernel does: the same reflectors (dlarfg convention: beta = -sign(alpha) |x|,
// tau = (beta - alpha) / beta, v = x / (alpha - beta), tau = 0 when x is already zero below
// the diagonal), in panels of NB = 32 columns:
//   panel: the panel's rows are split over P blocks (P = 1 while it has at most RMAX = 768
//     rows: then it is factored by one block in shared memory with block barriers only; else
//     128 or more rows per block). Per column ONE reduction: each block sums x_i * a_ic over its
//     rows below the diagonal for all 32 panel columns c at once (c = j gives |x|^2, c > j gives
//     v^T a_c up to the row-j term, c < j gives V^T v_j for T), the owner of row j publishes
//     that row, one grid barrier, every panel block adds the P partials in the same order (so
//     all get the same bits), builds the reflector and updates its own rows. Block 0 builds T
//     column by column (dlarft: T[0:j, j] = -tau_j T[0:j, 0:j] V^T v_j, T[j, j] = tau_j).
//   trailing update C -= V T^T (V^T C), as three grid-wide phases: W = V^T C (tiles of 32 rows
//     x 256 columns of C, the rows split into S chunks so that every block has a tile; partial
//     sums per chunk, added in a fixed order: deterministic), W2 = T^T W (one thread per
//     column), C -= V W2 (128 x 128 tiles, 8 x 8 outputs per thread, K = 32 from shared memory).
//   Q = H_0 ... H_{k-1} I: the same three phases with T instead of T^T, panels in reverse order,
//     on Q[j0:m, j0:qc] (org2r's observation: the columns left of the panel are still identity).
// R is the upper triangle of the factored matrix with beta_j on the diagonal, and then, as in
// the reference, each row with beta_j < 0 is negated together with column j of Q, so that R has
// a non-negative diagonal. The verifier accepts any row signs, but PyTorch's R compared as the
// cross-check does (tools/crosscheck.py: its R normalised the same way) needs this fixed choice:
// without it 16 of 18 cases differed there on the H200 (2026-12-01).
//
// Tolerance: a blocked Householder QR is as backward stable as the unblocked one (LAPACK's
// sgeqrf is blocked; numpy's f32 QR, measured in task.ini, is 55x inside tol = 1e-6 max(m,n,4)
// for every case). Panel sums run in chains of at most 96 rows per warp, then over 8 warps and
// P blocks; W = V^T C sums one chunk of rows per thread, then the <= 16 chunks; all f32 like
// sgeqrf (f32 accumulation, as PyTorch's own result).
// The existing pass_f32_householder_block.cu (unblocked f32) passes, and the blocked form only
// regroups the same products (dlarfb), so |A - QR|/|A|, |Q^T Q - I| stay ~1e-7 sqrt(n).
//
// Bounds: tiles are zero-padded at every edge (rows >= m, columns >= n, reflectors >= k), the
// last panel may be narrower than 32, m < n (wide) and m > n (tall, complete Q [m, m]) are the
// same code with k = min(m, n) reflectors; m = 0 or n = 0 do no panel (complete Q = I). Indexes
// are long long. Outputs are written in full (Q is set to I first, R's zeros are written).
//
// Expected speed at n = 4096 (perf row 9): the factorization and Q each cost 4/3 n^3 = 9.2e10
// flop, 1.8e11 in all, run as 32-deep rank updates at maybe 40-50% of the 66 TFLOP/s f32 FMA peak
// -> ~6 ms; the trailing matrix is streamed 3 times per panel (2 reads, 1 write): 3 * 4 B *
// n^3 / (3 * 32) = 8.6 GB for the factorization and as much for Q -> ~4 ms, partly overlapped
// (two blocks per SM); the panels: 3328 columns with more than 768 rows below the diagonal x
// (one grid barrier + a partial-sum read, ~2.5 us) ~ 8 ms, the last 768 columns ~1 us each in
// one block; plus ~7 grid barriers per panel x 128 panels ~ 1.5 ms. Total ~15-20 ms against
// the reference's several hundred ms at this row: ~25x or more, and under PyTorch's 28 ms.
// Small rows (n <= 512) are latency-bound: one block factors each panel (~1 us a column), a few
// grid barriers per panel; n = 16 costs ~6 grid barriers in all, below the reference's 2n.
//
// @kbx scratch wk f32 [max(1, m * n)]
// @kbx scratch tall f32 [max(1, cdiv(min(m, n), 32) * 32 * 32)]
// @kbx scratch part f32 [2 * (cdiv(m, 128) + 2) * 32 + 64]
// @kbx scratch wpart f32 [max(1, 16 * 32 * max(m, n))]
// @kbx scratch w2 f32 [max(1, 32 * max(m, n))]
// @kbx launch qr_blocked<<<2 * sms, 256, 103680>>>(a, q, r, wk, tall, part, wpart, w2, batch, m, n, mode) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

typedef float real;

#define THREADS 256
#define NB 32          // panel width (reflectors per block); equals the warp width
#define RMAX 768       // most panel rows one block holds in shared memory
#define RB 128         // least rows per block when the panel is split over blocks
#define SMAX 16        // most row chunks of the W = V^T C phase
#define BK 32          // rows per step in W = V^T C
#define BNB 256        // columns per tile in W = V^T C
#define BM 128         // rows per tile in C -= V W2
#define BN 128         // columns per tile in C -= V W2
// dynamic shared memory, in reals: panel rows, 8 x NB reduction slots, tot, rowj, T
#define OFF_RED (RMAX * NB)
#define OFF_TOT (OFF_RED + 8 * NB)
#define OFF_ROWJ (OFF_TOT + NB)
#define OFF_TS (OFF_ROWJ + NB)
#define SMEM_REALS (OFF_TS + NB * NB) // 25920 reals = 103680 bytes (the launch line's number)
static_assert(SMEM_REALS >= BK * NB + BK * BNB && SMEM_REALS >= NB * BM + NB * BN && SMEM_REALS >= NB * NB + NB * THREADS,
	      "shared memory of the phases");
static_assert(THREADS == 256 && NB == 32 && BNB == THREADS && BM == 128 && BN == 128 && BK * NB % THREADS == 0,
	      "thread mappings assume these");

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
	const int tq = tid >> 6, tc = tid & 63; // q = tq * 8 + 0..7, c = tc + 64 e
	real* Vs = sm;            // [BK][NB]
	real* Cs = sm + BK * NB;  // [BK][BNB]
	long long L;
	const long long S = w_chunks(mp, nc, G, &L);
	const long long nct = cdivl(nc, BNB);
	for (long long t = blockIdx.x; t < S * nct; t += G) {
		const long long s = t / nct, c0 = (t % nct) * BNB;
		const long long rbeg = s * L, rend = lminl(mp, rbeg + L);
		real acc[8][4];
#pragma unroll
		for (int a = 0; a < 8; a++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[a][e] = 0;
		// chunk of BK rows: thread tid loads C rows u = 0..BK-1 at column tid, V rows tid / NB + 8 u
		real pc[BK], pv[BK * NB / THREADS];
		auto fetch = [&](long long r0) {
#pragma unroll
			for (int u = 0; u < BK; u++) {
				const long long gi = r0 + u, gc = c0 + tid;
				pc[u] = (gi < rend && gc < nc) ? C[gi * ldc + gc] : (real)0;
			}
#pragma unroll
			for (int u = 0; u < BK * NB / THREADS; u++) {
				const long long gi = r0 + tid / NB + (THREADS / NB) * u;
				pv[u] = gi < rend ? v_at(V, ldv, kb, gi, tid % NB) : (real)0;
			}
		};
		fetch(rbeg);
		for (long long r0 = rbeg; r0 < rend; r0 += BK) {
#pragma unroll
			for (int u = 0; u < BK; u++)
				Cs[u * BNB + tid] = pc[u];
#pragma unroll
			for (int u = 0; u < BK * NB / THREADS; u++)
				Vs[(tid / NB + (THREADS / NB) * u) * NB + tid % NB] = pv[u];
			__syncthreads();
			if (r0 + BK < rend)
				fetch(r0 + BK); // in flight during the products below
#pragma unroll 4
			for (int i = 0; i < BK; i++) {
				const float4 va = *reinterpret_cast<const float4*>(&Vs[i * NB + tq * 8]);
				const float4 vb = *reinterpret_cast<const float4*>(&Vs[i * NB + tq * 8 + 4]);
				const real v[8] = { va.x, va.y, va.z, va.w, vb.x, vb.y, vb.z, vb.w };
				real cv[4];
#pragma unroll
				for (int e = 0; e < 4; e++)
					cv[e] = Cs[i * BNB + tc + 64 * e];
#pragma unroll
				for (int a = 0; a < 8; a++)
#pragma unroll
					for (int e = 0; e < 4; e++)
						acc[a][e] += v[a] * cv[e];
			}
			__syncthreads();
		}
#pragma unroll
		for (int e = 0; e < 4; e++) {
			const long long gc = c0 + tc + 64 * e;
			if (gc < nc)
#pragma unroll
				for (int a = 0; a < 8; a++)
					wpart[(s * NB + tq * 8 + a) * nc + gc] = acc[a][e];
		}
	}
}

// w2[q][c] = sum_p T'[q][p] * W[p][c], W = sum over the chunks of wpart; T' = T^T (trans) or T.
// One thread per column; the column of W is kept in shared memory (Wc[q][tid]).
__device__ __noinline__ void phase_tw(const real* wpart, long long mp, long long nc, const real* Tg, int trans, real* w2, real* sm)
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
			if (trans) {
				for (int pp = 0; pp <= q; pp++)
					o += Ts[pp * NB + q] * Wc[pp * THREADS + tid];
			} else {
				for (int pp = q; pp < NB; pp++)
					o += Ts[q * NB + pp] * Wc[pp * THREADS + tid];
			}
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
	const int ty = tid >> 4, tx = tid & 15;
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
		real acc[8][8];
#pragma unroll
		for (int i = 0; i < 8; i++)
#pragma unroll
			for (int e = 0; e < 8; e++)
				acc[i][e] = 0;
#pragma unroll 4
		for (int kq = 0; kq < NB; kq++) {
			const float4 a0 = *reinterpret_cast<const float4*>(&Vt[kq * BM + ty * 4]);
			const float4 a1 = *reinterpret_cast<const float4*>(&Vt[kq * BM + 64 + ty * 4]);
			const float4 b0 = *reinterpret_cast<const float4*>(&Ws[kq * BN + tx * 4]);
			const float4 b1 = *reinterpret_cast<const float4*>(&Ws[kq * BN + 64 + tx * 4]);
			const real av[8] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
			const real bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int e = 0; e < 8; e++)
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
				for (int e = 0; e < 8; e++) {
					const int ce = e < 4 ? tx * 4 + e : 64 + tx * 4 + e - 4;
					if (ce < clim)
						row[ce] -= acc[i][e];
				}
			}
		}
	}
}

// One panel: columns j0 .. j0 + kb - 1, rows j0 .. m - 1 of wk (row-major, leading dimension n).
// Leaves V below the diagonal, R on and above it, and T in tall[p]. Called by every block.
__device__ __noinline__ void panel_factor(real* wk, real* tall, real* part, long long m, long long n, long long j0, int kb,
					  long long p, real* sm)
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
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
qr_blocked(const float* __restrict__ a, float* __restrict__ q, float* __restrict__ r, float* wk, float* tall,
	   float* part, float* wpart, float* w2, long long batch, long long m, long long n, int mode)
{
	cg::grid_group grid = cg::this_grid();
	extern __shared__ __align__(16) unsigned char smem_raw[];
	real* sm = reinterpret_cast<real*>(smem_raw);
	const int tid = threadIdx.x;
	const int b = blockIdx.x, G = gridDim.x;
	const long long gtid = (long long)b * THREADS + tid, gstride = (long long)G * THREADS;
	const long long k = m < n ? m : n;
	const long long qc = mode ? m : k; // columns of Q, rows of R
	const long long npanel = cdivl(k, NB);

	for (long long bi = 0; bi < batch; bi++) {
		const float* A = a + bi * m * n;
		float* Q = q + bi * m * qc;
		float* R = r + bi * qc * n;
		for (long long e = gtid; e < m * n; e += gstride)
			wk[e] = A[e];
		for (long long i = b; i < m; i += G)
			for (long long c = tid; c < qc; c += THREADS)
				Q[i * qc + c] = i == c ? 1.0f : 0.0f;
		grid.sync();

		// ---------------- factorization ----------------
		for (long long p = 0; p < npanel; p++) {
			const long long j0 = p * NB;
			const int kb = (int)lminl(NB, k - j0);
			const long long mp = m - j0;
			panel_factor(wk, tall, part, m, n, j0, kb, p, sm);
			grid.sync();
			const long long nc = n - j0 - kb;
			if (nc > 0) {
				const real* V = wk + j0 * n + j0;
				real* C = wk + j0 * n + j0 + kb;
				phase_vtc(V, n, kb, mp, C, n, nc, wpart, sm);
				grid.sync();
				phase_tw(wpart, mp, nc, tall + p * NB * NB, 1, w2, sm);
				grid.sync();
				phase_update(V, n, kb, mp, C, n, nc, w2, sm);
				grid.sync();
			}
		}

		// ---------------- R: the upper triangle, beta on the diagonal ----------------
		for (long long i = b; i < qc; i += G)
			for (long long c = tid; c < n; c += THREADS)
				R[i * n + c] = (i < k && c >= i) ? wk[i * n + c] : 0.0f;

		// ---------------- Q = H_0 ... H_{k-1} I, panels in reverse ----------------
		for (long long p = npanel - 1; p >= 0; p--) {
			const long long j0 = p * NB;
			const int kb = (int)lminl(NB, k - j0);
			const long long mp = m - j0, nc = qc - j0;
			const real* V = wk + j0 * n + j0;
			real* C = Q + j0 * qc + j0;
			phase_vtc(V, n, kb, mp, C, qc, nc, wpart, sm);
			grid.sync();
			phase_tw(wpart, mp, nc, tall + p * NB * NB, 0, w2, sm);
			grid.sync();
			phase_update(V, n, kb, mp, C, qc, nc, w2, sm);
			grid.sync();
		}

		// ---------------- signs: a non-negative diagonal of R ----------------
		// beta_i = wk[i][i] < 0: row i of R and column i of Q are negated (Q R is unchanged). wk
		// is only read since R was written, and Q is complete after the last grid.sync.
		for (long long i = b; i < k; i += G)
			if (wk[i * n + i] < 0.0f)
				for (long long c = i + tid; c < n; c += THREADS)
					R[i * n + c] = -R[i * n + c];
		for (long long e = gtid; e < m * k; e += gstride) {
			const long long row = e / k, i = e - row * k;
			if (wk[i * n + i] < 0.0f)
				Q[row * qc + i] = -Q[row * qc + i];
		}
		grid.sync(); // wk is rewritten by the next matrix
	}
}
