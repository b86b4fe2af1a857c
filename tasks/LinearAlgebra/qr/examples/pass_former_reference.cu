// @kbx expect pass
// The former reference, replaced on 2026-12-03 by a faster kernel (reference.cu); kept as a
// second, independent implementation that every case checks against the new one.
// qr reference: Householder QR in f64 (LAPACK's geqr2 + org2r reflectors), one cooperative kernel.
//
// The matrix is stored transposed in an f64 scratch (W[c][r] = A[r][c]), so that a column of A
// is a contiguous row. Step j (j < k = min(m, n)), between grid barriers:
//   every block reads column j below the diagonal and computes the same reflector
//   (dlarfg: beta = -sign(alpha) |x|, tau = (beta - alpha) / beta, v = x / (alpha - beta) with
//   v_j = 1; tau = 0 when x is already zero below the diagonal); block 0 records tau, the scale
//   1 / (alpha - beta) and beta = R[j, j]; column j itself is left as it is (v is rebuilt from
//   it, so nothing that another block still reads is overwritten);
//   every warp takes columns c > j of the trailing matrix: w = v^T A[j:, c] (lanes along the
//   column, a shuffle reduction), A[j:, c] -= tau w v.
// R[i, c] (c > i) is then W[c][i], R[i, i] = beta_i. Q = H_0 .. H_{k-1} applied to the first
// columns of I, backwards (j = k-1 .. 0), again one warp per column and a barrier per step;
// column c < j of I is untouched by H_j and skipped (as org2r). Finally every row i of R with
// R[i, i] < 0 is negated together with column i of Q, so R has a non-negative diagonal (a
// fixed choice among the sign-equivalent factorizations; the verifier accepts any).
//
// Precision: f64 throughout, rounded once: R is exact for the f32 input to ~n 1e-16 cond(A).
// Cost: unblocked, each step reads and writes the trailing matrix once (O(m n^2) memory
// traffic, ~5x PyTorch's blocked geqrf at n = 4096).
//
// @kbx scratch wt f64 [max(1, m * n)]
// @kbx scratch y f64 [max(1, m * m)]
// @kbx scratch aux f64 [max(1, 3 * min(m, n))]
// @kbx launch qr_householder<<<sms, 256>>>(a, q, r, wt, y, aux, batch, m, n, mode) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define FULL 0xffffffffu

// Sum over the block; every thread gets it. s has THREADS / 32 slots; ends with a barrier.
__device__ double block_sum(double v, double* s)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(FULL, v, off);
	if (threadIdx.x % 32 == 0)
		s[threadIdx.x / 32] = v;
	__syncthreads();
	double t = 0.0;
	for (int q = 0; q < THREADS / 32; q++)
		t += s[q];
	__syncthreads();
	return t;
}

extern "C" __global__ void __launch_bounds__(THREADS)
qr_householder(const float* __restrict__ a, float* __restrict__ q, float* __restrict__ r, double* __restrict__ wt,
	       double* __restrict__ y, double* __restrict__ aux, long long batch, long long m, long long n, int mode)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ double s_red[THREADS / 32];
	const int lane = threadIdx.x % 32;
	const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	const long long gwarp = gtid / 32, nwarps = gstride / 32;
	const long long k = m < n ? m : n;
	const long long qc = mode ? m : k; // columns of Q, rows of R
	double* tau = aux;
	double* scal = aux + k;
	double* beta = aux + 2 * k;

	for (long long bi = 0; bi < batch; bi++) {
		const float* A = a + bi * m * n;
		for (long long e = gtid; e < m * n; e += gstride)
			wt[(e % n) * m + e / n] = (double)A[e];
		grid.sync();
		for (long long j = 0; j < k; j++) {
			const double* x = wt + j * m; // column j of A
			double ss = 0.0;
			for (long long i = j + 1 + threadIdx.x; i < m; i += THREADS)
				ss += x[i] * x[i];
			ss = block_sum(ss, s_red);
			const double alpha = x[j];
			double t = 0.0, sc = 0.0, bt = alpha;
			if (ss > 0.0) {
				const double nrm = sqrt(alpha * alpha + ss);
				bt = alpha >= 0.0 ? -nrm : nrm;
				t = (bt - alpha) / bt;
				sc = 1.0 / (alpha - bt);
			}
			if (gtid == 0) {
				tau[j] = t;
				scal[j] = sc;
				beta[j] = bt;
			}
			if (t != 0.0)
				for (long long c = j + 1 + gwarp; c < n; c += nwarps) {
					double* col = wt + c * m;
					const double cj = col[j]; // read by every lane before lane 0 rewrites it
					double d = 0.0;
					for (long long i = j + 1 + lane; i < m; i += 32)
						d += x[i] * col[i];
					for (int off = 16; off > 0; off >>= 1)
						d += __shfl_xor_sync(FULL, d, off);
					d = t * (cj + sc * d); // tau * v^T col
					if (lane == 0)
						col[j] -= d;
					for (long long i = j + 1 + lane; i < m; i += 32)
						col[i] -= d * sc * x[i];
				}
			grid.sync();
		}
		// Q^T accumulated in y [qc][m]: rows of the identity, then H_j from the last to the first
		for (long long e = gtid; e < qc * m; e += gstride)
			y[e] = (e / m == e % m) ? 1.0 : 0.0;
		grid.sync();
		for (long long j = k - 1; j >= 0; j--) {
			const double t = tau[j], sc = scal[j];
			const double* x = wt + j * m;
			if (t != 0.0)
				for (long long c = j + gwarp; c < qc; c += nwarps) {
					double* row = y + c * m;
					const double rj = row[j];
					double d = 0.0;
					for (long long i = j + 1 + lane; i < m; i += 32)
						d += x[i] * row[i];
					for (int off = 16; off > 0; off >>= 1)
						d += __shfl_xor_sync(FULL, d, off);
					d = t * (rj + sc * d);
					if (lane == 0)
						row[j] -= d;
					for (long long i = j + 1 + lane; i < m; i += 32)
						row[i] -= d * sc * x[i];
				}
			grid.sync();
		}
		float* Q = q + bi * m * qc;
		float* R = r + bi * qc * n;
		for (long long e = gtid; e < m * qc; e += gstride) {
			const long long i = e / qc, c = e % qc;
			const double s = (c < k && beta[c] < 0.0) ? -1.0 : 1.0;
			Q[e] = (float)(s * y[c * m + i]);
		}
		for (long long e = gtid; e < qc * n; e += gstride) {
			const long long i = e / n, c = e % n;
			double v = 0.0;
			if (i < k && c >= i)
				v = (c == i) ? beta[i] : wt[c * m + i];
			if (i < k && beta[i] < 0.0)
				v = -v;
			R[e] = (float)v;
		}
		grid.sync(); // scratch reused by the next matrix
	}
}
