// LinearAlgebra/det: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Reference: unblocked LU with partial pivoting in f64, one cooperative kernel with two grid
// barriers per column (16,384 at n = 8192) and a rank-1 update of the whole trailing matrix per
// column, so n^3 / 3 f64 read-modify-writes (~3 TB at n = 8192) go through HBM once the matrix
// outgrows L2: about 2,000 ms over the perf rows (n = 16 .. 8192 randn) on an H200, against
// PyTorch's 54 ms (in f32).
//
// New kernel: the same LU in f64 (on an f64 copy of a), blocked as in pass_fast_blocked_lu.cu:
// one cooperative kernel, 32-column panels.
//   panel: its rows are split into contiguous chunks, one per block, held in shared memory and
//   never moved (lidx[] tracks each row's logical position). Per column ONE grid barrier: every
//   block publishes its best pivot candidate (|value|, logical row, the row's 32 panel entries)
//   to a double-buffered exchange area (ex); after the barrier every block reduces the candidates
//   to the same winner (largest |.|, first logical row on a tie, NaN never wins, an all-NaN
//   column keeps the diagonal), scales and updates its own rows and publishes the next column's
//   candidate. The winners' rows are the panel's L11 \ U11, so every block has them.
//   then: the panel written back in logical row order; one thread per column right of the panel
//   applies the panel's row exchanges (a source map of <= 64 rows) and solves U12 = L11^-1 A12 in
//   registers; barrier; A22 -= L21 U12 on 64 x 64 tiles; barrier. 34 barriers per 32 columns.
// Tiles: 64 x 64, 256 threads of 4 x 4 outputs (16 f64 accumulators), K = 32 staged in shared
// memory, the next tile's L21 / U12 / C values loaded into registers while this one is computed
// (one block per SM, nothing else hides HBM latency). A 128 x 128 tile would need 64 f64
// accumulators (128 registers) a thread before the operands and the prefetch; 4 x 4 needs 8
// shared loads per 16 DFMA a k step, about the balance of the SM's shared-memory and f64 FMA
// rates, and 64 x 64 spreads the small late updates over more SMs. Resources (cuobjdump
// -res-usage on kbx's cubin): 255 registers, 40 bytes of stack; the tile loop has no local
// memory traffic (its SASS: 128 DFMA per 64 LDS.64); the spills are 3 doubles in the register
// TRSM and 3 loop variables once per panel.
//
// Precision: the reference's own arithmetic, element by element and in its order: every
// multiplier l = a / pivot (IEEE division), and every element takes one fused multiply-subtract
// c = fma(-l, u, c) per pivot column in column order: the in-panel update, the TRSM's forward
// substitution and the tiles (each accumulator starts from its C value rather than summing
// L21 U12 apart) all keep that order. A zero pivot leaves its column unscaled and skips its
// update as the reference (getf2): its depth reads as 0 in both L21 and U12 tiles, adding -0,
// which changes nothing (not a +-0, inf or NaN either). The reference's update compiles to DFMA
// (seen in its SASS). So the pivots, the exchanges and det = sign(P) * the product of the f64
// pivots in the reference's order should be bit-identical to the reference's, rounded to f32
// once (0 x 0: 1).
//
// Run on an H200 on 2026-12-03 (bench/h200_steps.sh X, before the swap): tools/crosscheck.py
// against PyTorch on every case passes (20 of 20 outputs), and tests/gpu/check_task.sh with every
// perf row passes it (the former reference, now examples/pass_former_reference.cu, and the two f32
// examples pass against it at every case and perf row; both wrong examples keep their verdict).
// Its speed through kbx is not measured yet (the estimate below stands).
//
// Checked before that: compiles with NVRTC for sm_90 and passes kbx's ABI check. A block-level
// numpy emulation (a script, not kept: the blocks'
// chunks, candidate exchange and reduction, lidx, the source map, TRSM, the 64 x 64 tiles with
// zero-filled depths; 132 blocks, and 1, 3, 7 on the smaller sizes), run once with a separate
// multiply and subtract and once (n <= 257) with a correctly rounded fma, against an f64
// emulation of the reference's unblocked LU under the same rounding: the task's cases, numpy
// draws standing in for kbx's generators (identity, rand, zeros, 2 x 2, randn and outlier 4 x 4,
// size 1, empty, diagdom 17 / 25 / 64 (+inf), both 257 tridiagonals, the swaps, singular equal
// rows), randn 40 / 97, ragged n = 1, 31, 33, 65, 130, 257, 1000, and NaN / inf / zero-column /
// rank-deficient matrices: every pivot, exchange and f64 det bit-identical (worst relative
// difference 0), so the f32 results too. The same emulation with the f32 example's tile order
// (L21 U12 summed apart, then subtracted) moves pivots by ulps and det by ~1e-14: the
// comparison can see such differences.
//
// Expected time (an estimate): each column step ~1.5-2 us (a grid barrier and two L2 round
// trips): at n = 8192 ~8,700 barriers, ~15 ms. The tiles' 2/3 n^3 = 3.7e11 flop take 11 ms at
// the H200's 34 TFLOP/s f64 FMA peak, ~20 ms at the ~50% assumed (8 warps an SM), but their C
// traffic (read and written once per panel, ~92 GB at n = 8192) is ~23 ms at ~4 TB/s: about
// 25 ms, memory-bound. n = 8192 ~40 ms, n = 4096 ~10 ms, n <= 2048 barrier-bound (~2 us a
// column): about 60 ms over the perf rows against the reference's ~2,000 ms.
//
// @kbx scratch w f64 [max(1, n * n)]
// @kbx scratch ex f64 [69632]
// @kbx launch det_lu64<<<sms, 256, max(34304, 9472+cdiv(n, sms)*260)>>>(a, w, ex, d, n) cooperative

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

// Dynamic shared memory, all of it (so that kbx's opt-in above 48 KiB covers the total): Smem
// in the first HDR_BYTES, then a region used by the panel (sU, then the block's panel rows and
// their logical rows: 260 bytes a row) and, in turn, by the trailing update (As, Bs). The launch
// asks for HDR_BYTES + max(UPD, SU + cdiv(n, sms) * 260) = max(34304, 9472 + cdiv(n, sms) * 260).
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
	double prow[NB];  // this step's pivot row (its 32 panel entries)
	double wv[NWARPS]; // per-warp partial reductions
	int wi[NWARPS], wr[NWARPS], wown[NWARPS], ww[NWARPS];
	int srcP[NB];		    // after the swaps, row k0 + i holds the old row srcP[i]
	int extDst[NB], extSrc[NB]; // the same for the rows >= k1 that the swaps touch
	int next;		    // number of ext entries
	int win, p, mycand;	    // the winning block and logical row; my published local row
	unsigned zmask;		    // bit jj: column k0 + jj had a zero pivot (skipped)
};
static_assert(sizeof(Smem) <= HDR_BYTES, "Smem outgrew its slot");

// Each block's best pivot candidate for logical column jl (panel column jc) among its active
// rows (logical row >= jl), published with its 32 panel entries to parity par. A block with no
// candidate (all NaN) that holds the row at logical jl publishes that row with -0.5, so an
// all-NaN column keeps the diagonal, as the reference.
__device__ void find_publish(Smem& S, double* ex, const double* slice, const int* lidx, int nr,
			     int jc, int jl, int par)
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
		if (beats(v, li, bv, bi)) {
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
		if (br < 0 && own >= 0) { // no candidate: the row at logical jl itself
			bv = -0.5;
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

// One trailing-update tile into registers: L21 (pa), U12 (pb) and C (pc). Depths kk >= K and
// the depths of zero pivots read as 0 in both L21 and U12, so that fma(-0, 0, c) leaves every c
// as it is (+-0, inf and NaN too): the reference skips those columns.
__device__ __forceinline__ void tile_load(const double* W, long long ld, int k0, int k1, int K,
					  int M, int N, unsigned zmask, int t, int tilesN,
					  double pa[8], double pb[8], double pc[TM][TN])
{
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const int i0 = (t / tilesN) * BM, j0 = (t % tilesN) * BN;
	const int ka = tid % 32, ia = i0 + tid / 32; // pa[s]: As[tid / 32 + 8 s][ka]
	const bool oka = ka < K && !((zmask >> ka) & 1u);
#pragma unroll
	for (int s = 0; s < 8; s++) {
		const int i = ia + 8 * s;
		pa[s] = (oka && i < M) ? W[(long long)(k1 + i) * ld + k0 + ka] : 0.0;
	}
	const int jb = j0 + tid % 64, kb0 = tid / 64; // pb[s]: Bs[kb0 + 4 s][tid % 64]
#pragma unroll
	for (int s = 0; s < 8; s++) {
		const int kb = kb0 + 4 * s;
		const bool ok = kb < K && !((zmask >> kb) & 1u) && jb < N;
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
				int N, unsigned zmask)
{
	double(*As)[NB + 1] = reinterpret_cast<double(*)[NB + 1]>(big);
	double(*Bs)[BN] = reinterpret_cast<double(*)[BN]>(big + BM * (NB + 1));
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16, K = k1 - k0, G = gridDim.x;
	const int tilesN = (N + BN - 1) / BN, T = ((M + BM - 1) / BM) * tilesN;
	double pa[8], pb[8], pc[TM][TN];
	int t = blockIdx.x;
	if (t < T)
		tile_load(W, ld, k0, k1, K, M, N, zmask, t, tilesN, pa, pb, pc);
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
			tile_load(W, ld, k0, k1, K, M, N, zmask, t + G, tilesN, pa, pb, pc);
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

extern "C" __global__ void __launch_bounds__(THREADS, 1)
det_lu64(const float* __restrict__ a, double* w, double* ex, float* __restrict__ d, long long n)
{
	cg::grid_group grid = cg::this_grid();
	extern __shared__ __align__(16) double dyn[];
	Smem& S = *reinterpret_cast<Smem*>(dyn);
	double* big = dyn + HDR_BYTES / 8;
	double(*sU)[NB + 1] = reinterpret_cast<double(*)[NB + 1]>(big); // L11 \ U11
	double* slice = big + SU_DOUBLES; // [cdiv(n, G)][NB]: this block's panel rows

	const int N = (int)n, G = gridDim.x, b = blockIdx.x, tid = threadIdx.x;
	const int lane = tid % 32, warp = tid / 32;
	const long long ld = n;
	const long long gtid = (long long)b * THREADS + tid, gstride = (long long)G * THREADS;
	for (long long e = gtid; e < n * n; e += gstride)
		w[e] = (double)a[e];
	grid.sync();

	double det = 1.0; // kept by thread 0 of block 0
	for (int k0 = 0; k0 < N; k0 += NB) {
		const int mb = min(NB, N - k0), k1 = k0 + mb;
		// the panel's rows k0 .. N-1 in contiguous chunks, one per block, kept in place in
		// shared memory; lidx[r] is the logical (the reference's) row of local row r
		const int chunk = (N - k0 + G - 1) / G, rb = k0 + b * chunk;
		const int nr = max(0, min(chunk, N - rb));
		int* lidx = reinterpret_cast<int*>(slice + chunk * NB);
		for (int e = tid; e < nr * NB; e += THREADS) {
			const int r = e / NB, c = e % NB;
			slice[e] = c < mb ? w[(long long)(rb + r) * ld + k0 + c] : 0.0;
		}
		for (int r = tid; r < nr; r += THREADS)
			lidx[r] = rb + r;
		if (tid < NB)
			S.srcP[tid] = k0 + tid;
		if (tid == 0) {
			S.next = 0;
			S.zmask = 0u;
		}
		__syncthreads();
		find_publish(S, ex, slice, lidx, nr, 0, k0, 0);
		grid.sync();

		for (int jj = 0; jj < mb; jj++) {
			const int j = k0 + jj, par = jj & 1;
			reduce_winner(S, ex, sU, jj, par);
			const int p = S.p;
			const double pv = S.prow[jj];
			const int wr = S.win == b ? S.mycand : -1; // my local row that won, if any
			if (tid == 0) {
				if (b == 0)
					det *= (p != j) ? -pv : pv;
				if (pv == 0.0)
					S.zmask |= 1u << jj;
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
			// my rows: the winner retires at logical j, the row that was at j moves
			// to p; the active rows get l = a / pivot and the in-panel rank-1 update;
			// a zero pivot leaves them alone, as the reference (NaN != 0 goes ahead)
			for (int r = warp; r < nr; r += NWARPS) {
				const int li = lidx[r];
				const int nli = r == wr ? j : (li == j ? p : li);
				const double x = slice[r * NB + lane], ajj = slice[r * NB + jj];
				__syncwarp();
				if (nli > j && pv != 0.0) {
					const double l = ajj / pv;
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
				find_publish(S, ex, slice, lidx, nr, jj + 1, j + 1, par ^ 1);
				grid.sync();
			}
		}

		// the panel back in logical row order (L21, and the rows of L11 \ U11)
		for (int e = tid; e < nr * mb; e += THREADS) {
			const int r = e / mb, c = e % mb;
			w[(long long)lidx[r] * ld + k0 + c] = slice[r * NB + c];
		}
		// right of the panel, one thread per column: the panel's row exchanges (the source
		// map), then U12 = L11^-1 A12 by forward substitution in the reference's order
		const int nright = N - k1, next = S.next;
		const unsigned zmask = S.zmask;
		for (long long t = gtid; t < nright; t += gstride) {
			const long long c = k1 + t;
			double x[NB], y[NB];
#pragma unroll
			for (int i = 0; i < NB; i++)
				if (i < mb)
					x[i] = w[(long long)S.srcP[i] * ld + c];
#pragma unroll
			for (int e = 0; e < NB; e++)
				if (e < next)
					y[e] = w[(long long)S.extSrc[e] * ld + c];
#pragma unroll
			for (int e = 0; e < NB; e++)
				if (e < next)
					w[(long long)S.extDst[e] * ld + c] = y[e];
#pragma unroll
			for (int i = 1; i < NB; i++)
				if (i < mb) {
					double v = x[i];
#pragma unroll
					for (int q = 0; q < i; q++)
						if (!((zmask >> q) & 1u))
							v = fma(-sU[i][q], x[q], v);
					x[i] = v;
				}
#pragma unroll
			for (int i = 0; i < NB; i++)
				if (i < mb)
					w[(long long)(k0 + i) * ld + c] = x[i];
		}
		grid.sync();
		if (k1 < N)
			trailing_update(big, w, ld, k0, k1, N - k1, N - k1, zmask);
		grid.sync();
	}
	if (gtid == 0)
		d[0] = (float)det;
}
