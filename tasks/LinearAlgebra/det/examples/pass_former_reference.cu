// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// det reference: LU factorization with partial pivoting, det = sign(P) * prod(U[j, j]).
//
// The factorization runs in f64 on a scratch copy and the determinant is rounded to f32 once.
// Why f64: the determinant amplifies rounding by about n * u * cond(A) (u = 6e-8 in f32), so an
// f32 LU (what torch.linalg.det does) is itself off by up to ~6e-6 relative on the cases here
// (the 257 x 257 Laplacian) and by up to ~1e-4 on rare ill-conditioned 4 x 4 draws; the f64
// result is the correctly rounded determinant of the f32 input (to ~1e-12), and the tolerance in
// task.ini is the budget left for a candidate's own f32 error.
//
// One cooperative kernel (grid-wide barriers between the steps of column j):
//   block 0:    pivot search in column j (first row of largest |.|; NaN never wins, so an all-NaN
//               column keeps the diagonal), swap rows j and p from column j on, multiply the pivot
//               into det (negated for a swap);
//   all blocks: trailing update A[i, k] -= A[i, j] / A[j, j] * A[j, k] for i, k > j, one warp per
//               row, lanes along the row (coalesced). A zero pivot (singular) skips the update, as
//               LAPACK getrf does, and det stays 0.
// L is never stored: the determinant only needs the pivots. n = 0 gives det = 1.
//
// @kbx scratch lu f64 [n, n]
// @kbx launch det_lu<<<sms, 512>>>(a, lu, d, n) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 512

extern "C" __global__ void __launch_bounds__(THREADS)
det_lu(const float* __restrict__ a, double* __restrict__ lu, float* __restrict__ d, long long n)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ double s_val[THREADS / 32];
	__shared__ long long s_idx[THREADS / 32];
	__shared__ long long s_piv_row;

	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	const long long gtid = (long long)blockIdx.x * blockDim.x + tid;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	const long long gwarp = gtid / 32, nwarps = gstride / 32;

	for (long long i = gtid; i < n * n; i += gstride)
		lu[i] = (double)a[i];
	grid.sync();

	double det = 1.0; // kept by thread 0 of block 0
	for (long long j = 0; j < n; j++) {
		if (blockIdx.x == 0) {
			// --- pivot search: (largest |value|, smallest row) over rows j .. n-1 ---
			double best = -1.0;
			long long bi = -1;
			for (long long i = j + tid; i < n; i += THREADS) {
				double v = fabs(lu[i * n + j]);
				if (v > best) { // rows increase along this loop: keeps the first maximum
					best = v;
					bi = i;
				}
			}
			for (int off = 16; off > 0; off >>= 1) {
				double ov = __shfl_xor_sync(0xffffffffu, best, off);
				long long oi = __shfl_xor_sync(0xffffffffu, bi, off);
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
				for (int w = 1; w < THREADS / 32; w++) {
					double ov = s_val[w];
					long long oi = s_idx[w];
					if (ov > best || (ov == best && oi >= 0 && (bi < 0 || oi < bi))) {
						best = ov;
						bi = oi;
					}
				}
				s_piv_row = bi < 0 ? j : bi; // all NaN: keep the diagonal (NaN pivot)
			}
			__syncthreads();
			const long long p = s_piv_row;
			// --- row swap, columns j .. n-1 (the columns left of j are no longer read) ---
			if (p != j)
				for (long long k = j + tid; k < n; k += THREADS) {
					double t = lu[j * n + k];
					lu[j * n + k] = lu[p * n + k];
					lu[p * n + k] = t;
				}
			__syncthreads();
			if (tid == 0) {
				double piv = lu[j * n + j];
				det *= (p != j) ? -piv : piv;
			}
		}
		grid.sync();

		// --- trailing update with the pivot row j ---
		const double piv = lu[j * n + j];
		if (piv != 0.0) { // NaN != 0: a NaN pivot propagates
			for (long long i = j + 1 + gwarp; i < n; i += nwarps) {
				const double l = lu[i * n + j] / piv;
				for (long long k = j + 1 + lane; k < n; k += 32)
					lu[i * n + k] -= l * lu[j * n + k];
			}
		}
		grid.sync();
	}
	if (gtid == 0)
		d[0] = (float)det;
}
