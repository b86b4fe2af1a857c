// cholesky reference: blocked right-looking Cholesky in f64, one cooperative kernel.
//
// The lower triangle of each matrix is copied to an f64 scratch W; then for each 32-column block
// k0 (m = min(32, n - k0) columns):
//   1. block 0 factors the m x m diagonal block in shared memory (unblocked: sqrt of the pivot,
//      scale the column, rank-1 update of the rest) and writes L11 back;          grid barrier
//   2. every warp takes rows i >= k0 + m of the panel and solves L11 x = W[i, k0:k0+m]^T
//      (L21 = A21 L11^-T), L11 staged in shared memory, lanes along the 32 columns;  barrier
//   3. the trailing matrix takes W22 -= L21 L21^T as a tiled f64 gemm over the grid, tiles
//      wholly above the diagonal skipped (only the lower triangle is ever read);      barrier
// Finally L (or U = L^T) is written in f32 with exact zeros in the other triangle. Batches run
// one after another. A non-positive pivot gives NaN (PyTorch raises instead; no case has one).
//
// Precision: f64 throughout, rounded once: the factor is exact for the f32 input to
// ~n * 1e-16 * cond(A); the tolerance is the budget left for a candidate's f32 rounding.
//
// @kbx scratch w f64 [max(1, n * n)]
// @kbx launch cholesky_coop<<<sms, 256>>>(a, l, w, batch, n, upper) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define FULL 0xffffffffu
#define TM 64 // gemm tile rows
#define TN 64 // gemm tile columns
#define TK 32 // gemm tile depth, also the triangular block size

// A strided matrix view: element (i, j) at p[i * rs + j * cs] (a transpose swaps rs and cs).
template <typename T>
struct View {
	const T* p;
	long long rs, cs;
	__device__ double operator()(long long i, long long j) const { return (double)p[i * rs + j * cs]; }
	__device__ View sub(long long i, long long j) const { return View{ p + i * rs + j * cs, rs, cs }; }
};

// C[M x N] -= A[M x K] * B[K x N]: C row-major f64 (leading dim ldc), A and B any views.
// 64 x 64 tiles of C spread over the grid; 256 threads, each 4 x 4 outputs (rows ty + 16 a,
// columns tx + 16 b); K in steps of 32 through shared memory. Tiles are loaded along whichever
// axis is contiguous. lower_only skips the tiles that lie wholly above the diagonal of C.
template <typename TA, typename TB>
__device__ void gemm_sub(double* C, long long ldc, View<TA> A, View<TB> B, long long M, long long N, long long K,
			 bool lower_only = false)
{
	__shared__ double As[TK][TM + 1];
	__shared__ double Bs[TK][TN];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long tilesM = (M + TM - 1) / TM, tilesN = (N + TN - 1) / TN;
	for (long long t = blockIdx.x; t < tilesM * tilesN; t += gridDim.x) {
		const long long i0 = (t / tilesN) * TM, j0 = (t % tilesN) * TN;
		if (lower_only && j0 > i0 + TM - 1)
			continue; // uniform over the block
		double acc[4][4];
		for (int a = 0; a < 4; a++)
			for (int b = 0; b < 4; b++)
				acc[a][b] = 0.0;
		for (long long k0 = 0; k0 < K; k0 += TK) {
			for (int e = tid; e < TM * TK; e += THREADS) {
				int i, kk;
				if (A.rs == 1) { // columns of A contiguous: consecutive threads walk down a column
					i = e % TM;
					kk = e / TM;
				} else {
					i = e / TK;
					kk = e % TK;
				}
				As[kk][i] = (i0 + i < M && k0 + kk < K) ? A(i0 + i, k0 + kk) : 0.0;
			}
			for (int e = tid; e < TK * TN; e += THREADS) {
				int kk, j;
				if (B.rs == 1) {
					kk = e % TK;
					j = e / TK;
				} else {
					kk = e / TN;
					j = e % TN;
				}
				Bs[kk][j] = (k0 + kk < K && j0 + j < N) ? B(k0 + kk, j0 + j) : 0.0;
			}
			__syncthreads();
#pragma unroll 8
			for (int kk = 0; kk < TK; kk++) {
				double av[4], bv[4];
				for (int a = 0; a < 4; a++)
					av[a] = As[kk][ty + 16 * a];
				for (int b = 0; b < 4; b++)
					bv[b] = Bs[kk][tx + 16 * b];
				for (int a = 0; a < 4; a++)
					for (int b = 0; b < 4; b++)
						acc[a][b] = fma(av[a], bv[b], acc[a][b]);
			}
			__syncthreads();
		}
		for (int a = 0; a < 4; a++)
			for (int b = 0; b < 4; b++) {
				const long long i = i0 + ty + 16 * a, j = j0 + tx + 16 * b;
				if (i < M && j < N)
					C[i * ldc + j] -= acc[a][b];
			}
	}
}

// Rows r0 .. r0+m-1 (m <= 32) of X (row-major f64, leading dim ldx, k columns): x <- T_bb^-1 x
// with T_bb the m x m diagonal block of T at (r0, r0), lower (forward) or upper (backward), unit
// diagonal or not. The block is staged in shared memory; one warp per column, lanes along rows.
template <typename TA>
__device__ void tri_block_solve(double* X, long long ldx, long long k, View<TA> T, long long r0, int m, bool lower,
				bool unit)
{
	__shared__ double Ts[TK][TK + 1];
	const int lane = threadIdx.x % 32, wpb = THREADS / 32;
	if ((long long)blockIdx.x * wpb >= k) // this block has no column (uniform over the block)
		return;
	for (int e = threadIdx.x; e < TK * TK; e += THREADS) {
		const int i = e / TK, j = e % TK;
		Ts[i][j] = (i < m && j < m && (lower ? j <= i : j >= i)) ? T(r0 + i, r0 + j) : 0.0;
	}
	__syncthreads();
	for (long long c = (long long)blockIdx.x * wpb + threadIdx.x / 32; c < k; c += (long long)gridDim.x * wpb) {
		double v = lane < m ? X[(r0 + lane) * ldx + c] : 0.0;
		if (lower) {
			for (int i = 0; i < m; i++) {
				double xi = __shfl_sync(FULL, v, i);
				if (!unit)
					xi /= Ts[i][i];
				if (lane == i)
					v = xi;
				else if (lane > i)
					v -= Ts[lane][i] * xi;
			}
		} else {
			for (int i = m - 1; i >= 0; i--) {
				double xi = __shfl_sync(FULL, v, i);
				if (!unit)
					xi /= Ts[i][i];
				if (lane == i)
					v = xi;
				else if (lane < i)
					v -= Ts[lane][i] * xi;
			}
		}
		if (lane < m)
			X[(r0 + lane) * ldx + c] = v;
	}
	__syncthreads(); // Ts is reused by the next call
}

// X [n, k] (leading dim ldx) <- T^-1 X for T [n, n] lower (forward) or upper (backward)
// triangular; only that triangle of T is read. Blocked: a 32-row diagonal solve, then a gemm
// update of the remaining rows, with a grid barrier after each (the whole grid must call it).
template <typename TA>
__device__ void trsm(cg::grid_group& grid, double* X, long long ldx, long long n, long long k, View<TA> T, bool lower,
		     bool unit)
{
	if (lower) {
		for (long long r0 = 0; r0 < n; r0 += TK) {
			const int m = (int)(n - r0 < TK ? n - r0 : TK);
			tri_block_solve(X, ldx, k, T, r0, m, true, unit);
			grid.sync();
			if (r0 + m < n) {
				gemm_sub(X + (r0 + m) * ldx, ldx, T.sub(r0 + m, r0), View<double>{ X + r0 * ldx, ldx, 1 }, n - r0 - m, k, m);
				grid.sync();
			}
		}
	} else {
		for (long long r1 = n; r1 > 0; r1 -= TK) {
			const long long r0 = r1 > TK ? r1 - TK : 0;
			const int m = (int)(r1 - r0);
			tri_block_solve(X, ldx, k, T, r0, m, false, unit);
			grid.sync();
			if (r0 > 0) {
				gemm_sub(X, ldx, T.sub(0, r0), View<double>{ X + r0 * ldx, ldx, 1 }, r0, k, m);
				grid.sync();
			}
		}
	}
}

extern "C" __global__ void __launch_bounds__(THREADS)
cholesky_coop(const float* __restrict__ a, float* __restrict__ l, double* __restrict__ w, long long batch, long long n,
	      int upper)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ double D[TK][TK + 1];
	const int tid = threadIdx.x, lane = tid % 32, wpb = THREADS / 32;
	const long long gtid = (long long)blockIdx.x * blockDim.x + tid;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	const long long gwarp = (long long)blockIdx.x * wpb + tid / 32, nwarps = (long long)gridDim.x * wpb;

	for (long long bi = 0; bi < batch; bi++) {
		const float* A = a + bi * n * n;
		for (long long e = gtid; e < n * n; e += gstride)
			w[e] = (double)A[e];
		grid.sync();
		for (long long k0 = 0; k0 < n; k0 += TK) {
			const int m = (int)(n - k0 < TK ? n - k0 : TK);
			// 1. the diagonal block, by block 0
			if (blockIdx.x == 0) {
				for (int e = tid; e < TK * TK; e += THREADS) {
					const int i = e / TK, j = e % TK;
					D[i][j] = (i < m && j <= i) ? w[(k0 + i) * n + k0 + j] : 0.0;
				}
				__syncthreads();
				for (int j = 0; j < m; j++) {
					if (tid == 0)
						D[j][j] = sqrt(D[j][j]);
					__syncthreads();
					for (int i = j + 1 + tid; i < m; i += THREADS)
						D[i][j] /= D[j][j];
					__syncthreads();
					for (int e = tid; e < TK * TK; e += THREADS) {
						const int i = e / TK, c = e % TK;
						if (c > j && c <= i && i < m)
							D[i][c] -= D[i][j] * D[c][j];
					}
					__syncthreads();
				}
				for (int e = tid; e < TK * TK; e += THREADS) {
					const int i = e / TK, j = e % TK;
					if (i < m && j <= i)
						w[(k0 + i) * n + k0 + j] = D[i][j];
				}
			}
			grid.sync();
			// 2. the panel below: L21 = A21 L11^-T, one warp per row
			const long long r0 = k0 + m;
			if (r0 < n) {
				if ((long long)blockIdx.x * wpb < n - r0) { // blocks with rows stage L11
					for (int e = tid; e < TK * TK; e += THREADS) {
						const int i = e / TK, j = e % TK;
						D[i][j] = (i < m && j <= i) ? w[(k0 + i) * n + k0 + j] : 0.0;
					}
					__syncthreads();
					for (long long i = r0 + gwarp; i < n; i += nwarps) {
						double v = lane < m ? w[i * n + k0 + lane] : 0.0;
						for (int j = 0; j < m; j++) {
							const double xj = __shfl_sync(FULL, v, j) / D[j][j];
							if (lane == j)
								v = xj;
							else if (lane > j)
								v -= D[lane][j] * xj;
						}
						if (lane < m)
							w[i * n + k0 + lane] = v;
					}
					__syncthreads();
				}
				grid.sync();
				// 3. the trailing update W22 -= L21 L21^T, lower tiles only
				gemm_sub(w + r0 * n + r0, n, View<double>{ w + r0 * n + k0, n, 1 }, View<double>{ w + r0 * n + k0, 1, n },
					 n - r0, n - r0, m, true);
				grid.sync();
			}
		}
		float* L = l + bi * n * n;
		for (long long e = gtid; e < n * n; e += gstride) {
			const long long i = e / n, j = e % n;
			if (upper)
				L[e] = j >= i ? (float)w[j * n + i] : 0.0f;
			else
				L[e] = j <= i ? (float)w[e] : 0.0f;
		}
		grid.sync(); // w is reused by the next matrix
	}
}
