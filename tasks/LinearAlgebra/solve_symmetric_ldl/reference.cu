// solve_symmetric_ldl reference: x = solve(LD diag(pivots) LD^T, b), as KernelBenchX's function
// computes it (its "L, D = ldl_factor(A)" binds the compact LD and the pivots), in f64.
//
// Launch 1, one block: LAPACK's sytf2 (uplo = 'L', Bunch-Kaufman) on the lower triangle of a, as
// in LinearAlgebra/ldl_factor: LD (f64, zeros above the diagonal) in scratch w, the 1-based
// pivots in scratch piv (see that task's reference for the steps).
// Launch 2, cooperative: M = LD diag(pivots) LD^T (each entry a sum over l <= min(i, j), one
// thread per entry), then torch.linalg.solve(M, b): a blocked LU of M with partial pivoting
// (lu_factor: 32-column panels by block 0, the panel's exchanges applied by the grid, U12 by a
// unit-lower solve, the trailing matrix by a tiled f64 gemm), b's rows exchanged in order, and
// two blocked triangular solves.
//
// Precision: f64 throughout, rounded once: exact for the f32 input (given the pivot decisions)
// to ~n 1e-16 cond(M); the tolerance is the budget left for a candidate's f32 rounding (PyTorch
// itself factors in f32). The LDL step is one block, O(n^3) (perf sizes stop at n = 512).
//
// @kbx scratch w f64 [max(1, n * n)]
// @kbx scratch t f64 [max(1, 2 * n)]
// @kbx scratch piv i32 [max(1, n)]
// @kbx scratch m f64 [max(1, n * n)]
// @kbx scratch xs f64 [max(1, n * k)]
// @kbx scratch ip i64 [max(1, n)]
// @kbx launch ldl_bunch_kaufman<<<1, 1024>>>(a, piv, w, t, i64(1), n)
// @kbx launch ldl_rebuild_solve<<<sms, 256>>>(w, piv, b, x, m, xs, ip, n, k) cooperative

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

#define BK_THREADS 1024
#define FULL 0xffffffffu

// Largest |p[i * stride]| for i < count and its first index (-1 if none), over the block.
// Every thread gets the result. Uses s_val / s_idx; ends with a barrier.
__device__ void block_argmax_abs(const double* p, long long stride, long long count, double* s_val, long long* s_idx,
				 double& best_out, long long& idx_out)
{
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	double best = -1.0;
	long long bi = -1;
	for (long long i = tid; i < count; i += BK_THREADS) {
		const double v = fabs(p[i * stride]);
		if (v > best) { // i increases along the loop: keeps the first maximum
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
	best = s_val[0];
	bi = s_idx[0];
	for (int q = 1; q < BK_THREADS / 32; q++)
		if (s_val[q] > best || (s_val[q] == best && s_idx[q] >= 0 && (bi < 0 || s_idx[q] < bi))) {
			best = s_val[q];
			bi = s_idx[q];
		}
	__syncthreads(); // s_val / s_idx are reused
	best_out = bi < 0 ? 0.0 : best;
	idx_out = bi;
}

__device__ __forceinline__ void swapd(double* x, double* y)
{
	const double t = *x;
	*x = *y;
	*y = t;
}

extern "C" __global__ void __launch_bounds__(BK_THREADS)
ldl_bunch_kaufman(const float* __restrict__ a, int* __restrict__ pivots, double* __restrict__ w, double* __restrict__ t,
		  long long batch, long long n)
{
	__shared__ double s_val[BK_THREADS / 32];
	__shared__ long long s_idx[BK_THREADS / 32];
	if (blockIdx.x >= batch)
		return;
	const int tid = threadIdx.x;
	const double alpha = (1.0 + sqrt(17.0)) / 8.0;
	const float* A = a + blockIdx.x * n * n;
	double* W = w + blockIdx.x * n * n;
	double* T = t + blockIdx.x * 2 * n;
	int* piv = pivots + blockIdx.x * n;

	for (long long e = tid; e < n * n; e += BK_THREADS)
		W[e] = (e % n <= e / n) ? (double)A[e] : 0.0;
	__syncthreads();

	long long k = 0;
	while (k < n) { // every thread takes the same decisions (from block-wide results)
		const double absakk = fabs(W[k * n + k]);
		double colmax = 0.0;
		long long imax = k;
		if (k < n - 1) {
			long long idx;
			block_argmax_abs(W + (k + 1) * n + k, n, n - k - 1, s_val, s_idx, colmax, idx);
			imax = idx < 0 ? k : k + 1 + idx;
		}
		int kstep = 1;
		long long kp = k;
		const bool skip = (absakk == 0.0 && colmax == 0.0) || isnan(absakk);
		if (!skip && !(absakk >= alpha * colmax)) {
			double rowmax, r2;
			long long idx;
			block_argmax_abs(W + imax * n + k, 1, imax - k, s_val, s_idx, rowmax, idx); // row imax, left of the diagonal
			if (imax < n - 1) {
				block_argmax_abs(W + (imax + 1) * n + imax, n, n - imax - 1, s_val, s_idx, r2, idx); // column imax below
				rowmax = fmax(rowmax, r2);
			}
			if (absakk >= alpha * colmax * (colmax / rowmax))
				kp = k;
			else if (fabs(W[imax * n + imax]) >= alpha * rowmax)
				kp = imax;
			else {
				kp = imax;
				kstep = 2;
			}
		}
		__syncthreads(); // every thread has read W for its decision before the exchange writes it
		const long long kk = k + kstep - 1;
		if (!skip && kp != kk) { // exchange rows / columns kk and kp of the trailing part
			for (long long i = kp + 1 + tid; i < n; i += BK_THREADS)
				swapd(&W[i * n + kk], &W[i * n + kp]);
			for (long long j = kk + 1 + tid; j < kp; j += BK_THREADS)
				swapd(&W[j * n + kk], &W[kp * n + j]);
			if (tid == 0) {
				swapd(&W[kk * n + kk], &W[kp * n + kp]);
				if (kstep == 2)
					swapd(&W[(k + 1) * n + k], &W[kp * n + k]);
			}
		}
		__syncthreads();
		if (!skip && kstep == 1 && k < n - 1) {
			const double d11 = 1.0 / W[k * n + k];
			const long long m = n - k - 1;
			for (long long e = tid; e < m * m; e += BK_THREADS) {
				const long long i = k + 1 + e / m, j = k + 1 + e % m;
				if (j <= i)
					W[i * n + j] -= d11 * W[i * n + k] * W[j * n + k];
			}
			__syncthreads();
			for (long long i = k + 1 + tid; i < n; i += BK_THREADS)
				W[i * n + k] *= d11;
		} else if (!skip && kstep == 2 && k < n - 2) {
			double d21 = W[(k + 1) * n + k];
			const double d11 = W[(k + 1) * n + k + 1] / d21, d22 = W[k * n + k] / d21;
			const double tt = 1.0 / (d11 * d22 - 1.0);
			d21 = tt / d21;
			for (long long j = k + 2 + tid; j < n; j += BK_THREADS) {
				T[j] = d21 * (d11 * W[j * n + k] - W[j * n + k + 1]);
				T[n + j] = d21 * (d22 * W[j * n + k + 1] - W[j * n + k]);
			}
			__syncthreads();
			const long long m = n - k - 2;
			for (long long e = tid; e < m * m; e += BK_THREADS) {
				const long long i = k + 2 + e / m, j = k + 2 + e % m;
				if (j <= i)
					W[i * n + j] -= W[i * n + k] * T[j] + W[i * n + k + 1] * T[n + j];
			}
			__syncthreads();
			for (long long j = k + 2 + tid; j < n; j += BK_THREADS) {
				W[j * n + k] = T[j];
				W[j * n + k + 1] = T[n + j];
			}
		}
		if (tid == 0) {
			if (kstep == 1)
				piv[k] = (int)(kp + 1);
			else
				piv[k] = piv[k + 1] = (int)(-(kp + 1));
		}
		__syncthreads();
		k += kstep;
	}
	// W keeps LD in f64: lower triangle, exact zeros above (never written by the steps)
}

extern "C" __global__ void __launch_bounds__(THREADS)
ldl_rebuild_solve(const double* __restrict__ w, const int* __restrict__ piv, const float* __restrict__ b,
		  float* __restrict__ x, double* __restrict__ m, double* __restrict__ xs, long long* __restrict__ ip,
		  long long n, long long k)
{
	cg::grid_group grid = cg::this_grid();
	const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long gstride = (long long)gridDim.x * blockDim.x;

	for (long long e = gtid; e < n * n; e += gstride) { // M = LD diag(pivots) LD^T
		const long long i = e / n, j = e % n, lmax = i < j ? i : j;
		double s = 0.0;
		for (long long l = 0; l <= lmax; l++)
			s += w[i * n + l] * (double)piv[l] * w[j * n + l];
		m[e] = s;
	}
	for (long long e = gtid; e < n * k; e += gstride)
		xs[e] = (double)b[e];
	grid.sync();
	lu_factor(grid, m, n, n, ip, true);
	for (long long c = gtid; c < k; c += gstride)
		for (long long j = 0; j < n; j++) {
			const long long p = ip[j];
			if (p != j) {
				const double t = xs[j * k + c];
				xs[j * k + c] = xs[p * k + c];
				xs[p * k + c] = t;
			}
		}
	grid.sync();
	trsm(grid, xs, k, n, k, View<double>{ m, n, 1 }, true, true);
	trsm(grid, xs, k, n, k, View<double>{ m, n, 1 }, false, false);
	for (long long e = gtid; e < n * k; e += gstride)
		x[e] = (float)xs[e];
}
