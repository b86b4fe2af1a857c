// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// lu reference: A = P L U by blocked right-looking LU with partial pivoting (or none), in f64.
//
// One cooperative kernel per call; matrices of the batch one after another. Each matrix is
// copied to an f64 scratch W and factored in place (lu_factor below: 32-column panels factored
// by block 0 with LAPACK's pivot rule, the panel's row swaps applied by the grid, U12 by a
// unit-lower triangular solve, the trailing matrix by a tiled f64 gemm). Then:
//   L [m, k] = the strict lower part of W with a unit diagonal, U [k, n] = the upper part;
//   P [m, m] from the row exchanges: perm starts as the identity and takes the swaps in order,
//   so (L U)[r] = A[perm[r]] and P[perm[r], r] = 1 (A = P L U). Without pivoting p is empty.
//
// Precision: f64 throughout, rounded once; the factors are exact for the f32 input to ~n 1e-16
// times the growth of U. The permutation is the f64 pivot order; the cases keep every pivot
// race far above f32 rounding (see task.ini).
//
// @kbx scratch w f64 [max(1, m * n)]
// @kbx scratch ip i64 [max(1, 2 * m)]
// @kbx launch lu_coop<<<sms, 256>>>(a, p, l, u, w, ip, batch, m, n, pivot) cooperative

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

// In-place LU of W [m, n] (row-major f64, leading dim n) with partial pivoting (pivot) or none:
// on return W holds L strictly below the diagonal (unit diagonal implied) and U on and above it,
// and piv[j] (j < min(m, n)) the row exchanged with row j at step j (LAPACK's ipiv, 0-based).
// Blocked right-looking, 32-column panels:
//   block 0 factors the panel (pivot search: the first row of largest |.|, NaN never wins; the
//   swap within the panel; the column scaled by the pivot unless it is 0; rank-1 update of the
//   panel), grid barrier; the grid applies the panel's swaps to all other columns, barrier;
//   U12 = L11^-1 A12 (warp per column), barrier; A22 -= L21 U12 as a tiled gemm, barrier.
// The whole grid must call it.
__device__ void lu_factor(cg::grid_group& grid, double* W, long long m, long long n, long long* piv, bool pivot)
{
	__shared__ double s_val[THREADS / 32];
	__shared__ long long s_idx[THREADS / 32];
	__shared__ long long s_p;
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	const long long gtid = (long long)blockIdx.x * blockDim.x + tid;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	const long long kmin = m < n ? m : n;

	for (long long k0 = 0; k0 < kmin; k0 += TK) {
		const long long mb = kmin - k0 < TK ? kmin - k0 : TK, k1 = k0 + mb;
		if (blockIdx.x == 0) {
			for (long long j = k0; j < k1; j++) {
				if (pivot) {
					double best = -1.0;
					long long bi = -1;
					for (long long i = j + tid; i < m; i += THREADS) {
						const double v = fabs(W[i * n + j]);
						if (v > best) { // rows increase along the loop: keeps the first maximum
							best = v;
							bi = i;
						}
					}
					for (int off = 16; off > 0; off >>= 1) {
						const double ov = __shfl_xor_sync(FULL, best, off);
						const long long oi = __shfl_xor_sync(FULL, bi, off);
						if (ov > best || (ov == best && oi >= 0 && (bi < 0 || oi < bi))) {
							best = ov;
							bi = oi;
						}
					}
					if (lane == 0) {
						s_val[warp] = best;
						s_idx[warp] = bi;
					}
					__syncthreads();
					if (tid == 0) {
						for (int q = 1; q < THREADS / 32; q++)
							if (s_val[q] > best || (s_val[q] == best && s_idx[q] >= 0 && (bi < 0 || s_idx[q] < bi))) {
								best = s_val[q];
								bi = s_idx[q];
							}
						s_p = bi < 0 ? j : bi; // an all-NaN column keeps the diagonal
					}
					__syncthreads();
				} else if (tid == 0) {
					s_p = j;
				}
				__syncthreads();
				const long long p = s_p;
				if (tid == 0)
					piv[j] = p;
				if (p != j)
					for (long long c = k0 + tid; c < k1; c += THREADS) {
						const double t = W[j * n + c];
						W[j * n + c] = W[p * n + c];
						W[p * n + c] = t;
					}
				__syncthreads();
				const double d = W[j * n + j];
				if (d != 0.0) // a zero pivot (singular) leaves the column, as LAPACK getf2 does
					for (long long i = j + 1 + tid; i < m; i += THREADS)
						W[i * n + j] /= d;
				__syncthreads();
				const long long nc = k1 - 1 - j, nr = m - j - 1;
				for (long long e = tid; e < nr * nc; e += THREADS) {
					const long long i = j + 1 + e / nc, c = j + 1 + e % nc;
					W[i * n + c] -= W[i * n + j] * W[j * n + c];
				}
				__syncthreads();
			}
		}
		grid.sync();
		if (pivot) { // the panel's row exchanges, applied to the columns outside it
			for (long long c = gtid; c < n; c += gstride) {
				if (c >= k0 && c < k1)
					continue;
				for (long long j = k0; j < k1; j++) {
					const long long p = piv[j];
					if (p != j) {
						const double t = W[j * n + c];
						W[j * n + c] = W[p * n + c];
						W[p * n + c] = t;
					}
				}
			}
			grid.sync();
		}
		if (k1 < n) {
			tri_block_solve(W + k1, n, n - k1, View<double>{ W, n, 1 }, k0, (int)mb, true, true);
			grid.sync();
			if (k1 < m) {
				gemm_sub(W + k1 * n + k1, n, View<double>{ W + k1 * n + k0, n, 1 }, View<double>{ W + k0 * n + k1, n, 1 },
					 m - k1, n - k1, mb);
				grid.sync();
			}
		}
	}
}

extern "C" __global__ void __launch_bounds__(THREADS)
lu_coop(const float* __restrict__ a, float* __restrict__ p, float* __restrict__ l, float* __restrict__ u,
	double* __restrict__ w, long long* __restrict__ ip, long long batch, long long m, long long n, int pivot)
{
	cg::grid_group grid = cg::this_grid();
	const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	const long long k = m < n ? m : n;
	long long* piv = ip;      // [k] row exchanged with row j at step j
	long long* perm = ip + m; // [m] perm[r] = the row of A that ends up at row r

	for (long long bi = 0; bi < batch; bi++) {
		for (long long e = gtid; e < m * n; e += gstride)
			w[e] = (double)a[bi * m * n + e];
		grid.sync();
		lu_factor(grid, w, m, n, piv, pivot != 0);
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
		if (pivot) {
			if (gtid == 0) {
				for (long long r = 0; r < m; r++)
					perm[r] = r;
				for (long long j = 0; j < k; j++) {
					const long long t = perm[j];
					perm[j] = perm[piv[j]];
					perm[piv[j]] = t;
				}
			}
			grid.sync();
			float* P = p + bi * m * m;
			for (long long e = gtid; e < m * m; e += gstride)
				P[e] = perm[e % m] == e / m ? 1.0f : 0.0f;
		}
		grid.sync(); // w and ip are reused by the next matrix
	}
}
