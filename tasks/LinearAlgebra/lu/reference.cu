// LinearAlgebra/lu: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// lu: the reference's f64 LU, blocked and parallel (a candidate for the reference, as det's
// reference.cu became on 2026-12-03).
//
// Reference (reference.cu): blocked right-looking f64 LU, 32-column panels, but each panel is
// factored by block 0 alone in global memory (a pivot search and ~5 __syncthreads per column over
// all the panel's rows) while the other 131 blocks wait: ~114 ms over the perf rows on an H200
// (PyTorch's f32 LU: ~20 ms). The trailing updates are already f64 tiles.
//
// New kernel: the same LU, in f64 on an f64 copy of each matrix, structured like det's
// reference.cu (one cooperative kernel, 32-column panels):
//   panel: its rows k0 .. m-1 are split into contiguous chunks, one per block, held in shared
//   memory and never moved (lidx[] tracks each row's logical position). Per column ONE grid
//   barrier: every block publishes its best pivot candidate (|value|, logical row, the row's 32
//   panel entries) to a double-buffered exchange area (ex); after the barrier every block reduces
//   the candidates to the same winner (largest |.|, first logical row on a tie, NaN never wins,
//   an all-NaN column keeps the diagonal; without pivoting the row at the diagonal is the only
//   candidate), scales and updates its own rows and publishes the next column's candidate. The
//   winners' rows are the panel's L11 \ U11, so every block has them (sU).
//   then: the panel written back in logical row order; one thread per column outside the panel
//   applies the panel's row exchanges (a source map of <= 64 rows; left of the panel too, since
//   L is an output) and, right of it, solves U12 = L11^-1 A12 in registers; barrier;
//   A22 -= L21 U12 on 64 x 64 tiles; barrier. So 34 grid barriers per 32 columns.
//   P is built in every block's shared memory (perm) from the exchanges as they happen; L, U and
//   P are written from the factored matrix as the reference writes them. The scratch buffers w
//   and ip have the reference's names, sizes and contents (W of the last matrix; its pivots, and
//   with pivoting its perm), so kbx's stage diff can compare them.
//
// Why bit-identical to reference.cu (its f64 factor W, its pivots, hence P, L, U): every element
// of W takes the same operations in the same order as in the reference.
//   - pivots: the same total order on candidates (|value| larger wins, the smaller row on a tie,
//     NaN never, an all-NaN column keeps row j), over the same values, so the same rows.
//   - in-panel (the panel's columns, all rows): multiplier l = a / pivot (IEEE division; a zero
//     pivot leaves a unscaled, as the reference's `if (d != 0.0)`), then every active row takes
//     c = fma(-l, u, c) for each later panel column, column after column, as the reference's
//     `W[i, c] -= W[i, j] * W[j, c]`, which ptxas contracts to DFMA c - l u (nvcc 13.0, sm_90:
//     the 14 mul.f64 / sub.f64 pairs of reference.cu's PTX become DFMA in its SASS, 11 DMUL left,
//     all in the division sequences; with -fmad=false 25 DMUL). A zero pivot's column still
//     updates (with the unscaled l), as the reference.
//   - U12 (the panel's rows right of it): forward substitution x_i = fma(-L_iq, x_q, x_i) for
//     q = 0 .. i-1 in order, as the reference's tri_block_solve (`v -= Ts[lane][i] * xi`, DFMA).
//   - A22: the reference's gemm_sub sums acc = fma(l, u, acc) from +0 over the panel's 32 depths
//     in order (depths >= K zero-filled), then C -= acc once. The tiles here do exactly that
//     (same zero fill, same depth order, then one subtraction), not the fused-from-C order that
//     det's reference uses for its former reference.
//   - row exchanges only move values; P from the same pivots in the same order.
//
// Expected speed (an estimate, not measured): ~1.5-2 us per column (a grid barrier and two L2
// round trips) plus three barriers per panel; the tiles (2/3 n^3 f64 flop, 2.4 GFLOP at n = 1536)
// are ~0.1-0.2 ms. n = 1536 ~3 ms, over the 11 perf rows (9,856 columns) ~17-22 ms against the
// reference's ~114 ms: ~5-6x faster, about PyTorch's time.
//
// Checked on an H200 (2026-12-03), swapped in on a copy of the catalogue
// (bench/h200_steps.sh X): tools/crosscheck.py against PyTorch, 64/64 outputs pass (max err 7.6e-05);
// tests/gpu/check_task.sh: this kernel, the former reference and every example give their
// announced verdicts. Before that: It compiles with NVRTC for sm_90 and passes kbx's
// ABI check (tests/corpus/test_corpus, KBX_CORPUS=full, on a catalogue of lu and fused_lu_solve);
// nvcc 13.0 -Xptxas -v: 255 registers, 48 bytes of spill stores. A block-level C emulation of this
// kernel (a program in /tmp, not kept: the blocks' chunks with 132 blocks and with 1, 2, 3, 7;
// candidate publication and reduction, lidx, the source map, the left swaps, the register TRSM,
// the 64 x 64 tiles with their zero fill, perm) against a C emulation of reference.cu (block 0's
// panel, the swaps, tri_block_solve, gemm_sub's acc-from-zero order), both with C's correctly
// rounded fma() and NaN counted equal to NaN (x86 NaN payloads follow operand order), on kbx's
// own inputs (drawn with libkbxcore's gen_fill at seed 0): every case of task.ini (all block
// counts), diagdom(1) perf shapes n = 256, 640, 1536 (132 and 1 blocks), and randn 300 / 1000,
// uniform 513, tall 600 x 130, wide 3 x 97 x 400 (swaps at nearly every step), special (NaN /
// inf) 2 x 70 x 70 and a no-pivot 40 x 50, integer ties 50, rank-deficient 65 (63 zero pivots)
// and 40 (37): P, L, U, the pivots and the f64 factor W bit-identical on every one. The
// comparison can see a difference: with det's tile order (from C) the emulated W differs on
// square_65, tall_70x40, wide_33x65_nopivot, square_200_nopivot, prime_257 and perf 256.
//
// @kbx scratch w f64 [max(1, m * n)]
// @kbx scratch ip i64 [max(1, 2 * m)]
// @kbx scratch ex f64 [69632]
// @kbx launch lu_fast64<<<sms, 256, max(34304, 9472 + cdiv(m, sms) * 260) + 8 * cdiv(m, 2)>>>(a, p, l, u, w, ip, ex, batch, m, n, pivot) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define NWARPS (THREADS / 32)
#define NB 32	  // panel width: columns factored per panel, the depth of each trailing update
#define BM 64	  // trailing-update tile rows
#define BN 64	  // trailing-update tile columns
#define TM 4	  // rows per thread in a tile: ty + 16 r
#define TN 4	  // columns per thread in a tile: tx + 16 q
#define MAXG 1024 // most blocks the exchange buffer has slots for
#define FULL 0xffffffffu
#define NOIDX 0x7fffffff

// Dynamic shared memory, all of it: Smem in the first HDR_BYTES, then perm (m ints, rounded up to
// 8 bytes), then a region used by the panel (sU, then the block's panel rows and their logical
// rows: 260 bytes a row) and, in turn, by the trailing update (As, Bs). The launch asks for
// HDR_BYTES + max(UPD, SU + cdiv(m, sms) * 260) + 8 cdiv(m, 2)
// = max(34304, 9472 + cdiv(m, sms) * 260) + 8 cdiv(m, 2).
#define HDR_BYTES 1024
#define UPD_DOUBLES (BM * (NB + 1) + NB * BN) // As + Bs: 4160 doubles, 33280 bytes
#define SU_DOUBLES (NB * (NB + 1))	      // sU: 1056 doubles, 8448 bytes

// ex (global scratch, f64): two parities of [MAXG] candidate headers (|value|, logical row as
// the bits of a long long) and [MAXG][NB] candidate rows; step j reads parity j & 1 and writes
// the other one. 4 * MAXG + 2 * MAXG * NB = 69632 doubles.
#define HDR(par, b) (ex + ((par) * MAXG + (b)) * 2)
#define ROW(par, b) (ex + 4 * MAXG + ((par) * MAXG + (b)) * NB)

// (v, i) beats (bv, bi): the larger |value|, on a tie the smaller logical row (the first
// maximum, as the reference); NaN never wins (v > bv and v == bv are both false). A total order
// on the non-NaN candidates, so every block reduces them to the same winner in any order.
__device__ __forceinline__ bool beats(double v, int i, double bv, int bi)
{
	return v > bv || (v == bv && i < bi);
}

struct Smem {
	double prow[NB];   // this step's pivot row (its 32 panel entries)
	double wv[NWARPS]; // per-warp partial reductions
	int wi[NWARPS], wr[NWARPS], wown[NWARPS], ww[NWARPS];
	int srcP[NB];		    // after the swaps, row k0 + i holds the old row srcP[i]
	int extDst[NB], extSrc[NB]; // the same for the rows >= k1 that the swaps touch
	int next;		    // number of ext entries
	int win, p, mycand;	    // the winning block and logical row; my published local row
};
static_assert(sizeof(Smem) <= HDR_BYTES, "Smem outgrew its slot");

// Each block's best pivot candidate for logical column jl (panel column jc) among its active
// rows (logical row >= jl), published with its 32 panel entries to parity par. A block with no
// candidate (all NaN) that holds the row at logical jl publishes that row with -0.5, so an
// all-NaN column keeps the diagonal, as the reference; without pivoting only that row is
// published (with 0).
__device__ void find_publish(Smem& S, double* ex, const double* slice, const int* lidx, int nr, int jc, int jl,
			     int par, int pivot)
{
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	double bv = -1.0;
	int bi = NOIDX, br = -1, own = -1;
	for (int r = tid; r < nr; r += THREADS) {
		const int li = lidx[r];
		if (li < jl)
			continue; // retired: a row of U already
		if (li == jl)
			own = r;
		const double v = fabs(slice[r * NB + jc]);
		if (pivot && beats(v, li, bv, bi)) {
			bv = v;
			bi = li;
			br = r;
		}
	}
	for (int off = 16; off > 0; off >>= 1) {
		const double ov = __shfl_xor_sync(FULL, bv, off);
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
		bv = lane < NWARPS ? S.wv[lane] : -1.0;
		bi = lane < NWARPS ? S.wi[lane] : NOIDX;
		br = lane < NWARPS ? S.wr[lane] : -1;
		own = lane < NWARPS ? S.wown[lane] : -1;
		for (int off = 16; off > 0; off >>= 1) {
			const double ov = __shfl_xor_sync(FULL, bv, off);
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
		if (br < 0 && own >= 0) { // no candidate (all NaN, or no pivoting): the row at jl
			bv = pivot ? -0.5 : 0.0;
			bi = jl;
			br = own;
		}
		if (lane == 0) {
			double* h = HDR(par, blockIdx.x);
			h[0] = bv;
			h[1] = __longlong_as_double(br < 0 ? NOIDX : bi);
			S.mycand = br;
		}
		if (br >= 0) // NB == 32: one column per lane
			ROW(par, blockIdx.x)[lane] = slice[br * NB + lane];
	}
}

// The winner over all blocks' candidates of parity par (every block finds the same one): its
// row goes to S.prow and to the panel's pivot rows sU[jj], its block to S.win, its row to S.p.
__device__ void reduce_winner(Smem& S, const double* ex, double (*sU)[NB + 1], int jj, int par)
{
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, G = gridDim.x;
	double bv = -2.0;
	int bi = NOIDX, bw = -1;
	for (int t = tid; t < G; t += THREADS) {
		const double2 h = __ldcg(reinterpret_cast<const double2*>(HDR(par, t)));
		const int i = (int)__double_as_longlong(h.y);
		if (beats(h.x, i, bv, bi)) {
			bv = h.x;
			bi = i;
			bw = t;
		}
	}
	for (int off = 16; off > 0; off >>= 1) {
		const double ov = __shfl_xor_sync(FULL, bv, off);
		const int oi = __shfl_xor_sync(FULL, bi, off);
		const int ow = __shfl_xor_sync(FULL, bw, off);
		if (beats(ov, oi, bv, bi)) {
			bv = ov;
			bi = oi;
			bw = ow;
		}
	}
	if (lane == 0) {
		S.wv[warp] = bv;
		S.wi[warp] = bi;
		S.ww[warp] = bw;
	}
	__syncthreads();
	if (warp == 0) {
		bv = lane < NWARPS ? S.wv[lane] : -2.0;
		bi = lane < NWARPS ? S.wi[lane] : NOIDX;
		bw = lane < NWARPS ? S.ww[lane] : -1;
		for (int off = 16; off > 0; off >>= 1) {
			const double ov = __shfl_xor_sync(FULL, bv, off);
			const int oi = __shfl_xor_sync(FULL, bi, off);
			const int ow = __shfl_xor_sync(FULL, bw, off);
			if (beats(ov, oi, bv, bi)) {
				bv = ov;
				bi = oi;
				bw = ow;
			}
		}
		bw = max(bw, 0); // the block holding logical row jl always publishes >= -0.5
		const double rv = __ldcg(ROW(par, bw) + lane);
		S.prow[lane] = rv;
		sU[jj][lane] = rv;
		if (lane == 0) {
			S.win = bw;
			S.p = bi;
		}
	}
	__syncthreads();
}

// One tile's L21 (pa) and U12 (pb) values into registers; depths kk >= K, rows >= M and
// columns >= N read as 0, as the reference's gemm_sub fills them.
__device__ __forceinline__ void tile_load(const double* W, long long ld, int k0, int k1, int K, int M, int N, int t,
					  int tilesN, double pa[8], double pb[8])
{
	const int tid = threadIdx.x;
	const int i0 = (t / tilesN) * BM, j0 = (t % tilesN) * BN;
	const int ka = tid % 32, ia = i0 + tid / 32; // pa[s]: As[tid / 32 + 8 s][ka]
#pragma unroll
	for (int s = 0; s < 8; s++) {
		const int i = ia + 8 * s;
		pa[s] = (ka < K && i < M) ? W[(long long)(k1 + i) * ld + k0 + ka] : 0.0;
	}
	const int jb = j0 + tid % 64, kb0 = tid / 64; // pb[s]: Bs[kb0 + 4 s][tid % 64]
#pragma unroll
	for (int s = 0; s < 8; s++) {
		const int kb = kb0 + 4 * s;
		pb[s] = (kb < K && jb < N) ? W[(long long)(k0 + kb) * ld + k1 + jb] : 0.0;
	}
}

// W[k1:k1+M, k1:k1+N] -= W[k1:k1+M, k0:k1] W[k0:k1, k1:k1+N] (ld = row stride) on 64 x 64 tiles
// over the grid, 256 threads of 4 x 4 outputs, in the reference's order: acc = fma(l, u, acc)
// from +0 for kk = 0 .. 31 (zero-filled beyond K), then c - acc once. The next tile's L21 / U12
// values are loaded into registers while this one is computed. (Loading C ahead as well made
// ptxas spill in the tile loop at 255 registers; C is read at the subtraction instead.)
__device__ void trailing_update(double* big, double* W, long long ld, int k0, int k1, int M, int N)
{
	double(*As)[NB + 1] = reinterpret_cast<double(*)[NB + 1]>(big);
	double(*Bs)[BN] = reinterpret_cast<double(*)[BN]>(big + BM * (NB + 1));
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16, K = k1 - k0, G = gridDim.x;
	const int tilesN = (N + BN - 1) / BN, T = ((M + BM - 1) / BM) * tilesN;
	double pa[8], pb[8];
	int t = blockIdx.x;
	if (t < T)
		tile_load(W, ld, k0, k1, K, M, N, t, tilesN, pa, pb);
	for (; t < T; t += G) {
		__syncthreads(); // the previous tile's reads of As / Bs are done
#pragma unroll
		for (int s = 0; s < 8; s++) {
			As[tid / 32 + 8 * s][tid % 32] = pa[s];
			Bs[tid / 64 + 4 * s][tid % 64] = pb[s];
		}
		__syncthreads();
		if (t + G < T)
			tile_load(W, ld, k0, k1, K, M, N, t + G, tilesN, pa, pb);
		double acc[TM][TN];
#pragma unroll
		for (int r = 0; r < TM; r++)
#pragma unroll
			for (int q = 0; q < TN; q++)
				acc[r][q] = 0.0;
#pragma unroll 8
		for (int kk = 0; kk < NB; kk++) {
			double av[TM], bv[TN];
#pragma unroll
			for (int r = 0; r < TM; r++)
				av[r] = As[ty + 16 * r][kk];
#pragma unroll
			for (int q = 0; q < TN; q++)
				bv[q] = Bs[kk][tx + 16 * q];
#pragma unroll
			for (int r = 0; r < TM; r++)
#pragma unroll
				for (int q = 0; q < TN; q++)
					acc[r][q] = fma(av[r], bv[q], acc[r][q]);
		}
		const int i0 = (t / tilesN) * BM, j0 = (t % tilesN) * BN;
#pragma unroll
		for (int r = 0; r < TM; r++) {
			const int i = i0 + ty + 16 * r;
			if (i < M) {
				double* row = W + (long long)(k1 + i) * ld + k1;
#pragma unroll
				for (int q = 0; q < TN; q++) {
					const int j = j0 + tx + 16 * q;
					if (j < N)
						row[j] -= acc[r][q]; // c - acc, once
				}
			}
		}
	}
}

// In-place LU of W [m, n] (row-major f64, row stride n) with partial pivoting (pivot) or none,
// as the reference's lu_factor: on return W holds L strictly below the diagonal and U on and
// above it, piv[j] (j < min(m, n)) the row exchanged with row j at step j, and with pivoting
// perm (every block's shared copy) the row of A at each row. The whole grid must call it.
__device__ void lu_factor64(cg::grid_group& grid, Smem& S, double* big, int* perm, double* W, int m, int n, int pivot,
			    long long* piv, double* ex)
{
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, G = gridDim.x, b = blockIdx.x;
	const long long gtid = (long long)b * THREADS + tid, gstride = (long long)G * THREADS;
	const long long ld = n;
	const int kmin = m < n ? m : n;
	double(*sU)[NB + 1] = reinterpret_cast<double(*)[NB + 1]>(big); // L11 \ U11
	double* slice = big + SU_DOUBLES; // [chunk][NB]: this block's panel rows

	for (int k0 = 0; k0 < kmin; k0 += NB) {
		const int mb = min(NB, kmin - k0), k1 = k0 + mb;
		// the panel's rows k0 .. m-1 in contiguous chunks, one per block, kept in place in
		// shared memory; lidx[r] is the logical (the reference's) row of local row r
		const int chunk = (m - k0 + G - 1) / G, rb = k0 + b * chunk;
		const int nr = max(0, min(chunk, m - rb));
		int* lidx = reinterpret_cast<int*>(slice + chunk * NB);
		for (int e = tid; e < nr * NB; e += THREADS) {
			const int r = e / NB, c = e % NB;
			slice[e] = c < mb ? W[(long long)(rb + r) * ld + k0 + c] : 0.0;
		}
		for (int r = tid; r < nr; r += THREADS)
			lidx[r] = rb + r;
		if (tid < NB)
			S.srcP[tid] = k0 + tid;
		if (tid == 0)
			S.next = 0;
		__syncthreads();
		find_publish(S, ex, slice, lidx, nr, 0, k0, 0, pivot);
		grid.sync();

		for (int jj = 0; jj < mb; jj++) {
			const int j = k0 + jj, par = jj & 1;
			reduce_winner(S, ex, sU, jj, par);
			const int p = S.p;
			const double pv = S.prow[jj];
			const int wr = S.win == b ? S.mycand : -1; // my local row that won, if any
			if (tid == 0) {
				if (b == 0)
					piv[j] = p;
				if (pivot) {
					const int t = perm[j];
					perm[j] = perm[p];
					perm[p] = t;
				}
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
			}
			// my rows: the winner retires at logical j, the row that was at j moves to p; the
			// active rows get l = a / pivot (a zero pivot: l = a, unscaled) and the in-panel
			// update c = fma(-l, u, c), zero pivot or not, as the reference
			for (int r = warp; r < nr; r += NWARPS) {
				const int li = lidx[r];
				const int nli = r == wr ? j : (li == j ? p : li);
				const double x = slice[r * NB + lane], ajj = slice[r * NB + jj];
				__syncwarp();
				if (nli > j) {
					const double l = pv != 0.0 ? ajj / pv : ajj;
					if (lane == jj)
						slice[r * NB + lane] = l;
					else if (lane > jj && lane < mb)
						slice[r * NB + lane] = fma(-l, S.prow[lane], x);
				}
				if (lane == 0)
					lidx[r] = nli;
			}
			__syncthreads();
			if (jj + 1 < mb) {
				find_publish(S, ex, slice, lidx, nr, jj + 1, j + 1, par ^ 1, pivot);
				grid.sync();
			}
		}

		// the panel back in logical row order (L21, and the rows of L11 \ U11)
		for (int e = tid; e < nr * mb; e += THREADS) {
			const int r = e / mb, c = e % mb;
			W[(long long)lidx[r] * ld + k0 + c] = slice[r * NB + c];
		}
		// the other columns, one thread each: the panel's row exchanges (the source map), left
		// of the panel too (L's rows follow them, as in the reference); right of the panel
		// U12 = L11^-1 A12 by forward substitution in the reference's order
		const int nright = n - k1, nleft = pivot ? k0 : 0, next = S.next;
		for (long long t = gtid; t < nright + nleft; t += gstride) {
			const int c = t < nright ? k1 + (int)t : (int)t - nright;
			const bool right = c >= k1; // left of the panel only the rows that move
			double x[NB], y[NB];
#pragma unroll
			for (int i = 0; i < NB; i++)
				if (i < mb && (right || S.srcP[i] != k0 + i))
					x[i] = W[(long long)S.srcP[i] * ld + c];
#pragma unroll
			for (int e = 0; e < NB; e++)
				if (e < next)
					y[e] = W[(long long)S.extSrc[e] * ld + c];
#pragma unroll
			for (int e = 0; e < NB; e++)
				if (e < next)
					W[(long long)S.extDst[e] * ld + c] = y[e];
			if (right) {
#pragma unroll
				for (int i = 1; i < NB; i++)
					if (i < mb) {
						double v = x[i];
#pragma unroll
						for (int q = 0; q < i; q++)
							v = fma(-sU[i][q], x[q], v);
						x[i] = v;
					}
			}
#pragma unroll
			for (int i = 0; i < NB; i++)
				if (i < mb && (right || S.srcP[i] != k0 + i))
					W[(long long)(k0 + i) * ld + c] = x[i];
		}
		grid.sync();
		if (k1 < m && k1 < n)
			trailing_update(big, W, ld, k0, k1, m - k1, n - k1);
		grid.sync();
	}
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
lu_fast64(const float* __restrict__ a, float* __restrict__ p, float* __restrict__ l, float* __restrict__ u, double* w,
	  long long* ip, double* ex, long long batch, long long m, long long n, int pivot)
{
	cg::grid_group grid = cg::this_grid();
	extern __shared__ __align__(16) double dyn[];
	Smem& S = *reinterpret_cast<Smem*>(dyn);
	int* perm = reinterpret_cast<int*>(dyn + HDR_BYTES / 8); // [m], the same in every block
	double* big = dyn + HDR_BYTES / 8 + (m + 1) / 2;

	const int M = (int)m, N = (int)n, K = M < N ? M : N, G = gridDim.x;
	const long long k = K;
	const long long gtid = (long long)blockIdx.x * THREADS + threadIdx.x, gstride = (long long)G * THREADS;
	for (long long bi = 0; bi < batch; bi++) {
		for (long long e = gtid; e < m * n; e += gstride)
			w[e] = (double)a[bi * m * n + e];
		for (int r = threadIdx.x; r < M; r += THREADS)
			perm[r] = r;
		grid.sync();
		lu_factor64(grid, S, big, perm, w, M, N, pivot, ip, ex);
		__syncthreads();
		float* L = l + bi * m * k;
		float* U = u + bi * k * n;
		for (long long e = gtid; e < m * k; e += gstride) {
			const long long i = e / k, j = e % k;
			L[e] = i > j ? (float)w[i * n + j] : (i == j ? 1.0f : 0.0f);
		}
		for (long long e = gtid; e < k * n; e += gstride) {
			const long long i = e / n, j = e % n;
			U[e] = j >= i ? (float)w[i * n + j] : 0.0f;
		}
		if (pivot) { // A = P L U: P[perm[r], r] = 1, as the reference
			float* P = p + bi * m * m;
			for (long long e = gtid; e < m * m; e += gstride)
				P[e] = perm[e % m] == e / m ? 1.0f : 0.0f;
			if (blockIdx.x == 0) // the reference's perm, beside its pivots in ip
				for (int r = threadIdx.x; r < M; r += THREADS)
					ip[m + r] = perm[r];
		}
		grid.sync(); // w, ip and perm are reused by the next matrix
	}
}
