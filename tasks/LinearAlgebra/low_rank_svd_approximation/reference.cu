// low_rank_svd_approximation reference: A_k = sum over the k largest singular triplets of
// sigma_i u_i v_i^T, from a one-sided Jacobi SVD in f64 (one cooperative kernel).
//
// The k0 = min(m, n) columns of A (its rows when m < n) become the rows w_j of an f64 scratch,
// orthogonalized by jacobi_rotate_rows (parallel cyclic Jacobi, one warp per pair of a round,
// a grid barrier per round, sweeps until one rotates nothing; the rotations accumulate in Vt).
// Then w_j = sigma_j u_j (m >= n) and Vt's row j is v_j, so no normalization is needed:
//   m >= n: A_k[r, c] = sum over the k selected j of w_j[r] Vt[j, c];
//   m <  n: A_k[r, c] = sum over them of Vt[j, r] w_j[c]
// (the selected j are those of rank < k in descending sigma; one thread per entry of A_k).
// full_matrices does not change A_k.
//
// Precision: f64; the sweeps stop at relative orthogonality 1e-13, so A_k is exact to ~1e-13
// sigma_1 / (sigma_k - sigma_{k+1}) relative. Cost: Jacobi sweeps are O(k0^2 max(m, n)) each,
// about 10 of them: slower than PyTorch's bidiagonalization at the largest perf sizes.
//
// @kbx scratch w f64 [max(1, m * n)]
// @kbx scratch vt f64 [max(1, min(m, n) * min(m, n))]
// @kbx scratch sig f64 [max(1, min(m, n)) + 1]
// @kbx scratch rk i64 [max(1, 2 * min(m, n))]
// @kbx scratch flag i32 [2]
// @kbx launch low_rank_jacobi<<<sms, 256>>>(a, y, w, vt, sig, rk, flag, batch, m, n, k) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define FULL 0xffffffffu
#define JACOBI_TOL 1e-13
#define JACOBI_MAX_SWEEPS 40
#define JACOBI_NEGLIGIBLE 1e-30 // (1e-15)^2, relative to |A|_F^2

__device__ __forceinline__ double warp_sum(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(FULL, v, off);
	return v;
}

// One-sided (Hestenes) Jacobi: makes the K rows of W (length L, row-major) mutually orthogonal
// by plane rotations, applying the same rotations to the rows of Vt (K x K, starts as I), so
// that W = Vt B for the original rows B. Parallel cyclic order: each sweep is K2 - 1 rounds of
// the circle method (K2 = K rounded up to even), every round K2 / 2 disjoint pairs, one warp
// per pair, a grid barrier between rounds. A pair is rotated when |w_p . w_q| > JACOBI_TOL
// |w_p| |w_q|; the sweeps stop after one that rotated nothing. A row whose squared norm falls
// below JACOBI_NEGLIGIBLE |A|_F^2 is rounding noise left by the rotations (a rank-deficient A)
// and takes part in no further rotation (its singular value is reported as 0 by
// norms_and_ranks). flag[2] counts rotations of the current sweep (flag[0] must be 0 on
// entry); fro[0] receives |A|_F^2 (summed by block 0 alone: deterministic). The whole grid
// must call it.
__device__ void jacobi_rotate_rows(cg::grid_group& grid, double* W, double* Vt, long long K, long long L, int* flag,
				   double* fro)
{
	const int lane = threadIdx.x % 32;
	const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const long long nwarps = (long long)gridDim.x * blockDim.x / 32;
	const long long K2 = K + (K & 1);
	if (blockIdx.x == 0) {
		__shared__ double s_part[THREADS / 32];
		double t = 0.0;
		for (long long e = threadIdx.x; e < K * L; e += THREADS)
			t += W[e] * W[e];
		t = warp_sum(t);
		if (lane == 0)
			s_part[threadIdx.x / 32] = t;
		__syncthreads();
		if (threadIdx.x == 0) {
			double f = 0.0;
			for (int q = 0; q < THREADS / 32; q++)
				f += s_part[q];
			fro[0] = f;
		}
	}
	grid.sync();
	const double negligible = JACOBI_NEGLIGIBLE * fro[0];
	if (K < 2)
		return;
	for (int sweep = 0; sweep < JACOBI_MAX_SWEEPS; sweep++) {
		for (long long r = 0; r < K2 - 1; r++) {
			for (long long i = gwarp; i < K2 / 2; i += nwarps) {
				long long p, q;
				if (i == 0) {
					p = r;
					q = K2 - 1;
				} else {
					p = (r + i) % (K2 - 1);
					q = (r - i + K2 - 1) % (K2 - 1);
				}
				if (p >= K || q >= K)
					continue; // the dummy of an odd K
				double* wp = W + p * L;
				double* wq = W + q * L;
				double a = 0.0, b = 0.0, g = 0.0;
				for (long long e = lane; e < L; e += 32) {
					const double x = wp[e], y = wq[e];
					a += x * x;
					b += y * y;
					g += x * y;
				}
				a = warp_sum(a);
				b = warp_sum(b);
				g = warp_sum(g);
				if (a < negligible || b < negligible || !(fabs(g) > JACOBI_TOL * sqrt(a) * sqrt(b)))
					continue; // uniform over the warp
				const double zeta = (b - a) / (2.0 * g);
				const double t = (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
				const double c = 1.0 / sqrt(1.0 + t * t), s = c * t;
				for (long long e = lane; e < L; e += 32) {
					const double x = wp[e], y = wq[e];
					wp[e] = c * x - s * y;
					wq[e] = s * x + c * y;
				}
				double* vp = Vt + p * K;
				double* vq = Vt + q * K;
				for (long long e = lane; e < K; e += 32) {
					const double x = vp[e], y = vq[e];
					vp[e] = c * x - s * y;
					vq[e] = s * x + c * y;
				}
				if (lane == 0)
					atomicAdd(&flag[sweep & 1], 1);
			}
			grid.sync();
			if (r == 0 && blockIdx.x == 0 && threadIdx.x == 0)
				flag[(sweep + 1) & 1] = 0; // everyone has read it (last sweep's verdict) by now
		}
		if (((volatile int*)flag)[sweep & 1] == 0) // read after the round's barrier: the same for every thread
			break;
	}
	grid.sync(); // the verdict is read before anyone touches flag again
}

// sig[j] = |w_j| (0 for a negligible row, see jacobi_rotate_rows) and rk[j] = the rank of
// sig[j] in descending order (ties by index), pj[rank] = j. Ends with a grid barrier.
__device__ void norms_and_ranks(cg::grid_group& grid, const double* W, long long K, long long L, double* sig,
				long long* rk, long long* pj, const double* fro)
{
	const int lane = threadIdx.x % 32;
	const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	for (long long j = gtid / 32; j < K; j += gstride / 32) {
		double s = 0.0;
		for (long long e = lane; e < L; e += 32)
			s += W[j * L + e] * W[j * L + e];
		s = warp_sum(s);
		if (lane == 0)
			sig[j] = s < JACOBI_NEGLIGIBLE * fro[0] ? 0.0 : sqrt(s);
	}
	grid.sync();
	for (long long j = gtid; j < K; j += gstride) {
		long long r = 0;
		for (long long i = 0; i < K; i++)
			r += (sig[i] > sig[j] || (sig[i] == sig[j] && i < j)) ? 1 : 0;
		rk[j] = r;
		pj[r] = j;
	}
	grid.sync();
}

extern "C" __global__ void __launch_bounds__(THREADS)
low_rank_jacobi(const float* __restrict__ a, float* __restrict__ y, double* __restrict__ w, double* __restrict__ vt,
		double* __restrict__ sig, long long* __restrict__ rk, int* __restrict__ flag, long long batch, long long m,
		long long n, long long k)
{
	cg::grid_group grid = cg::this_grid();
	const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	const bool tall = m >= n;
	const long long K = tall ? n : m, L = tall ? m : n;
	const long long kk = k < K ? k : K;
	long long* pj = rk + K;
	double* fro = sig + K;

	for (long long bi = 0; bi < batch; bi++) {
		const float* A = a + bi * m * n;
		for (long long e = gtid; e < m * n; e += gstride) {
			const long long r = e / n, c = e % n;
			if (tall)
				w[c * m + r] = (double)A[e];
			else
				w[e] = (double)A[e];
		}
		for (long long e = gtid; e < K * K; e += gstride)
			vt[e] = (e / K == e % K) ? 1.0 : 0.0;
		if (gtid == 0)
			flag[0] = 0;
		grid.sync();
		jacobi_rotate_rows(grid, w, vt, K, L, flag, fro);
		norms_and_ranks(grid, w, K, L, sig, rk, pj, fro);
		float* Y = y + bi * m * n;
		for (long long e = gtid; e < m * n; e += gstride) {
			const long long r = e / n, c = e % n;
			double acc = 0.0;
			for (long long t = 0; t < kk; t++) {
				const long long j = pj[t];
				acc += tall ? w[j * L + r] * vt[j * K + c] : vt[j * K + r] * w[j * L + c];
			}
			Y[e] = (float)acc;
		}
		grid.sync(); // scratch reused by the next matrix
	}
}
