// Fusion/fused_lu_solve: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// fused_lu_solve: the reference's f64 LU and substitutions, blocked and parallel (a candidate
// for the reference, as det's reference.cu became on 2026-12-03).
//
// Reference (reference.cu): lu_factor is an unblocked right-looking getrf in f64, two grid
// barriers per column, the whole trailing matrix read and written through global memory per
// column (n^3 / 3 f64 read-modify-writes, ~370 GB at n = 4096, far beyond L2); lu_solve runs
// both substitutions in one block reading L and U column by column (uncoalesced). ~466 ms over
// the perf rows (n = 256 .. 4096) on an H200, against PyTorch's ~45 ms.
//
// New kernel: one cooperative kernel.
//   LU: det's reference.cu's f64 LU, unchanged in structure: 32-column panels whose rows are
//   split into contiguous chunks, one per block, held in shared memory (lidx[] tracks each row's
//   logical position); per column ONE grid barrier: every block publishes its best pivot candidate
//   (|value|, logical row, the row's 32 panel entries) to a double-buffered exchange area (ex),
//   after the barrier every block reduces them to the same winner (largest |.|, first logical
//   row on a tie, NaN never wins, an all-NaN column keeps the diagonal), scales and updates its
//   own rows and publishes the next candidate; the winners' rows are L11 \ U11 (sU). Then the
//   panel is written back in logical row order; one thread per column outside the panel applies
//   the panel's exchanges (a source map of <= 64 rows; left of the panel too, so that L ends in
//   its final row order, as the reference's whole-row swaps leave it) and, right of it, solves
//   U12 = L11^-1 A12 in registers; barrier; A22 -= L21 U12 on 64 x 64 f64 tiles; barrier.
//   lu_work then holds the reference's packed factorisation, lu_pivots its pivots, lu its f32
//   copy (the reference's three stages, same names and contents).
//   Solve (b not permuted, as the reference): forward L y = b by 32-row blocks, ONE grid barrier
//   each: every block solves the 32 x 32 unit-lower diagonal block in one warp (shuffles; block 0
//   stores the result), then the rows below, one thread each over the whole grid, take the
//   block's 32 columns; backward U x = y the same way from the bottom (the diagonal block's
//   x_k = y_k / u_kk, then the rows above). x rounded to f32 once.
//
// Why bit-identical to reference.cu (lu_work, lu_pivots, lu and x): each f64 value takes the
// reference's operations in the reference's order.
//   - pivots: the same total order on candidates (|value| larger wins, the smaller row on a tie,
//     NaN never, an all-NaN column keeps row k) over the same values, so the same rows.
//   - factor: the reference's element (i, j) takes l = a_ik / a_kk (IEEE division; a zero pivot
//     leaves l = a_ik unscaled) and a_ij = fma(-l_ik, u_kj, a_ij) for k = 0, 1, ... in order,
//     whole-row swaps moving values between steps. Here: the in-panel update (the same fma per
//     panel column in order), U12's forward substitution (x_i = fma(-l_iq, x_q, x_i), q in
//     order) and the tiles (each accumulator starts FROM its C value and takes fma(-l, u, c) for
//     the panel's depths in order; depths beyond the panel read 0 and fma(-0, 0, c) = c exactly)
//     give every element the same sequence; applying a panel's exchanges to the columns outside
//     it before their updates only moves whole rows together with their multipliers, as det's
//     reference (bit-identical to its unblocked former reference on an H200) does. Zero pivots
//     update with the unscaled column like the reference (det's skip is not copied).
//   - forward: y_i = fma(-l_ik, y_k, y_i) for k = 0 .. i-1 in increasing order (earlier 32-row
//     blocks first, then the diagonal block's lanes in order), as the reference's column loop.
//   - backward: y_i = fma(-u_ik, x_k, y_i) for k = n-1 down to i+1, x_k = y_k / u_kk, as the
//     reference's; the same division per k.
//
// Expected speed (an estimate, not measured): LU ~1.5-2 us a column (barrier-bound) below
// n ~ 2048; at n = 4096 the tiles (4.6e10 flop; C read and written once per panel, ~11.5 GB,
// the 134 MB matrix being beyond L2) add ~3-5 ms: n = 4096 ~10-14 ms (det's reference
// estimates ~10 ms for the same LU). The solve: 2 n / 32 barriers (~3 us each with the L2
// round trips), ~0.8 ms at n = 4096; the f32 `lu` stage copy ~0.05 ms. About 18-25 ms over the
// five perf rows against the reference's ~466 ms (~20x faster) and PyTorch's ~45 ms.
//
// A race, found and fixed 2026-12-04: the substitutions stored each solved 32-row block back
// into the vector the other blocks read it from in the same phase, so a block that reached the
// phase late solved an already solved block again. tests/gpu/gpu.sh on an H200 saw this kernel
// differ from itself at auto:n=4097 (3993 of 4097 elements of x, max abs 0.064; its factor
// stages equal) and, through it, pass_fast_blocked_lu.cu at n = 1009. Now ysol holds two
// vectors, the solved block goes to the one not being read (lu_solve64). After the fix, on the
// H200: tests/gpu/gpu.sh 714 of 714 sources, tests/gpu/repeat.sh four runs of each of this
// task's seven sources all with their announced verdicts.
//
// Checked on an H200 (2026-12-03), swapped in on a copy of the catalogue
// (bench/h200_steps.sh X): tools/crosscheck.py against PyTorch, 12/12 outputs pass (max err 3.1e-05);
// tests/gpu/check_task.sh: this kernel, the former reference and every example give their
// announced verdicts. Before that: It compiles with NVRTC for sm_90 and passes kbx's
// ABI check (tests/corpus/test_corpus, KBX_CORPUS=full, on a catalogue of lu and fused_lu_solve);
// nvcc 13.0 -Xptxas -v: 255 registers, 72 bytes of spill stores. A block-level C emulation of this
// kernel (a program in /tmp, not kept: the blocks' chunks with 132 blocks and with 1, 2, 3, 7;
// candidate publication and reduction, lidx, the source map, the left swaps, the register TRSM,
// the 64 x 64 tiles from C with their zero fill, the two blocked substitutions with the warp's
// diagonal solves) against a C emulation of reference.cu (unblocked getrf, its one-block
// column-oriented substitutions), both with C's correctly rounded fma() and NaN counted equal to
// NaN (x86 NaN payloads follow operand order), on kbx's own inputs (drawn with libkbxcore's
// gen_fill at seed 0): every case of task.ini (all block counts), diagdom(0.5) / uniform(0, 1)
// perf shapes n = 256, 512, 1024, 2048 (132 and 1 blocks) and 4096 (132 blocks), and randn 97 /
// 300, uniform 1000 (a swap at nearly every step), special (NaN / inf) 70, integer ties 50,
// singular (zero pivots) 65 and 40: lu_work, lu_pivots, lu and x bit-identical on every one.
// The comparison can see a difference: with lu's tile order (acc from 0, then c - acc) the
// emulated factor differs on randn 97 / 300 and perf 256; without the left swaps x is off by
// 6e7 tolerances on randn 300.
//
// @kbx scratch lu_work f64 [n, n]
// @kbx scratch lu_pivots i64 [n]
// @kbx scratch lu f32 [n, n]
// @kbx scratch ex f64 [69632]
// @kbx scratch ysol f64 [max(2, 2 * n)]
// @kbx launch fused_lu_solve64<<<sms, 256, max(34304, 9472 + cdiv(n, sms) * 260)>>>(A, b, x, lu_work, lu_pivots, lu, ex, ysol, n) cooperative

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

// Dynamic shared memory, all of it: Smem in the first HDR_BYTES, then a region used by the panel
// (sU, then the block's panel rows and their logical rows: 260 bytes a row), in turn by the
// trailing update (As, Bs) and by the solve (Ts, sy). The launch asks for
// HDR_BYTES + max(UPD, SU + cdiv(n, sms) * 260) = max(34304, 9472 + cdiv(n, sms) * 260).
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

// One trailing-update tile into registers: L21 (pa), U12 (pb) and C (pc). Depths kk >= K read
// as 0 in both L21 and U12, so that fma(-0, 0, c) leaves every c as it is (+-0, inf and NaN
// too). (Unlike det's reference, a zero pivot's depth is not skipped: the reference updates with
// its unscaled column, as getf2.)
__device__ __forceinline__ void tile_load(const double* W, long long ld, int k0, int k1, int K,
					  int M, int N, int t, int tilesN,
					  double pa[8], double pb[8], double pc[TM][TN])
{
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const int i0 = (t / tilesN) * BM, j0 = (t % tilesN) * BN;
	const int ka = tid % 32, ia = i0 + tid / 32; // pa[s]: As[tid / 32 + 8 s][ka]
	const bool oka = ka < K;
#pragma unroll
	for (int s = 0; s < 8; s++) {
		const int i = ia + 8 * s;
		pa[s] = (oka && i < M) ? W[(long long)(k1 + i) * ld + k0 + ka] : 0.0;
	}
	const int jb = j0 + tid % 64, kb0 = tid / 64; // pb[s]: Bs[kb0 + 4 s][tid % 64]
#pragma unroll
	for (int s = 0; s < 8; s++) {
		const int kb = kb0 + 4 * s;
		const bool ok = kb < K && jb < N;
		pb[s] = ok ? W[(long long)(k0 + kb) * ld + k1 + jb] : 0.0;
	}
#pragma unroll
	for (int r = 0; r < TM; r++) {
		const int i = i0 + ty + 16 * r;
#pragma unroll
		for (int q = 0; q < TN; q++) {
			const int j = j0 + tx + 16 * q;
			pc[r][q] = (i < M && j < N) ? W[(long long)(k1 + i) * ld + k1 + j] : 0.0;
		}
	}
}

// W[k1:k1+M, k1:k1+N] -= W[k1:k1+M, k0:k1] W[k0:k1, k1:k1+N] (ld = row stride) on 64 x 64 tiles
// over the grid, 256 threads of 4 x 4 outputs. Each output starts from its C value and takes
// c = fma(-l, u, c) for kk = 0, 1, ..., 31 in order: the reference's own sequence of operations
// on that element. The next tile is loaded into registers while this one is computed.
__device__ void trailing_update(double* big, double* W, long long ld, int k0, int k1, int M,
				int N)
{
	double(*As)[NB + 1] = reinterpret_cast<double(*)[NB + 1]>(big);
	double(*Bs)[BN] = reinterpret_cast<double(*)[BN]>(big + BM * (NB + 1));
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16, K = k1 - k0, G = gridDim.x;
	const int tilesN = (N + BN - 1) / BN, T = ((M + BM - 1) / BM) * tilesN;
	double pa[8], pb[8], pc[TM][TN];
	int t = blockIdx.x;
	if (t < T)
		tile_load(W, ld, k0, k1, K, M, N, t, tilesN, pa, pb, pc);
	for (; t < T; t += G) {
		__syncthreads(); // the previous tile's reads of As / Bs are done
#pragma unroll
		for (int s = 0; s < 8; s++) {
			As[tid / 32 + 8 * s][tid % 32] = pa[s];
			Bs[tid / 64 + 4 * s][tid % 64] = pb[s];
		}
		double acc[TM][TN];
#pragma unroll
		for (int r = 0; r < TM; r++)
#pragma unroll
			for (int q = 0; q < TN; q++)
				acc[r][q] = pc[r][q];
		__syncthreads();
		if (t + G < T)
			tile_load(W, ld, k0, k1, K, M, N, t + G, tilesN, pa, pb, pc);
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
					acc[r][q] = fma(-av[r], bv[q], acc[r][q]);
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
						row[j] = acc[r][q];
				}
			}
		}
	}
}


// In-place LU of W [n, n] (row-major f64) with partial pivoting, as the reference's lu_factor:
// on return W holds L strictly below the diagonal and U on and above it, piv[j] the row
// exchanged with row j at step j. The whole grid must call it.
__device__ void lu_factor64(cg::grid_group& grid, Smem& S, double* big, double* W, int N, long long* piv, double* ex)
{
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, G = gridDim.x, b = blockIdx.x;
	const long long gtid = (long long)b * THREADS + tid, gstride = (long long)G * THREADS;
	const long long ld = N;
	double(*sU)[NB + 1] = reinterpret_cast<double(*)[NB + 1]>(big); // L11 \ U11
	double* slice = big + SU_DOUBLES; // [chunk][NB]: this block's panel rows

	for (int k0 = 0; k0 < N; k0 += NB) {
		const int mb = min(NB, N - k0), k1 = k0 + mb;
		// the panel's rows k0 .. N-1 in contiguous chunks, one per block, kept in place in
		// shared memory; lidx[r] is the logical (the reference's) row of local row r
		const int chunk = (N - k0 + G - 1) / G, rb = k0 + b * chunk;
		const int nr = max(0, min(chunk, N - rb));
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
		find_publish(S, ex, slice, lidx, nr, 0, k0, 0, 1);
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
				find_publish(S, ex, slice, lidx, nr, jj + 1, j + 1, par ^ 1, 1);
				grid.sync();
			}
		}

		// the panel back in logical row order (L21, and the rows of L11 \ U11)
		for (int e = tid; e < nr * mb; e += THREADS) {
			const int r = e / mb, c = e % mb;
			W[(long long)lidx[r] * ld + k0 + c] = slice[r * NB + c];
		}
		// the other columns, one thread each: the panel's row exchanges (the source map), left
		// of the panel too (L's rows follow them, as the reference's whole-row swaps); right of
		// the panel U12 = L11^-1 A12 by forward substitution in the reference's order
		const int nright = N - k1, nleft = k0, next = S.next;
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
		if (k1 < N)
			trailing_update(big, W, ld, k0, k1, N - k1, N - k1);
		grid.sync();
	}
}

// x = U^-1 (L^-1 b) on the factored W, b not permuted, in the reference's order (see the
// header). ys (global f64 [2 n]) holds two vectors: the running right-hand side and the solved
// values. Blocks of 32 rows, one grid barrier each; every block solves the diagonal block in
// warp 0 (Ts: the block's triangle, sy: the solved values), block 0 stores it, and the rows
// beyond it, one thread each over the whole grid, take its 32 columns in order. Block 0 stores
// the solved block in the OTHER vector than the one every block reads it from in the same
// phase: stored in place, a block that reaches the phase late reads a value already solved and
// solves it again (seen on an H200: x differed between two runs at n = 4097). The forward
// solve reads rhs (b, updated) and stores y; the backward solve reads y (updated) and stores x
// in rhs's place. The whole grid must call it.
__device__ void lu_solve64(cg::grid_group& grid, double* big, const double* W, const float* bvec, float* x,
			   double* ys, int N)
{
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, G = gridDim.x, b = blockIdx.x;
	const long long gtid = (long long)b * THREADS + tid, gstride = (long long)G * THREADS;
	const long long ld = N;
	double(*Ts)[NB + 1] = reinterpret_cast<double(*)[NB + 1]>(big);
	double* sy = big + NB * (NB + 1);
	double* rhs = ys;	 // forward: b, then updated rows; backward: x
	double* yv = ys + N;	 // forward: y as solved; backward: y, then updated rows
	// my rows beyond a diagonal block: index t = b + G tid, b + G tid + G THREADS, ...
	const long long t0 = b + (long long)G * tid, tstep = gstride;

	for (long long e = gtid; e < N; e += gstride)
		rhs[e] = (double)bvec[e];
	grid.sync();
	// forward: L y = b, L unit lower triangular
	for (int r0 = 0; r0 < N; r0 += NB) {
		const int mb = min(NB, N - r0), r1 = r0 + mb;
		for (int e = tid; e < NB * NB; e += THREADS) {
			const int i = e / NB, q = e % NB;
			Ts[i][q] = (i < mb && q < i) ? W[(long long)(r0 + i) * ld + r0 + q] : 0.0;
		}
		__syncthreads();
		if (warp == 0) {
			double v = lane < mb ? __ldcg(rhs + r0 + lane) : 0.0;
			for (int q = 0; q < mb; q++) {
				const double yq = __shfl_sync(FULL, v, q);
				if (lane > q)
					v = fma(-Ts[lane][q], yq, v);
			}
			sy[lane] = v;
			if (b == 0 && lane < mb)
				yv[r0 + lane] = v;
		}
		__syncthreads();
		for (long long t = t0; r1 + t < N; t += tstep) {
			const long long i = r1 + t;
			const double* Li = W + i * ld + r0;
			double v = __ldcg(rhs + i);
#pragma unroll
			for (int q = 0; q < NB; q++)
				if (q < mb)
					v = fma(-Li[q], sy[q], v);
			rhs[i] = v;
		}
		grid.sync();
	}
	// backward: U x = y, U upper triangular (non-unit)
	for (int r1 = N; r1 > 0; r1 -= NB) {
		const int r0 = max(0, r1 - NB), mb = r1 - r0;
		for (int e = tid; e < NB * NB; e += THREADS) {
			const int i = e / NB, q = e % NB;
			Ts[i][q] = (q < mb && q >= i) ? W[(long long)(r0 + i) * ld + r0 + q] : 0.0;
		}
		__syncthreads();
		if (warp == 0) {
			double v = lane < mb ? __ldcg(yv + r0 + lane) : 0.0;
			for (int q = mb - 1; q >= 0; q--) {
				const double xq = __shfl_sync(FULL, v, q) / Ts[q][q];
				if (lane == q)
					v = xq;
				else if (lane < q)
					v = fma(-Ts[lane][q], xq, v);
			}
			sy[lane] = v;
			if (b == 0 && lane < mb)
				rhs[r0 + lane] = v;
		}
		__syncthreads();
		for (long long t = t0; t < r0; t += tstep) {
			const double* Ui = W + t * ld + r0;
			double v = __ldcg(yv + t);
#pragma unroll
			for (int q = NB - 1; q >= 0; q--)
				if (q < mb)
					v = fma(-Ui[q], sy[q], v);
			yv[t] = v;
		}
		grid.sync();
	}
	for (long long e = gtid; e < N; e += gstride)
		x[e] = (float)__ldcg(rhs + e);
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
fused_lu_solve64(const float* __restrict__ A, const float* __restrict__ bvec, float* __restrict__ x, double* lu_work,
		 long long* lu_pivots, float* __restrict__ lu, double* ex, double* ysol, long long n)
{
	cg::grid_group grid = cg::this_grid();
	extern __shared__ __align__(16) double dyn[];
	Smem& S = *reinterpret_cast<Smem*>(dyn);
	double* big = dyn + HDR_BYTES / 8;
	const int N = (int)n;
	const long long gtid = (long long)blockIdx.x * THREADS + threadIdx.x, gstride = (long long)gridDim.x * THREADS;

	for (long long e = gtid; e < n * n; e += gstride)
		lu_work[e] = (double)A[e];
	grid.sync();
	lu_factor64(grid, S, big, lu_work, N, lu_pivots, ex);
	for (long long e = gtid; e < n * n; e += gstride) // the reference's f32 stage
		lu[e] = (float)lu_work[e];
	lu_solve64(grid, big, lu_work, bvec, x, ysol, N);
}
