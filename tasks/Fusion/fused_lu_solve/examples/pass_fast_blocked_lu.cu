// @kbx expect pass
// Faster alternative: one cooperative kernel, blocked right-looking f32 LU with partial
// pivoting (one grid barrier per column for the pivot, 32-column panels, register-tiled
// trailing updates), then blocked forward and back substitution on the unpermuted b.
//
// What the reference does and why it is slow: lu_factor is an unblocked right-looking getrf in
// f64: per column one block searches the pivot and swaps the rows, then the whole grid updates
// the trailing (n - k)^2 submatrix in f64 through global memory, 2 grid barriers per column.
// At n = 4096 that is 8192 barriers and sum (n - k)^2 * 16 bytes = n^3 / 3 * 16 = 3.7e11 bytes
// of read-modify-write (the 134 MB f64 matrix does not fit the 50 MB L2): most of the 493.8 ms
// the five perf rows (n = 256 .. 4096) take on an H200, against PyTorch's 45.0 ms. lu_solve
// then runs both substitutions in one block (2n block barriers).
//
// What this kernel does: the blocked LU core of LinearAlgebra/solve's
// examples/pass_fast_blocked_lu.cu (copied unchanged: lu_core and its helpers), here on A alone
// (ld = n) with swap_left = true, so that W ends as getrf's packed factorisation (L below the
// diagonal in its final row order, U on and above), exactly the reference's `lu` stage layout:
//   per 32-column panel, the panel rows split into per-block chunks in shared memory; per column
//   ONE grid barrier: every block publishes its best pivot candidate (|value|, logical row, the
//   row's 32 panel entries), every block reduces the candidates to the same winner (largest |.|,
//   first row on a tie, NaN never wins: getrf's rule), scales and updates its own rows; then the
//   panel is written back, the panel's swaps applied to the other columns (left and right) and
//   U12 = L11^-1 A12 solved; A22 -= L21 U12 by 128 x 128 register-tiled f32 FMA tiles.
// Then x = U^-1 (L^-1 b) with b NOT permuted (task.ini: L @ U = P^T A is what is solved): both
// substitutions by 32-row diagonal blocks, each block solving the diagonal block redundantly in
// one warp (shuffles, lanes along rows; block 0 writes the result to a separate array so that
// no block reads a value another one has already overwritten), the grid's warps updating the
// remaining rows (one warp per row, a 32-wide dot product); one grid barrier per 32 rows. No
// product is skipped for a zero coefficient, so a NaN in b reaches every x (as the reference).
// The work buffer is named `lu` (f32 [n, n], the reference's stage buffer of the same layout) so
// that kbx's stage diff compares it with the reference's packed factorisation.
//
// Tolerance: f32 LU with partial pivoting (PyTorch's own f32 getrf arithmetic) and f32
// substitutions, against the reference's f64 rounded once. The cases are well conditioned
// (cond <= ~5, task.ini) and no pivot race is closer than 1.2 : 1, so the f32 pivot order is
// the reference's and the f32 rounding (~1e-7 relative per entry) moves x by ~cond * 1e-7:
// within rtol = atol = 1e-5 (measured below).
//
// Expected time at n = 4096: n + 2 n / 32 = 4352 barriers of the factorisation and 2 n / 32 =
// 256 of the substitutions at ~1.5-2 us: ~7-9 ms; the trailing updates n^3 * 2 / 3 = 4.6e10 f32
// flops (~2 ms at ~50% of FFMA peak; their 5.7 GB of read-modify-write mostly in L2 since the
// f32 matrix is 67 MB): ~10-11 ms vs golden 27.8 ms and the reference's ~400 ms; the perf rows
// together ~15 ms vs 45.0 ms (golden) and 493.8 ms (reference).
//
// Checked: compiles and passes kbx's ABI check (verdict not_run: no GPU here). NOT YET RUN ON A
// GPU. A block-level numpy emulation (not kept) in f32 of this kernel: per-block row chunks,
// candidate publication and reduction, logical row tracking, source map of the swaps (left and
// right of the panel), TRSM, f32 tile update, and the blocked substitutions with their
// separate result arrays, for grids of 1, 3, 5 and 132 blocks, against an f64 emulation of the
// reference (getrf in f64, unpermuted b): the test cases 1 - 3, size 1, spd(1) n = 64 with b and
// 3 b, a row-permuted column-dominant n = 70, diagdom n = 33 (b = 0) / 97 / 257, spd(2) n = 200
// with uniform b, spd(1) n = 257 and 521 (3 b; the latter two with 132 blocks only): worst
// |d| / (atol + rtol |ref|) 0.10 on x (test_case_2_pivot) and 0.05 on the packed LU; the NaN
// case gives an all-NaN x.
//
// @kbx scratch lu f32 [n, n]
// @kbx scratch rhs f32 [max(1, 2 * n)]
// @kbx scratch comm f32 [69632]
// @kbx launch lu_solve_blocked<<<sms, 256, max(16, cdiv(n, sms) * 132)>>>(A, b, x, lu, rhs, comm, n) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define NWARPS (THREADS / 32)
#define NB 32	    // panel width (columns factored per panel, the rank of each trailing update)
#define BM 128	    // trailing-update tile rows
#define BN 128	    // trailing-update tile columns
#define MAXG 1024   // most blocks the exchange buffer has slots for
#define FULL 0xffffffffu
#define NOIDX 0x7fffffff

// comm (global scratch): two parities of [MAXG] candidate headers (|value|, logical row) and
// [MAXG][NB] candidate rows; step j reads parity j & 1 and writes the other one.
#define HDR(par, b) (comm + ((par) * MAXG + (b)) * 2)
#define ROW(par, b) (comm + 4 * MAXG + ((par) * MAXG + (b)) * NB)

// (v, i) beats (bv, bi): the larger |value|, on a tie the smaller logical row (LAPACK's first
// maximum); NaN never wins (v > bv and v == bv are both false). A total order, so the winner is
// the same whatever order the candidates are reduced in.
__device__ __forceinline__ bool beats(float v, int i, float bv, int bi) { return v > bv || (v == bv && i < bi); }

struct Smem {
	float As[BM][NB + 1];		// L21 tile, row-major, padded (conflict-free stores and reads)
	__align__(16) float Bs[NB][BN]; // U12 tile
	float sU[NB][NB + 1];		// the panel's pivot rows: L11 below the diagonal, U11 on/above
	float prow[NB];			// this step's pivot row
	int piv[NB];			// logical row exchanged with row k0 + i at step i
	int srcP[NB];			// after the panel's swaps, row k0 + i holds the old row srcP[i]
	int extDst[NB], extSrc[NB];	// the same for rows >= k1 touched by the swaps
	int next;			// number of ext entries
	float wv[NWARPS];
	int wi[NWARPS], wr[NWARPS], wown[NWARPS];
	int win, p, mycand;
};

// Each block's best candidate for the pivot of logical column jl (panel column jc) among its
// active rows (logical index >= jl), published with its panel row to parity par. A block with no
// candidate but holding the row at logical jl publishes that row with -0.5 (an all-NaN column
// keeps the diagonal, as the reference); without pivoting only that row is published (value 0).
__device__ void find_publish(Smem& S, float* comm, const float* slice, const int* lidx, int nr, int jc, int jl,
			     int par, int pivot)
{
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	float bv = -1.0f;
	int bi = NOIDX, br = -1, own = -1;
	for (int r = tid; r < nr; r += THREADS) {
		const int li = lidx[r];
		if (li < jl)
			continue; // retired: a row of U already
		if (li == jl)
			own = r;
		const float v = fabsf(slice[r * NB + jc]);
		if (pivot && beats(v, li, bv, bi)) {
			bv = v;
			bi = li;
			br = r;
		}
	}
	for (int off = 16; off > 0; off >>= 1) {
		const float ov = __shfl_xor_sync(FULL, bv, off);
		const int oi = __shfl_xor_sync(FULL, bi, off);
		const int orr = __shfl_xor_sync(FULL, br, off);
		const int oo = __shfl_xor_sync(FULL, own, off);
		if (beats(ov, oi, bv, bi)) {
			bv = ov;
			bi = oi;
			br = orr;
		}
		own = max(own, oo);
	}
	if (lane == 0) {
		S.wv[warp] = bv;
		S.wi[warp] = bi;
		S.wr[warp] = br;
		S.wown[warp] = own;
	}
	__syncthreads();
	if (warp == 0) {
		bv = lane < NWARPS ? S.wv[lane] : -1.0f;
		bi = lane < NWARPS ? S.wi[lane] : NOIDX;
		br = lane < NWARPS ? S.wr[lane] : -1;
		own = lane < NWARPS ? S.wown[lane] : -1;
		for (int off = 16; off > 0; off >>= 1) {
			const float ov = __shfl_xor_sync(FULL, bv, off);
			const int oi = __shfl_xor_sync(FULL, bi, off);
			const int orr = __shfl_xor_sync(FULL, br, off);
			const int oo = __shfl_xor_sync(FULL, own, off);
			if (beats(ov, oi, bv, bi)) {
				bv = ov;
				bi = oi;
				br = orr;
			}
			own = max(own, oo);
		}
		if (br < 0 && own >= 0) { // no candidate (or no pivoting): the row at logical jl itself
			bv = pivot ? -0.5f : 0.0f;
			bi = jl;
			br = own;
		}
		if (lane == 0) {
			float* h = HDR(par, blockIdx.x);
			h[0] = bv;
			h[1] = __int_as_float(br < 0 ? NOIDX : bi);
			S.mycand = br;
		}
		if (br >= 0)
			ROW(par, blockIdx.x)[lane] = slice[br * NB + lane]; // NB == 32: one column per lane
	}
}

// W[k1:m, k1:nc] -= W[k1:m, k0:k1] W[k0:k1, k1:nc] (ld = row stride): 128 x 128 tiles over the
// grid, 256 threads of 8 x 8 outputs (rows ty*8 + r, columns tx*4 + 64h + q), K = k1 - k0 <= 32
// staged once per tile; out-of-range rows / columns / depths are zero-filled.
__device__ void trailing_update(Smem& S, float* W, long long ld, int k0, int k1, int M, int N)
{
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16, K = k1 - k0;
	const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
	for (int t = blockIdx.x; t < tilesM * tilesN; t += gridDim.x) {
		const int i0 = (t / tilesN) * BM, j0 = (t % tilesN) * BN;
		for (int e = tid; e < BM * NB; e += THREADS) {
			const int i = e / NB, kk = e % NB;
			S.As[i][kk] = (i0 + i < M && kk < K) ? W[(long long)(k1 + i0 + i) * ld + k0 + kk] : 0.0f;
		}
		for (int e = tid; e < NB * BN; e += THREADS) {
			const int kk = e / BN, j = e % BN;
			S.Bs[kk][j] = (kk < K && j0 + j < N) ? W[(long long)(k0 + kk) * ld + k1 + j0 + j] : 0.0f;
		}
		__syncthreads();
		float acc[8][8];
#pragma unroll
		for (int r = 0; r < 8; r++)
#pragma unroll
			for (int q = 0; q < 8; q++)
				acc[r][q] = 0.0f;
#pragma unroll 4
		for (int kk = 0; kk < NB; kk++) {
			float av[8];
#pragma unroll
			for (int r = 0; r < 8; r++)
				av[r] = S.As[ty * 8 + r][kk];
			const float4 b0 = *reinterpret_cast<const float4*>(&S.Bs[kk][tx * 4]);
			const float4 b1 = *reinterpret_cast<const float4*>(&S.Bs[kk][64 + tx * 4]);
			const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int r = 0; r < 8; r++)
#pragma unroll
				for (int q = 0; q < 8; q++)
					acc[r][q] = fmaf(av[r], bv[q], acc[r][q]);
		}
#pragma unroll
		for (int r = 0; r < 8; r++) {
			const int i = i0 + ty * 8 + r;
			if (i < M) {
				float* row = W + (long long)(k1 + i) * ld + k1;
#pragma unroll
				for (int q = 0; q < 8; q++) {
					const int j = j0 + (q / 4) * 64 + tx * 4 + q % 4;
					if (j < N)
						row[j] -= acc[r][q];
				}
			}
		}
		__syncthreads(); // As / Bs are refilled by the next tile
	}
}

// In-place f32 LU with partial pivoting (pivot != 0) or none of the first kmin columns of W
// [m, nc] (row stride ld); the columns beyond kmin (solve's right-hand sides) take the row swaps,
// the triangular solve and the trailing updates too. On return W holds L below the diagonal and U
// on and above it. swap_left: the swaps are also applied to the columns left of each panel (lu
// needs L in the final row order; det and solve do not). det (block 0, thread 0): the product of
// the pivots in f64, negated per exchange. perm (lu, per block): perm[r] = the row of A at row r.
// The whole grid must call it. Per 32-column panel:
//   the panel rows k0..m-1 are split into contiguous chunks, one per block, held in shared memory
//   (slice) and never moved: lidx[] tracks each row's logical position. Per column: every block
//   publishes its best candidate (value, logical row, the row's 32 panel entries); grid barrier;
//   every block reduces the candidates to the same winner, records the swap, scales and updates
//   its own active rows, and publishes the next column's candidate. The winners' rows are the
//   panel's final pivot rows (L11 / U11), kept in every block's sU.
//   Then: write the panel back in logical row order; one thread per column outside the panel
//   applies the panel's swaps (as the source map srcP / ext) and, right of it, U12 = L11^-1 A12;
//   grid barrier; A22 -= L21 U12 (trailing_update); grid barrier.
__device__ void lu_core(cg::grid_group& grid, Smem& S, float* W, long long ld, int m, int nc, int kmin, int pivot,
			bool swap_left, float* comm, float* slice, int* lidx, int* perm, double* det)
{
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, G = gridDim.x, b = blockIdx.x;
	const long long gtid = (long long)b * THREADS + tid, gstride = (long long)G * THREADS;

	for (int k0 = 0; k0 < kmin; k0 += NB) {
		const int mb = min(NB, kmin - k0), k1 = k0 + mb;
		const int chunk = (m - k0 + G - 1) / G, rb = k0 + b * chunk;
		const int nr = max(0, min(chunk, m - rb));
		for (int e = tid; e < nr * NB; e += THREADS) {
			const int r = e / NB, c = e % NB;
			slice[e] = c < mb ? W[(long long)(rb + r) * ld + k0 + c] : 0.0f;
		}
		for (int r = tid; r < nr; r += THREADS)
			lidx[r] = rb + r;
		if (tid < NB)
			S.srcP[tid] = k0 + tid;
		if (tid == 0)
			S.next = 0;
		__syncthreads();
		find_publish(S, comm, slice, lidx, nr, 0, k0, 0, pivot);
		grid.sync();

		for (int jj = 0; jj < mb; jj++) {
			const int j = k0 + jj, par = jj & 1;
			if (warp == 0) { // the winner over all blocks' candidates
				float bv = -2.0f;
				int bi = NOIDX, bw = -1;
				for (int t = lane; t < G; t += 32) {
					const float v = __ldcg(HDR(par, t));
					const int i = __float_as_int(__ldcg(HDR(par, t) + 1));
					if (beats(v, i, bv, bi)) {
						bv = v;
						bi = i;
						bw = t;
					}
				}
				for (int off = 16; off > 0; off >>= 1) {
					const float ov = __shfl_xor_sync(FULL, bv, off);
					const int oi = __shfl_xor_sync(FULL, bi, off);
					const int ow = __shfl_xor_sync(FULL, bw, off);
					if (beats(ov, oi, bv, bi)) {
						bv = ov;
						bi = oi;
						bw = ow;
					}
				}
				const float rv = __ldcg(ROW(par, bw) + lane);
				S.prow[lane] = rv;
				S.sU[jj][lane] = rv;
				if (lane == 0) {
					S.win = bw;
					S.p = bi;
				}
			}
			__syncthreads();
			const int p = S.p;
			const float pv = S.prow[jj];
			const int wr = S.win == b ? S.mycand : -1; // my local row that won, if any
			if (tid == 0) {
				S.piv[jj] = p;
				if (det)
					*det *= (p != j) ? -(double)pv : (double)pv;
				// content bookkeeping: swap the sources of positions j and p
				const int sj = S.srcP[jj];
				int sp;
				if (p < k1) {
					sp = S.srcP[p - k0];
					S.srcP[p - k0] = sj;
				} else {
					int e = 0;
					while (e < S.next && S.extDst[e] != p)
						e++;
					if (e == S.next) {
						S.extDst[e] = p;
						S.extSrc[e] = p;
						S.next = e + 1;
					}
					sp = S.extSrc[e];
					S.extSrc[e] = sj;
				}
				S.srcP[jj] = sp;
				if (perm) {
					const int t = perm[j];
					perm[j] = perm[p];
					perm[p] = t;
				}
			}
			// my rows: the winner retires at logical j, the row that was at j moves to p; the
			// active rows are scaled and take the rank-1 update (a zero pivot: unscaled, as getf2)
			for (int r = warp; r < nr; r += NWARPS) {
				const int li = lidx[r];
				const int nli = r == wr ? j : (li == j ? p : li);
				const float a = slice[r * NB + lane], ajj = slice[r * NB + jj];
				__syncwarp();
				if (nli > j) {
					const float l = pv != 0.0f ? ajj / pv : ajj;
					if (lane == jj)
						slice[r * NB + lane] = l;
					else if (lane > jj && lane < mb)
						slice[r * NB + lane] = a - l * S.prow[lane];
				}
				if (lane == 0)
					lidx[r] = nli;
			}
			__syncthreads();
			if (jj + 1 < mb) {
				find_publish(S, comm, slice, lidx, nr, jj + 1, j + 1, par ^ 1, pivot);
				grid.sync();
			}
		}

		// the panel back in logical row order
		for (int e = tid; e < nr * mb; e += THREADS) {
			const int r = e / mb, c = e % mb;
			W[(long long)lidx[r] * ld + k0 + c] = slice[r * NB + c];
		}
		// the other columns: the panel's swaps; right of the panel U12 = L11^-1 A12
		const int nright = nc - k1, nleft = swap_left ? k0 : 0, next = S.next;
		for (long long t = gtid; t < nright + nleft; t += gstride) {
			const int c = t < nright ? k1 + (int)t : (int)t - nright;
			float x[NB], y[NB];
#pragma unroll
			for (int i = 0; i < NB; i++)
				if (i < mb)
					x[i] = W[(long long)S.srcP[i] * ld + c];
#pragma unroll
			for (int e = 0; e < NB; e++)
				if (e < next)
					y[e] = W[(long long)S.extSrc[e] * ld + c];
#pragma unroll
			for (int e = 0; e < NB; e++)
				if (e < next)
					W[(long long)S.extDst[e] * ld + c] = y[e];
			if (c >= k1) {
#pragma unroll
				for (int i = 1; i < NB; i++)
					if (i < mb) {
						float v = x[i];
#pragma unroll
						for (int q = 0; q < i; q++)
							v -= S.sU[i][q] * x[q];
						x[i] = v;
					}
			}
#pragma unroll
			for (int i = 0; i < NB; i++)
				if (i < mb)
					W[(long long)(k0 + i) * ld + c] = x[i];
		}
		grid.sync();
		if (k1 < m && k1 < nc)
			trailing_update(S, W, ld, k0, k1, m - k1, nc - k1);
		grid.sync();
	}
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
lu_solve_blocked(const float* __restrict__ A, const float* __restrict__ b, float* __restrict__ x, float* lu,
		 float* rhs, float* comm, long long n)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ Smem S;
	__shared__ float sx[NB];
	extern __shared__ float dyn[];
	const int N = (int)n, G = gridDim.x, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	const long long gtid = (long long)blockIdx.x * THREADS + tid, gstride = (long long)G * THREADS;
	float* slice = dyn;			      // [cdiv(n, G)][NB]
	int* lidx = (int*)(dyn + ((N + G - 1) / G) * NB); // [cdiv(n, G)]
	float* r1v = rhs;	// forward: the running right-hand side (b, then updated rows)
	float* yv = rhs + n;	// y = L^-1 b, then the running right-hand side of the back substitution
	for (long long e = gtid; e < n * n; e += gstride)
		lu[e] = A[e];
	for (long long e = gtid; e < n; e += gstride)
		r1v[e] = b[e];
	grid.sync();
	// A -> packed L \ U in getrf's final row order
	lu_core(grid, S, lu, n, N, N, N, 1, true, comm, slice, lidx, nullptr, nullptr);

	const long long gwarp = gtid / 32, nwarps = gstride / 32;
	// L y = b (unit lower), 32-row diagonal blocks from the top; the solved block goes to yv
	for (int r0 = 0; r0 < N; r0 += NB) {
		const int rb = min(NB, N - r0), r1 = r0 + rb;
		for (int e = tid; e < NB * NB; e += THREADS) {
			const int i = e / NB, j = e % NB;
			S.sU[i][j] = (i < rb && j < rb && j < i) ? lu[(long long)(r0 + i) * n + r0 + j] : 0.0f;
		}
		__syncthreads();
		if (warp == 0) {
			float v = lane < rb ? r1v[r0 + lane] : 0.0f;
			for (int i = 0; i < rb; i++) {
				const float yi = __shfl_sync(FULL, v, i);
				if (lane > i)
					v -= S.sU[lane][i] * yi;
			}
			sx[lane] = v; // 0 on lanes >= rb
			if (blockIdx.x == 0 && lane < rb)
				yv[r0 + lane] = v;
		}
		__syncthreads();
		for (long long i = r1 + gwarp; i < N; i += nwarps) {
			const float lv = lane < rb ? lu[i * n + r0 + lane] : 0.0f;
			float s = lv * sx[lane];
			for (int off = 16; off > 0; off >>= 1)
				s += __shfl_xor_sync(FULL, s, off);
			if (lane == 0)
				r1v[i] -= s;
		}
		grid.sync(); // also: sU and sx are refilled by the next block
	}
	// U x = y, 32-row diagonal blocks from the bottom; the solved block goes to x
	for (int r1 = N; r1 > 0; r1 -= NB) {
		const int r0 = r1 > NB ? r1 - NB : 0, rb = r1 - r0;
		for (int e = tid; e < NB * NB; e += THREADS) {
			const int i = e / NB, j = e % NB;
			S.sU[i][j] = (i < rb && j < rb && j >= i) ? lu[(long long)(r0 + i) * n + r0 + j] : 0.0f;
		}
		__syncthreads();
		if (warp == 0) {
			float v = lane < rb ? yv[r0 + lane] : 0.0f;
			for (int i = rb - 1; i >= 0; i--) {
				const float xi = __shfl_sync(FULL, v, i) / S.sU[i][i];
				if (lane == i)
					v = xi;
				else if (lane < i)
					v -= S.sU[lane][i] * xi;
			}
			sx[lane] = v; // 0 on lanes >= rb
			if (blockIdx.x == 0 && lane < rb)
				x[r0 + lane] = v;
		}
		__syncthreads();
		for (long long i = gwarp; i < r0; i += nwarps) {
			const float uv = lane < rb ? lu[i * n + r0 + lane] : 0.0f;
			float s = uv * sx[lane];
			for (int off = 16; off > 0; off >>= 1)
				s += __shfl_xor_sync(FULL, s, off);
			if (lane == 0)
				yv[i] -= s;
		}
		grid.sync();
	}
}
