// Fusion/fused_cholesky_solve: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Faster alternative: a tiled right-looking Cholesky in f64 spread over the whole GPU (one
// cooperative kernel, one grid barrier per 32-column panel), with the forward substitution
// folded into the factorization and a blocked back substitution.
//
// What the reference does and why it is slow: chol_factor runs in ONE 1024-thread block: for
// each of the n columns it rewrites the whole trailing lower triangle in f64 through L2
// (sum (n - j)^2 = n^3 / 3 = 4.5e7 element updates at n = 512, each a global read-modify-write
// plus a 64-bit division for the index), then lower_solve and upper_solve take one 256-thread
// block per right-hand side and n steps of a block reduction / block barrier each. All of it
// is serial in one SM.
//
// What this kernel does (same f64 arithmetic, tiles of 32 x 32):
//   the matrix is padded to NP = 32 cdiv(n, 32) with an identity block (its Cholesky factor is
//   diag(L, I)), and the k right-hand sides are appended as extra rows NP .. NP + k - 1 of the
//   lower part (rows of b^T): the Cholesky of [[A, b], [b^T, *]] has y^T = (L^-1 b)^T in those
//   rows, so the forward substitution is computed by the same tile updates.
//   panel J (one grid barrier each): every block with work loads the diagonal tile A_JJ, one
//   warp factors it (lane i holds row i; 32 steps of shuffles, 1 / L_jj from one f64 rsqrt)
//   and inverts L_JJ (forward substitution row by row, shuffles again); then the blocks take the panel's items:
//   tile updates A_IK -= L_IJ L_KJ^T for J < K <= I (I over matrix and b rows), with
//   L_IJ = A_IJ L_JJ^-T computed as a 32 x 32 product with the inverse (each block computes the
//   two it needs), and writes of L_IJ (and of L_JJ, L_JJ^-1) to the factor.
//   back substitution L^T x = y: one block per right-hand side, 32 rows at a time from the
//   bottom: x_I = L_II^-T r_I (the stored inverse, a 32 x 32 product), then r[0:32 I] -=
//   L[32 I : 32 I + 32, 0:32 I]^T x_I (coalesced rows of L), two block barriers per step.
//   The stage buffers `cholesky` (L rounded to f32, zeros above) and `solve` (y rounded) are
//   written like the reference's, so a failure is localised by kbx's stage diff.
//
// Tolerance: all f64 like the reference (its chain is f64 and rounds x once; so does this
// one). Using the explicit inverse of a 32 x 32 diagonal block of L instead of substitution
// costs at most ~cond(L_JJ) 1e-16 relative, and the cases' spd(d) matrices have cond(A) <= 5,
// so x agrees with the reference's to ~1e-14, far inside rtol = atol = 1e-5. Only A's lower
// triangle is read (the upper part of the work tiles starts at 0 and is never read).
//
// Expected speed at n = 512, k = 1 (perf row 8): the arithmetic (n^3 / 6 = 2.2e7 FMA) is
// negligible at this size; latency is what counts. 16 panels, each: one round of L2 loads
// (~1 us; the pivot tile and the block's first item's tiles are fetched together), the
// warp-level factorization and inverse of the 32 x 32 pivot (32 dependent steps of a shuffle,
// an f64 rsqrt and an FMA, then 32 steps of the inverse: ~3-4 us), the 32 x 32 x 32 products of
// one item (~0.5 us; at most 152 items, 135 tile updates and 17 writes, on 132 blocks of 256
// threads, one per SM: up to 255 registers, so the 32 doubles a lane keeps for the pivot stay
// in registers), and the grid barrier (~1.5 us): ~7 us x 16 = 110 us; back substitution 16
// steps x ~1.5 us = 25 us; set-up ~5 us. ~0.15 ms against the reference's ~15 ms at this row
// (most of its 19.2 ms sum; chol_factor alone does 4.5e7 index divisions in one SM): ~100x,
// and ~15x under PyTorch's 2.2 ms.
//
// Bounds: n not a multiple of 32 (identity padding), any k (b rows padded with zeros to a
// multiple of 32, one block per right-hand side, looping when k > grid), n = 1. Indexes long long.
//
// Run on an H200 on 2026-12-03 (bench/h200_steps.sh X, before the swap): tools/crosscheck.py
// against PyTorch on every case passes, and tests/gpu/check_task.sh with every perf row (the former
// reference, now examples/pass_former_reference.cu, passes against it at every case and perf row;
// each wrong example keeps its verdict). As the candidate of an evaluation the same day: 1.15 ms
// over the perf rows against PyTorch's 5.5 ms.
//
// @kbx scratch wk f64 [max(1, (cdiv(n, 32) * 32 + cdiv(k, 32) * 32) * cdiv(n, 32) * 32)]
// @kbx scratch lf f64 [max(1, (cdiv(n, 32) * 32 + cdiv(k, 32) * 32) * cdiv(n, 32) * 32)]
// @kbx scratch linv f64 [max(1, cdiv(n, 32) * 32 * 32)]
// @kbx scratch cholesky f32 [n, n]
// @kbx scratch solve f32 [n, k]
// @kbx launch chol_solve_tiled<<<sms, 256, 50688>>>(a, b, x, wk, lf, linv, cholesky, solve, n, k) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define TB 32        // tile size
#define LD 33        // shared-memory tile stride (doubles)
#define TILE (TB * LD)
#define FULL 0xffffffffu
// dynamic shared memory: Ljj, Linv, X, Y, LI, LK tiles = 6 * 32 * 33 doubles = 50688 bytes

__device__ __forceinline__ long long cdivl(long long a, long long b) { return (a + b - 1) / b; }

// Load the 32 x 32 tile at (row0, col0) of a row-major matrix with leading dimension ld into s.
__device__ __forceinline__ void load_tile(double* s, const double* g, long long ld, long long row0, long long col0)
{
	for (int idx = threadIdx.x; idx < TB * TB; idx += THREADS) {
		const int r = idx / TB, c = idx % TB;
		s[r * LD + c] = g[(row0 + r) * ld + col0 + c];
	}
}

// o[r][c] = sum_p x[r][p] * y[c][p] for the 32 x 32 tiles in shared memory (o = x y^T).
__device__ __forceinline__ void tile_xyt(double* o, const double* x, const double* y)
{
	const int r = threadIdx.x >> 3, cg0 = threadIdx.x & 7;
	double acc[4] = { 0, 0, 0, 0 };
#pragma unroll 8
	for (int p = 0; p < TB; p++) {
		const double xv = x[r * LD + p];
#pragma unroll
		for (int u = 0; u < 4; u++)
			acc[u] += xv * y[(cg0 + 8 * u) * LD + p];
	}
#pragma unroll
	for (int u = 0; u < 4; u++)
		o[r * LD + cg0 + 8 * u] = acc[u];
}

// Item t of panel J: tile updates (I, K), J < K <= I, of the matrix tiles (t < U1, the trailing
// lower triangle row by row) and of the b^T tiles (U1 <= t < U1 + U2); then writes (I, J).
__device__ __forceinline__ void decode_item(long long t, long long J, long long TC, long long T1, long long U1,
					    long long U2, long long* I, long long* K)
{
	if (t < U1) { // t = i (i + 1) / 2 + kk, 0 <= kk <= i
		long long i = (long long)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
		while (i * (i + 1) / 2 > t)
			i--;
		while ((i + 1) * (i + 2) / 2 <= t)
			i++;
		*I = J + 1 + i;
		*K = J + 1 + (t - i * (i + 1) / 2);
	} else if (t < U1 + U2) {
		const long long u = t - U1;
		*I = TC + u / T1;
		*K = J + 1 + u % T1;
	} else {
		*I = J + (t - U1 - U2);
		*K = J;
	}
}

// One warp: sL (the 32 x 32 pivot tile, lower part read) becomes its Cholesky factor L (zeros
// above the diagonal) and sI becomes L^-1 (lower).
__device__ __noinline__ void factor_pivot(double* sL, double* sI)
{
	const int lane = threadIdx.x & 31;
	// Cholesky of the pivot tile: lane i holds row i. Per step one rsqrt (f64, ~1 ulp) gives
	// 1 / L[j][j]; the column is scaled by it and L[j][j] = piv / sqrt(piv) = piv * rsqrt(piv).
	double v[TB];
	double dinv = 0.0; // 1 / L[lane][lane]
#pragma unroll
	for (int c = 0; c < TB; c++)
		v[c] = sL[lane * LD + c];
#pragma unroll
	for (int j = 0; j < TB; j++) {
		const double piv = __shfl_sync(FULL, v[j], j);
		const double r = rsqrt(piv);
		if (lane == j) {
			v[j] = piv * r;
			dinv = r;
		} else {
			v[j] = lane > j ? v[j] * r : 0.0;
		}
#pragma unroll
		for (int c = j + 1; c < TB; c++) {
			const double lcj = __shfl_sync(FULL, v[j], c);
			if (lane >= c)
				v[c] -= v[j] * lcj;
		}
	}
#pragma unroll
	for (int c = 0; c < TB; c++)
		sL[lane * LD + c] = v[c];
	__syncwarp();
	// inverse, row by row: Linv[i] = (e_i - sum_{p<i} L[i][p] Linv[p]) / L[i][i]
	double w[TB];
#pragma unroll
	for (int c = 0; c < TB; c++)
		w[c] = lane == c ? 1.0 : 0.0;
#pragma unroll
	for (int p = 0; p < TB; p++) {
		const double lip = sL[lane * LD + p]; // L[lane][p]
		if (lane == p)
#pragma unroll
			for (int c = 0; c <= p; c++)
				w[c] *= dinv;
#pragma unroll
		for (int c = 0; c <= p; c++) {
			const double wp = __shfl_sync(FULL, w[c], p);
			if (lane > p)
				w[c] -= lip * wp;
		}
	}
#pragma unroll
	for (int c = 0; c < TB; c++)
		sI[lane * LD + c] = w[c];
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
chol_solve_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ x, double* wk, double* lf,
		 double* linv, float* __restrict__ cholesky, float* __restrict__ solve, long long n, long long k)
{
	cg::grid_group grid = cg::this_grid();
	extern __shared__ __align__(16) double smem[];
	double* sL = smem;            // L_JJ (lower, zeros above)
	double* sI = smem + TILE;     // L_JJ^-1 (lower)
	double* sX = smem + 2 * TILE; // A_IJ
	double* sY = smem + 3 * TILE; // A_KJ
	double* sLI = smem + 4 * TILE; // L_IJ
	double* sLK = smem + 5 * TILE; // L_KJ
	const int tid = threadIdx.x, warp = tid >> 5;
	const int bid = blockIdx.x, G = gridDim.x;
	const long long TC = cdivl(n, TB), KT = cdivl(k, TB), TR = TC + KT;
	const long long NP = TC * TB, NR = TR * TB; // columns, rows of wk and lf (leading dimension NP)

	// set-up: wk = [lower(A) padded with I; b^T padded with 0]
	for (long long i = bid; i < NR; i += G) {
		double* row = wk + i * NP;
		if (i < NP) {
			for (long long j = tid; j < NP; j += THREADS)
				row[j] = (i < n && j <= i) ? (double)a[i * n + j] : (i == j ? 1.0 : 0.0);
		} else {
			const long long c = i - NP;
			for (long long j = tid; j < NP; j += THREADS)
				row[j] = (c < k && j < n) ? (double)b[j * k + c] : 0.0;
		}
	}
	grid.sync();

	for (long long J = 0; J < TC; J++) {
		const long long T1 = TC - J - 1;           // trailing tile columns
		const long long U1 = T1 * (T1 + 1) / 2;    // updates of matrix tiles (J < K <= I < TC)
		const long long U2 = KT * T1;              // updates of b^T tiles (I >= TC, J < K < TC)
		const long long nitems = U1 + U2 + (TR - J); // then the writes of L_IJ, I = J .. TR - 1
		if (bid < nitems) {
			// the pivot tile and the first item's tiles, loaded together
			long long I, K;
			decode_item(bid, J, TC, T1, U1, U2, &I, &K);
			load_tile(sL, wk, NP, J * TB, J * TB);
			if (I != J)
				load_tile(sX, wk, NP, I * TB, J * TB);
			if (K != J && K != I)
				load_tile(sY, wk, NP, K * TB, J * TB);
			__syncthreads();
			if (warp == 0)
				factor_pivot(sL, sI);
			__syncthreads();
			for (long long t = bid; t < nitems; t += G) {
				const bool loaded = t == bid; // sX, sY already hold this item's tiles
				decode_item(t, J, TC, T1, U1, U2, &I, &K);
				if (K == J) { // write L_IJ
					if (I == J) {
						for (int idx = tid; idx < TB * TB; idx += THREADS) {
							const int r = idx / TB, c = idx % TB;
							lf[(J * TB + r) * NP + J * TB + c] = sL[r * LD + c];
							linv[J * TB * TB + idx] = sI[r * LD + c];
						}
					} else {
						if (!loaded) {
							load_tile(sX, wk, NP, I * TB, J * TB);
							__syncthreads();
						}
						tile_xyt(sLI, sX, sI); // L_IJ = A_IJ L_JJ^-T
						__syncthreads();
						for (int idx = tid; idx < TB * TB; idx += THREADS) {
							const int r = idx / TB, c = idx % TB;
							lf[(I * TB + r) * NP + J * TB + c] = sLI[r * LD + c];
						}
					}
				} else { // A_IK -= L_IJ L_KJ^T
					if (!loaded) {
						load_tile(sX, wk, NP, I * TB, J * TB);
						if (K != I)
							load_tile(sY, wk, NP, K * TB, J * TB);
						__syncthreads();
					}
					tile_xyt(sLI, sX, sI);
					if (K != I)
						tile_xyt(sLK, sY, sI);
					__syncthreads();
					const double* lk = K != I ? sLK : sLI;
					const int r = tid >> 3, cg0 = tid & 7;
					double acc[4] = { 0, 0, 0, 0 };
#pragma unroll 8
					for (int p = 0; p < TB; p++) {
						const double xv = sLI[r * LD + p];
#pragma unroll
						for (int u = 0; u < 4; u++)
							acc[u] += xv * lk[(cg0 + 8 * u) * LD + p];
					}
					double* crow = wk + (I * TB + r) * NP + K * TB;
#pragma unroll
					for (int u = 0; u < 4; u++)
						crow[cg0 + 8 * u] -= acc[u];
				}
				__syncthreads(); // the shared tiles are reused by the next item
			}
		}
		grid.sync();
	}

	// stage buffer: L rounded to f32, zeros above the diagonal
	for (long long i = bid; i < n; i += G)
		for (long long j = tid; j < n; j += THREADS)
			cholesky[i * n + j] = j <= i ? (float)lf[i * NP + j] : 0.0f;

	// back substitution L^T x = y, one block per right-hand side, in place in lf's row NP + c
	for (long long c = bid; c < k; c += G) {
		double* yv = lf + (NP + c) * NP;
		double* xs = sX; // 32 values
		for (long long i = tid; i < n; i += THREADS)
			solve[i * k + c] = (float)yv[i];
		__syncthreads();
		for (long long I = TC - 1; I >= 0; I--) {
			if (tid < TB) { // x_I = L_II^-T r_I: x[i] = sum_{p >= i} Linv[p][i] r[p]
				const double* li = linv + I * TB * TB;
				double s = 0.0;
				for (int p = tid; p < TB; p++)
					s += li[p * TB + tid] * yv[I * TB + p];
				xs[tid] = s;
			}
			__syncthreads();
			if (tid < TB)
				yv[I * TB + tid] = xs[tid];
			for (long long p = tid; p < I * TB; p += THREADS) { // r[p] -= sum_i L[32 I + i][p] x_I[i]
				double s = yv[p];
				const double* lrow = lf + I * TB * NP + p;
#pragma unroll 8
				for (int i = 0; i < TB; i++)
					s -= lrow[(long long)i * NP] * xs[i];
				yv[p] = s;
			}
			__syncthreads();
		}
		for (long long i = tid; i < n; i += THREADS)
			x[i * k + c] = (float)yv[i];
		__syncthreads(); // xs is reused for the next right-hand side
	}
}
