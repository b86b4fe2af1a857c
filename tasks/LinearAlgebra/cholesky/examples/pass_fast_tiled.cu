// @kbx expect pass
// Faster alternative: tiled right-looking Cholesky over the whole GPU in one cooperative kernel,
// in place in the output: 32-column panels, two grid barriers per panel, the O(n^3) trailing
// update as 128 x 128 register-tiled f32 FMA tiles over the lower triangle only.
//
// What the reference does and why it is slow: per 32-column block it runs three phases with a
// grid barrier after each: block 0 alone factors the 32 x 32 diagonal block with 32 x 3 block
// barriers, warps solve the panel rows (a serial 32-step shuffle chain per row), and the
// trailing update W22 -= L21 L21^T runs as 64 x 64 f64 tiles (4 x 4 per thread) whose f64
// read-modify-write of the whole trailing triangle per 32 columns (n^3 / 192 elements x 16
// bytes = 46 GB at n = 8192) and f64 FMA rate dominate. 105.9 ms over the six perf rows
// (n = 256 .. 8192) on an H200 against PyTorch's 15.9 ms (11.3 ms of it at n = 8192).
//
// What this kernel does (per matrix of the batch, in place in l; l starts as a's lower triangle
// with exact zeros above, so the upper part is never read and never written again):
//   panel phase: every block that has work loads the 32 x 32 diagonal tile in f64 (rows past n
//   padded with the identity) and factors it redundantly in one warp, together with L11^-1
//   (factor_pivot, copied from Fusion/fused_cholesky_solve's examples/pass_fast_tiled_f64.cu);
//   the 32-row tiles below are spread over the blocks: L_I = A_I L11^-T as a 32 x 32 x 32 f64
//   product with the inverse (tile_xyt, same source), rounded to f32 into l.   grid barrier
//   update phase: block 0 writes L11; A22 -= L21 L21^T over the lower 128 x 128 tiles of the
//   trailing matrix (triangular tile index, so no block idles on an upper tile), 256 threads of
//   8 x 8 f32 accumulators, K = 32 staged once per tile; only entries on or below the diagonal
//   are written back, so the upper triangle stays zero.                        grid barrier
// upper = 1: a last pass swaps each pair (i < j) in place: U[i][j] = L[j][i], L[j][i] = 0.
//
// Tolerance: the reference is f64 rounded once; this is an f32 blocked Cholesky (PyTorch's own
// spotrf arithmetic class) with f64 diagonal tiles and f64 panel solves. The error of an f32
// factor is ~ sqrt(n) u cond(A) relative on O(1) entries; task.ini measured scipy's f32 potrf
// within 0.06 of (1e-5, 1e-5) on these inputs. The explicit 32 x 32 inverse of L11 costs at most
// cond(L11) u in the panel solve, and these matrices are spd(d) with d >= 0.1 (cond(L11) <= 7).
//
// Expected time at n = 8192 (batch 1): 256 panels x (~4 us pivot factor + ~1 us panel tiles + 2
// barriers ~3 us) = ~2 ms, plus the updates: sum over panels of (n - 32 p)^2 / 2 = n^3 / 192 =
// 2.9e9 f32 read-modify-writes (23 GB, mostly DRAM: the 268 MB matrix exceeds L2) = ~7 ms, their
// 9.2e10 FMA hidden under it: ~9-10 ms vs the reference's bulk of 105.9 ms and golden 11.3 ms;
// n = 4096 ~1.5-2 ms (golden 2.5), n <= 2048 latency-bound at ~8 us per panel (n = 2048: ~0.5 ms,
// golden 1.0). Total ~12 ms over the perf rows vs 105.9 ms (reference), 15.9 ms (golden).
// (A 64-column panel would halve the update traffic at n = 8192; not done here.)
//
// Checked: compiles and passes kbx's ABI check (verdict not_run: no GPU here). NOT YET RUN ON A
// GPU. A numpy emulation (not kept) of this kernel: the panel phase per block (identity padding,
// f64 pivot factor and inverse, 32-row tiles times L11^-T rounded to f32), the update phase's
// triangular tile decode, 128 x 128 tiles with zero fill, f32 accumulation over k and the
// j <= i write mask, block 0's late L11 write, and the in-place transpose for upper = 1, with
// the upper triangle of a poisoned with NaN (never read), grids of 132 and 3 blocks, against
// an f64 Cholesky rounded once: every case shape of task.ini (batch 1..3, n = 0, 1, 2, 3, 16, 33,
// 65, 257, 1000, lower and upper) plus n = 161 and 290: worst |d| / (atol + rtol |ref|) 0.012
// (n = 1000, spd(0.5)), no NaN.
//
// @kbx launch chol_tiled<<<sms, 256, 67584>>>(a, l, batch, n, upper) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define TB 32	// panel width and pivot tile size
#define LD 33	// f64 tile stride in shared memory
#define TILE (TB * LD)
#define BM 128	// update tile rows
#define BN 128	// update tile columns
#define BNP 132 // padded row of the update's B tile (keeps float4 alignment)
#define FULL 0xffffffffu
// dynamic shared memory: sL, sI, sX, sLI (f64 32 x 33 each: 33792 bytes), As (f32 128 x 33:
// 16896 bytes), Bs (f32 32 x 132: 16896 bytes) = 67584 bytes

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

// Triangular tile index: t = i (i + 1) / 2 + j, 0 <= j <= i.
__device__ __forceinline__ void tri_decode(long long t, long long* I, long long* J)
{
	long long i = (long long)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
	while (i * (i + 1) / 2 > t)
		i--;
	while ((i + 1) * (i + 2) / 2 <= t)
		i++;
	*I = i;
	*J = t - i * (i + 1) / 2;
}

// L[k1:n, k1:n] -= L[k1:n, k0:k0+K] L[k1:n, k0:k0+K]^T on and below the diagonal: 128 x 128
// tiles (lower ones only) over the grid, 256 threads of 8 x 8 outputs (rows ty * 8 + r, columns
// tx * 4 + 64 h + q), K <= 32 staged once per tile, zero-filled past n and past K.
__device__ void syrk_update(float* As, float* Bs, float* L, long long n, long long k0, long long k1, int K)
{
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long M = n - k1, T = (M + BM - 1) / BM;
	for (long long t = blockIdx.x; t < T * (T + 1) / 2; t += gridDim.x) {
		long long ti, tj;
		tri_decode(t, &ti, &tj);
		const long long i0 = ti * BM, j0 = tj * BN;
		for (int e = tid; e < BM * TB; e += THREADS) { // coalesced along k
			const int i = e / TB, kk = e % TB;
			As[i * LD + kk] = (i0 + i < M && kk < K) ? L[(k1 + i0 + i) * n + k0 + kk] : 0.0f;
		}
		for (int e = tid; e < BN * TB; e += THREADS) {
			const int j = e / TB, kk = e % TB;
			Bs[kk * BNP + j] = (j0 + j < M && kk < K) ? L[(k1 + j0 + j) * n + k0 + kk] : 0.0f;
		}
		__syncthreads();
		float acc[8][8];
#pragma unroll
		for (int r = 0; r < 8; r++)
#pragma unroll
			for (int q = 0; q < 8; q++)
				acc[r][q] = 0.0f;
#pragma unroll 4
		for (int kk = 0; kk < TB; kk++) {
			float av[8];
#pragma unroll
			for (int r = 0; r < 8; r++)
				av[r] = As[(ty * 8 + r) * LD + kk];
			const float4 b0 = *reinterpret_cast<const float4*>(&Bs[kk * BNP + tx * 4]);
			const float4 b1 = *reinterpret_cast<const float4*>(&Bs[kk * BNP + 64 + tx * 4]);
			const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int r = 0; r < 8; r++)
#pragma unroll
				for (int q = 0; q < 8; q++)
					acc[r][q] = fmaf(av[r], bv[q], acc[r][q]);
		}
#pragma unroll
		for (int r = 0; r < 8; r++) {
			const long long i = i0 + ty * 8 + r;
			if (i < M) {
				float* row = L + (k1 + i) * n + k1;
#pragma unroll
				for (int q = 0; q < 8; q++) {
					const long long j = j0 + (q / 4) * 64 + tx * 4 + q % 4;
					if (j <= i)
						row[j] -= acc[r][q];
				}
			}
		}
		__syncthreads(); // As / Bs are refilled by the next tile
	}
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
chol_tiled(const float* __restrict__ a, float* __restrict__ l, long long batch, long long n, int upper)
{
	cg::grid_group grid = cg::this_grid();
	extern __shared__ __align__(16) double smem[];
	double* sL = smem;	       // L11 (lower, zeros above)
	double* sI = smem + TILE;      // L11^-1
	double* sX = smem + 2 * TILE;  // A_I
	double* sLI = smem + 3 * TILE; // L_I
	float* As = (float*)(smem + 4 * TILE);
	float* Bs = As + BM * LD;
	const int tid = threadIdx.x, warp = tid / 32;
	const long long bid = blockIdx.x, G = gridDim.x;
	const long long gtid = bid * THREADS + tid, gstride = G * THREADS;

	for (long long bi = 0; bi < batch; bi++) {
		const float* A = a + bi * n * n;
		float* L = l + bi * n * n;
		for (long long e = gtid; e < n * n; e += gstride)
			L[e] = (e % n <= e / n) ? A[e] : 0.0f;
		grid.sync();
		for (long long k0 = 0; k0 < n; k0 += TB) {
			const int mb = (int)(n - k0 < TB ? n - k0 : TB);
			const long long k1 = k0 + mb;
			const long long nT = (n - k1 + TB - 1) / TB; // 32-row tiles below the pivot
			// panel phase
			if (bid == 0 || bid < nT) {
				for (int idx = tid; idx < TB * TB; idx += THREADS) {
					const int r = idx / TB, c = idx % TB;
					sL[r * LD + c] = (r < mb && c <= r) ? (double)L[(k0 + r) * n + k0 + c] : (r == c ? 1.0 : 0.0);
				}
				__syncthreads();
				if (warp == 0)
					factor_pivot(sL, sI);
				__syncthreads();
				for (long long I = bid; I < nT; I += G) {
					const long long r0 = k1 + I * TB;
					for (int idx = tid; idx < TB * TB; idx += THREADS) {
						const int r = idx / TB, c = idx % TB;
						sX[r * LD + c] = (r0 + r < n && c < mb) ? (double)L[(r0 + r) * n + k0 + c] : 0.0;
					}
					__syncthreads();
					tile_xyt(sLI, sX, sI); // L_I = A_I L11^-T
					__syncthreads();
					for (int idx = tid; idx < TB * TB; idx += THREADS) {
						const int r = idx / TB, c = idx % TB;
						if (r0 + r < n && c < mb)
							L[(r0 + r) * n + k0 + c] = (float)sLI[r * LD + c];
					}
					__syncthreads(); // sX / sLI are reused by the next tile
				}
			}
			grid.sync();
			// update phase: L11 (nobody reads the diagonal tile now), then the trailing matrix
			if (bid == 0)
				for (int idx = tid; idx < TB * TB; idx += THREADS) {
					const int r = idx / TB, c = idx % TB;
					if (r < mb && c <= r)
						L[(k0 + r) * n + k0 + c] = (float)sL[r * LD + c];
				}
			if (k1 < n) {
				syrk_update(As, Bs, L, n, k0, k1, mb);
				grid.sync();
			}
		}
		grid.sync(); // L11 of the last panel is written
		if (upper)
			for (long long e = gtid; e < n * n; e += gstride) {
				const long long i = e / n, j = e % n;
				if (j > i) {
					L[e] = L[j * n + i];
					L[j * n + i] = 0.0f;
				}
			}
		// the next matrix touches only its own slice of a and l: no barrier needed here
	}
}
