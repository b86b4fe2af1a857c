// @kbx expect pass
// A faster route to the same A_k: block subspace iteration on the Gram matrix in f64, with
// Rayleigh-Ritz, locking and a shift (one cooperative kernel, every step separated by grid
// barriers, no float atomics: the result is the same on every run).
//
// Let M be A (m >= n) or A^T (m < n): M is L x K with K = min(m, n), L = max(m, n). A_k is the
// projection of M onto its top-k right singular subspace, M_k = M V_k V_k^T, where V_k holds
// the top-k eigenvectors of G = M^T M (K x K, formed once per matrix in f64).
//   1. X (K x b, b = min(K, k + 62) columns) starts from a fixed pseudo-random matrix (an
//      integer hash of (row, column)).
//   2. A check: X is orthonormalized (Cholesky QR twice: S = X^T X, one block builds the upper
//      triangular T with X T orthonormal; a column whose remaining norm is below 1e-7 of its
//      own is numerically dependent and is dropped to zero), then Rayleigh-Ritz: Z = G X,
//      H = X^T Z, H = W diag(theta) W^T by cyclic Jacobi in one block, X <- X W, Z <- Z W
//      (columns sorted by descending theta).
//   3. Convergence: E = X_k - X_k' (X_k'^T X_k), the change of the top-k Ritz basis since the
//      last check, weighted by G: d = trace(E^T G E) / trace(G) (the squared relative Frobenius
//      change of M P_k). The estimated remaining error d / (1 - r^c)^2, with r = max(theta_b -
//      mu, mu) / (theta_k - mu) the estimated rate per step, below 1e-20 ends the iteration
//      (also after 600 steps, a cap no test input reaches). If b = K the Ritz vectors are the
//      exact eigenvectors (a full decomposition): done at the first check.
//   4. Locking: leading Ritz vectors whose residual |G x - theta x| is below 1e-12 of their
//      distance to the neighbouring Ritz values are frozen (for uniform(0, 1) matrices: the
//      dominant sigma_1 ~ n / 2); the other (active) columns are kept orthogonal to them.
//   5. c steps between checks: X_A <- (G - mu I) X_A, column j scaled by 1 / (theta_j - mu),
//      the locked columns projected out; mu = theta_b / 2 (the best shift for a spectrum in
//      [0, theta_b]); c is the largest (at most 16) that keeps the growth of the active
//      columns' spread, ((theta_first - mu) / (theta_b - mu))^c, under 1e5, so that Cholesky
//      QR stays accurate.
//   6. A_k: P = M X_k (L x k), M_k = P X_k^T, written as f32 (transposed back when m < n).
// full_matrices does not change A_k.
//
// Precision: f64 throughout. G's rounding moves V_k by ~1e-16 sigma_1^2 / (sigma_k^2 -
// sigma_{k+1}^2) (~2e-10 on the largest perf row); a CPU emulation of this algorithm put A_k
// within 1e-12 of LAPACK's f64 SVD on every case and perf shape. Cost (perf rows, k = 50,
// b = 112): ~15 steps at n = 256, ~50 at 768, ~100 at 1408, each a K x K x b product, plus
// about 11 checks (Cholesky QR and a 111 x 111 Jacobi in one block, in shared memory).
//
// Run on an H200 on 2026-12-03 (bench/h200_steps.sh X, before the swap): tools/crosscheck.py
// against PyTorch on every case passes (15 of 15 outputs, max error 7.1e-05), and
// tests/gpu/check_task.sh with every perf row passes it (the former reference, now
// examples/pass_former_reference.cu, passes against it at every case and perf row; both wrong
// examples keep their verdict). It was the reference from then until the same day's next
// session measured it through kbx eval on an H200 (eighteenth session, doc/timing.md): 1,933 ms
// over the perf rows, not the ~190 ms estimated below, and slower than the one-sided Jacobi
// reference (1,666 ms; PyTorch 432 ms). So the Jacobi kernel is the reference again and this one
// an example: it passes, but is no faster. Where the estimate went wrong is not known yet (the
// step counts of the port, the Jacobi in one block at each check, the 255-register kernel at
// one block an SM are the suspects; ncu would tell).
//
// Checked before that: compiles with NVRTC for sm_90 and passes kbx's ABI
// check (255 registers, a 4-byte spill, 200,704 bytes of dynamic shared memory: one block an SM).
// A line-by-line numpy port (not kept) against LAPACK's f64 SVD: every case of task.ini within
// 9e-14 (5e-7 after f32 rounding), the perf shapes n = 256 .. 1408 within 7e-13, with 24 .. 98
// subspace steps and 9 .. 11 checks. Estimated ~190 ms over the perf rows on an H200 (reference
// 1,666 ms, PyTorch 432 ms). An exactly rank-20 matrix with k = 50 (A_k not unique; no case is)
// runs to the step cap and still returns A within f32 rounding.
//
// @kbx scratch g f64 [min(m, n) * min(m, n)]
// @kbx scratch x f64 [min(m, n) * min(min(m, n), k + 62)]
// @kbx scratch z f64 [min(m, n) * min(min(m, n), k + 62)]
// @kbx scratch tmp f64 [max(min(m, n) * min(min(m, n), k + 62), max(m, n) * k)]
// @kbx scratch xo f64 [min(m, n) * k]
// @kbx scratch e f64 [2 * min(m, n) * k]
// @kbx scratch sq f64 [4 * min(min(m, n), k + 62) * min(min(m, n), k + 62) + 16]
// @kbx scratch vec f64 [6 * min(min(m, n), k + 62) + 32]
// @kbx scratch iv i64 [min(min(m, n), k + 62) + 16]
// @kbx launch low_rank_subspace<<<sms, 256, 200704>>>(a, y, g, x, z, tmp, xo, e, sq, vec, iv, batch, m, n, k) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define FULL 0xffffffffu
#define BK 16
#define TAU 1e-20	   // remaining error, squared and relative to |M|_F^2, that ends the iteration
#define COND_CAP 1e5	   // largest growth of the active columns' spread between two checks
#define CMAX 16		   // most steps between two checks
#define MAX_STEPS 600	   // safety cap (steps, plus 4 per check)
#define LOCK_TOL 1e-12	   // residual / gap below which a leading Ritz vector is locked
#define DROP_TOL 1e-14	   // squared remaining norm (relative) below which Cholesky QR drops a column
#define JACOBI_TOL 1e-14   // off-diagonal (relative to sqrt(h_pp h_qq)) that Jacobi still rotates
#define JACOBI_MAX_SWEEPS 60
#define SM_DOUBLES 25088 // dynamic shared memory: 2 b^2 doubles when b <= 112 (200704 bytes)

typedef long long ll;

__device__ __forceinline__ double warp_sum(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(FULL, v, off);
	return v;
}

// C = alpha op(A) op(B) + beta C (beta = 0: C is not read), M x N, reduction length R; element
// (i, l) of op(A) is A[i sai + l sal], (l, j) of op(B) is B[l sbl + j sbj], (i, j) of C is
// C[i sci + j scj]. T x T tiles over the grid, 256 threads with (T / 16)^2 outputs each, every
// output summed by one thread in a fixed order. The whole grid calls it; no barrier at the end.
template <int T, typename TA, typename TB, typename TC>
__device__ void gemm(double* sm, ll M, ll N, ll R, const TA* A, ll sai, ll sal, const TB* B, ll sbl, ll sbj, TC* C,
		     ll sci, ll scj, double alpha, double beta)
{
	constexpr int RR = T / 16;
	double* As = sm;	  // [BK][T]
	double* Bs = sm + BK * T; // [BK][T]
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const ll tm = (M + T - 1) / T, tn = (N + T - 1) / T;
	for (ll tile = blockIdx.x; tile < tm * tn; tile += gridDim.x) {
		const ll i0 = (tile / tn) * T, j0 = (tile % tn) * T;
		double acc[RR][RR];
#pragma unroll
		for (int r = 0; r < RR; r++)
#pragma unroll
			for (int s = 0; s < RR; s++)
				acc[r][s] = 0.0;
		for (ll l0 = 0; l0 < R; l0 += BK) {
			for (int q = tid; q < BK * T; q += THREADS) {
				int li, ii;
				if (sal == 1) {
					li = q % BK;
					ii = q / BK;
				} else {
					li = q / T;
					ii = q % T;
				}
				const ll gi = i0 + ii, gl = l0 + li;
				As[li * T + ii] = (gi < M && gl < R) ? (double)A[gi * sai + gl * sal] : 0.0;
				int lj, jj;
				if (sbl == 1 && sbj != 1) {
					lj = q % BK;
					jj = q / BK;
				} else {
					lj = q / T;
					jj = q % T;
				}
				const ll gj = j0 + jj, gl2 = l0 + lj;
				Bs[lj * T + jj] = (gj < N && gl2 < R) ? (double)B[gl2 * sbl + gj * sbj] : 0.0;
			}
			__syncthreads();
#pragma unroll
			for (int l = 0; l < BK; l++) {
				double av[RR], bv[RR];
#pragma unroll
				for (int r = 0; r < RR; r++) {
					av[r] = As[l * T + ty + 16 * r];
					bv[r] = Bs[l * T + tx + 16 * r];
				}
#pragma unroll
				for (int r = 0; r < RR; r++)
#pragma unroll
					for (int s = 0; s < RR; s++)
						acc[r][s] = fma(av[r], bv[s], acc[r][s]);
			}
			__syncthreads();
		}
#pragma unroll
		for (int r = 0; r < RR; r++)
#pragma unroll
			for (int s = 0; s < RR; s++) {
				const ll i = i0 + ty + 16 * r, j = j0 + tx + 16 * s;
				if (i < M && j < N) {
					TC* p = C + i * sci + j * scj;
					double v = alpha * acc[r][s];
					if (beta != 0.0)
						v += beta * (double)*p;
					*p = (TC)v;
				}
			}
	}
}

// Picks 64 x 64 tiles when they alone fill the grid, else 32 x 32.
template <typename TA, typename TB, typename TC>
__device__ void gemm_any(double* sm, ll M, ll N, ll R, const TA* A, ll sai, ll sal, const TB* B, ll sbl, ll sbj,
			 TC* C, ll sci, ll scj, double alpha, double beta)
{
	if (((M + 63) / 64) * ((N + 63) / 64) >= gridDim.x)
		gemm<64>(sm, M, N, R, A, sai, sal, B, sbl, sbj, C, sci, scj, alpha, beta);
	else
		gemm<32>(sm, M, N, R, A, sai, sal, B, sbl, sbj, C, sci, scj, alpha, beta);
}

// One block: T (N x N, ld N, upper triangular) such that Y T has orthonormal columns, from
// S = Y^T Y (N x N, ld N, destroyed): Cholesky run as Gram-Schmidt on the Gram matrix. A column
// whose squared remaining norm is below DROP_TOL of its own (s0) gets a zero column in T.
__device__ void chol_t(double* S, double* T, double* s0, ll N)
{
	const int tid = threadIdx.x;
	for (ll e = tid; e < N * N; e += THREADS)
		T[e] = (e / N == e % N) ? 1.0 : 0.0;
	for (ll j = tid; j < N; j += THREADS)
		s0[j] = S[j * N + j];
	__syncthreads();
	for (ll j = 0; j < N; j++) {
		const double dj = S[j * N + j];
		const bool ok = s0[j] > 0.0 && dj > DROP_TOL * s0[j];
		const double inv = ok ? 1.0 / sqrt(dj) : 0.0;
		for (ll i = tid; i <= j; i += THREADS)
			T[i * N + j] *= inv;
		for (ll l = j + 1 + tid; l < N; l += THREADS)
			S[j * N + l] *= inv;
		__syncthreads();
		// t_l -= s_jl t_j (rows i <= j), then the upper trailing Gram S_ll' -= s_jl s_jl'
		const ll w = N - j - 1;
		for (ll q = tid; q < w * (j + 1); q += THREADS) {
			const ll l = j + 1 + q / (j + 1), i = q % (j + 1);
			T[i * N + l] -= S[j * N + l] * T[i * N + j];
		}
		for (ll q = tid; q < w * w; q += THREADS) {
			const ll l = j + 1 + q / w, l2 = j + 1 + q % w;
			if (l2 >= l)
				S[l * N + l2] -= S[j * N + l] * S[j * N + l2];
		}
		__syncthreads();
	}
}

// One block: cyclic Jacobi on the symmetric H (N x N, ld N, destroyed), eigenvectors into the
// columns of W; then Ws = W with columns sorted by descending eigenvalue, th = the sorted
// eigenvalues. Parallel circle order, one round of disjoint pairs between barriers; sweeps
// until one rotates nothing. rot: 2 (N + 1) doubles, perm: N.
__device__ void jacobi_eig(double* H, double* W, double* Ws, double* th, double* rot, ll* perm, ll N)
{
	const int tid = threadIdx.x;
	__shared__ int s_rot;
	__shared__ double s_scale;
	for (ll e = tid; e < N * N; e += THREADS)
		W[e] = (e / N == e % N) ? 1.0 : 0.0;
	if (tid == 0) {
		double f = 0.0;
		for (ll i = 0; i < N; i++)
			f = fmax(f, fabs(H[i * N + i]));
		s_scale = f;
	}
	__syncthreads();
	const double negl = 1e-15 * s_scale; // below G's own rounding
	const ll N2 = N + (N & 1), P = N2 / 2;
	for (int sweep = 0; sweep < JACOBI_MAX_SWEEPS && N > 1; sweep++) {
		if (tid == 0)
			s_rot = 0;
		__syncthreads();
		for (ll r = 0; r < N2 - 1; r++) {
			for (ll i = tid; i < P; i += THREADS) {
				ll p, q;
				if (i == 0) {
					p = r;
					q = N2 - 1;
				} else {
					p = (r + i) % (N2 - 1);
					q = (r - i + N2 - 1) % (N2 - 1);
				}
				double c = 1.0, s = 0.0;
				if (p < N && q < N) {
					const double a = H[p * N + p], b = H[q * N + q], g = H[p * N + q];
					if (fabs(g) > JACOBI_TOL * sqrt(fabs(a) * fabs(b)) && fabs(g) > negl) {
						const double zeta = (b - a) / (2.0 * g);
						const double t = (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
						c = 1.0 / sqrt(1.0 + t * t);
						s = c * t;
						s_rot = 1;
					}
				}
				rot[2 * i] = c;
				rot[2 * i + 1] = s;
			}
			__syncthreads();
			// rows p, q of H (left J^T), then columns p, q of H and W (right J)
			for (int side = 0; side < 2; side++) {
				for (ll q2 = tid; q2 < P * N; q2 += THREADS) {
					const ll i = q2 / N, e = q2 % N;
					const double c = rot[2 * i], s = rot[2 * i + 1];
					if (s == 0.0)
						continue;
					ll p, q;
					if (i == 0) {
						p = r;
						q = N2 - 1;
					} else {
						p = (r + i) % (N2 - 1);
						q = (r - i + N2 - 1) % (N2 - 1);
					}
					if (side == 0) {
						const double x = H[p * N + e], y = H[q * N + e];
						H[p * N + e] = c * x - s * y;
						H[q * N + e] = s * x + c * y;
					} else {
						const double x = H[e * N + p], y = H[e * N + q];
						H[e * N + p] = c * x - s * y;
						H[e * N + q] = s * x + c * y;
						const double u = W[e * N + p], v = W[e * N + q];
						W[e * N + p] = c * u - s * v;
						W[e * N + q] = s * u + c * v;
					}
				}
				__syncthreads();
			}
		}
		const int any = s_rot;
		__syncthreads();
		if (!any)
			break;
	}
	for (ll j = tid; j < N; j += THREADS) {
		const double v = H[j * N + j];
		ll rk = 0;
		for (ll i = 0; i < N; i++) {
			const double u = H[i * N + i];
			rk += (u > v || (u == v && i < j)) ? 1 : 0;
		}
		perm[rk] = j;
	}
	__syncthreads();
	for (ll e = tid; e < N * N; e += THREADS) {
		const ll row = e / N, col = e % N;
		Ws[e] = W[row * N + perm[col]];
	}
	for (ll j = tid; j < N; j += THREADS)
		th[j] = H[perm[j] * N + perm[j]];
	__syncthreads();
}

__device__ __forceinline__ double start_value(ll i, ll j)
{
	unsigned long long z = (unsigned long long)i * 0x9E3779B97F4A7C15ull + (unsigned long long)j * 0xD1B54A32D192ED03ull + 12345ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return (double)(z >> 11) * 0x1p-52 - 1.0;
}

extern "C" __global__ void __launch_bounds__(THREADS)
low_rank_subspace(const float* __restrict__ a, float* __restrict__ y, double* __restrict__ g, double* __restrict__ x,
		  double* __restrict__ z, double* __restrict__ tmp, double* __restrict__ xo, double* __restrict__ e,
		  double* __restrict__ sq, double* __restrict__ vec, long long* __restrict__ iv, long long batch, long long m,
		  long long n, long long k)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ double sm[2 * BK * 64];
	__shared__ double s_part[THREADS / 32];
	__shared__ double s_rot[2 * 64];
	extern __shared__ double dsm[];
	const int lane = threadIdx.x % 32;
	const ll gtid = (ll)blockIdx.x * blockDim.x + threadIdx.x;
	const ll gstride = (ll)gridDim.x * blockDim.x;
	const ll gwarp = gtid / 32, nwarps = gstride / 32;
	const bool tall = m >= n;
	const ll K = tall ? n : m, L = tall ? m : n;
	const ll b = K < k + 62 ? K : k + 62;
	const ll mr = tall ? n : 1, mc = tall ? 1 : n; // M(l, c) = A[l mr + c mc]
	double* H = sq;		   // b x b
	double* W = sq + b * b;	   // b x b
	double* Ws = sq + 2 * b * b; // b x b
	double* Cb = sq + 3 * b * b; // b x b (projection and change coefficients)
	double* th = vec;		   // Ritz values, all b columns
	double* res2 = vec + b;	   // squared residuals
	double* sc = vec + 2 * b;	   // step scaling
	double* s0 = vec + 3 * b;	   // Cholesky QR's diagonal
	double* rot = vec + 4 * b;	   // Jacobi rotations, 2 (b + 1)
	double* ctl = vec + 6 * b + 4; // [0] mu, [1] trace(G), [2] d, [3] rate estimate
	ll* perm = iv;
	ll* ictl = iv + b; // [0] nl, [1] c, [2] done, [3] steps, [4] cprev
	// block 0's Cholesky and Jacobi run in shared memory when 2 b^2 doubles fit (b <= 112)
	const bool fits = 2 * b * b <= SM_DOUBLES;
	double* Hs = fits ? dsm : H;
	double* Wsm = fits ? dsm + b * b : W;
	double* rotp = fits ? s_rot : rot;
	double* E = e;
	double* F = e + K * k;

	for (ll bi = 0; bi < batch; bi++) {
		const float* A = a + bi * m * n;
		// G = M^T M and the start basis
		gemm_any(sm, K, K, L, A, mc, mr, A, mr, mc, g, K, (ll)1, 1.0, 0.0);
		for (ll q = gtid; q < K * b; q += gstride)
			x[q] = (b == K) ? ((q / b == q % b) ? 1.0 : 0.0) : start_value(q / b, q % b);
		if (gtid == 0) {
			ictl[0] = 0;
			ictl[1] = 0;
			ictl[2] = 0;
			ictl[3] = 0;
			ictl[4] = 1;
		}
		grid.sync();
		if (blockIdx.x == 0) {
			double t = 0.0;
			for (ll i = threadIdx.x; i < K; i += THREADS)
				t += g[i * K + i];
			t = warp_sum(t);
			if (lane == 0)
				s_part[threadIdx.x / 32] = t;
			__syncthreads();
			if (threadIdx.x == 0) {
				double f = 0.0;
				for (int q = 0; q < THREADS / 32; q++)
					f += s_part[q];
				ctl[1] = f;
			}
			__syncthreads();
		}
		for (int check = 0;; check++) {
			const ll nl = ((volatile ll*)ictl)[0], c = ((volatile ll*)ictl)[1], ba = b - nl;
			const double mu = ((volatile double*)ctl)[0];
			double* XA = x + nl;
			double* ZA = z + nl;
			// c steps: X_A <- ((G - mu) X_A) diag(sc), locked columns projected out
			for (ll s = 0; s < c; s++) {
				if (s > 0) {
					gemm_any(sm, K, ba, K, g, K, (ll)1, XA, b, (ll)1, ZA, b, (ll)1, 1.0, 0.0);
					grid.sync();
				}
				for (ll q = gtid; q < K * ba; q += gstride) {
					const ll i = q / ba, j = q % ba;
					XA[i * b + j] = (ZA[i * b + j] - mu * XA[i * b + j]) * sc[nl + j];
				}
				grid.sync();
				if (nl > 0) {
					gemm_any(sm, nl, ba, K, x, (ll)1, b, XA, b, (ll)1, Cb, ba, (ll)1, 1.0, 0.0);
					grid.sync();
					gemm_any(sm, K, ba, nl, x, b, (ll)1, Cb, ba, (ll)1, XA, b, (ll)1, -1.0, 1.0);
					grid.sync();
				}
			}
			if (gtid == 0)
				ictl[3] += c + 4; // a check counts as 4 steps towards MAX_STEPS
			// Cholesky QR twice (each after projecting out the locked columns)
			for (int pass = 0; pass < 2 && b < K; pass++) {
				if (nl > 0) {
					gemm_any(sm, nl, ba, K, x, (ll)1, b, XA, b, (ll)1, Cb, ba, (ll)1, 1.0, 0.0);
					grid.sync();
					gemm_any(sm, K, ba, nl, x, b, (ll)1, Cb, ba, (ll)1, XA, b, (ll)1, -1.0, 1.0);
					grid.sync();
				}
				gemm_any(sm, ba, ba, K, XA, (ll)1, b, XA, b, (ll)1, H, ba, (ll)1, 1.0, 0.0);
				grid.sync();
				if (blockIdx.x == 0) {
					if (fits)
						for (ll q = threadIdx.x; q < ba * ba; q += THREADS)
							Hs[q] = H[q];
					__syncthreads();
					chol_t(Hs, Wsm, s0, ba);
					if (fits)
						for (ll q = threadIdx.x; q < ba * ba; q += THREADS)
							W[q] = Wsm[q];
				}
				grid.sync();
				gemm_any(sm, K, ba, ba, XA, b, (ll)1, W, ba, (ll)1, tmp, ba, (ll)1, 1.0, 0.0);
				grid.sync();
				for (ll q = gtid; q < K * ba; q += gstride)
					XA[(q / ba) * b + q % ba] = tmp[q];
				grid.sync();
			}
			// Rayleigh-Ritz on the active columns
			gemm_any(sm, K, ba, K, g, K, (ll)1, XA, b, (ll)1, ZA, b, (ll)1, 1.0, 0.0);
			grid.sync();
			gemm_any(sm, ba, ba, K, XA, (ll)1, b, ZA, b, (ll)1, H, ba, (ll)1, 1.0, 0.0);
			grid.sync();
			if (blockIdx.x == 0) {
				for (ll q = threadIdx.x; q < ba * ba; q += THREADS) { // exact symmetry
					const ll i = q / ba, j = q % ba;
					if (i < j) {
						const double v = 0.5 * (H[i * ba + j] + H[j * ba + i]);
						H[i * ba + j] = v;
						H[j * ba + i] = v;
					}
				}
				__syncthreads();
				if (fits)
					for (ll q = threadIdx.x; q < ba * ba; q += THREADS)
						Hs[q] = H[q];
				__syncthreads();
				jacobi_eig(Hs, Wsm, Ws, th + nl, rotp, perm, ba);
			}
			grid.sync();
			gemm_any(sm, K, ba, ba, XA, b, (ll)1, Ws, ba, (ll)1, tmp, ba, (ll)1, 1.0, 0.0);
			grid.sync();
			for (ll q = gtid; q < K * ba; q += gstride)
				XA[(q / ba) * b + q % ba] = tmp[q];
			grid.sync();
			gemm_any(sm, K, ba, ba, ZA, b, (ll)1, Ws, ba, (ll)1, tmp, ba, (ll)1, 1.0, 0.0);
			grid.sync();
			for (ll q = gtid; q < K * ba; q += gstride)
				ZA[(q / ba) * b + q % ba] = tmp[q];
			grid.sync();
			// residuals of the active Ritz pairs
			for (ll j = gwarp; j < ba; j += nwarps) {
				double s2 = 0.0;
				for (ll i = lane; i < K; i += 32) {
					const double r = z[i * b + nl + j] - th[nl + j] * x[i * b + nl + j];
					s2 += r * r;
				}
				s2 = warp_sum(s2);
				if (lane == 0)
					res2[nl + j] = s2;
			}
			// the change of the top-k basis: E = X_k - X_old (X_old^T X_k), F = G E
			if (check > 0) {
				gemm_any(sm, k, k, K, xo, (ll)1, k, x, b, (ll)1, Cb, k, (ll)1, 1.0, 0.0);
				for (ll q = gtid; q < K * k; q += gstride)
					E[q] = x[(q / k) * b + q % k];
				grid.sync();
				gemm_any(sm, K, k, k, xo, k, (ll)1, Cb, k, (ll)1, E, k, (ll)1, -1.0, 1.0);
				grid.sync();
				gemm_any(sm, K, k, K, g, K, (ll)1, E, k, (ll)1, F, k, (ll)1, 1.0, 0.0);
			}
			grid.sync();
			if (blockIdx.x == 0) {
				double t = 0.0;
				if (check > 0)
					for (ll q = threadIdx.x; q < K * k; q += THREADS)
						t += E[q] * F[q];
				t = warp_sum(t);
				if (lane == 0)
					s_part[threadIdx.x / 32] = t;
				__syncthreads();
				if (threadIdx.x == 0) {
					double d = 0.0;
					for (int q = 0; q < THREADS / 32; q++)
						d += s_part[q];
					d /= fmax(ctl[1], 1e-300);
					ctl[2] = d;
					// control: shift, rate, convergence, locking, next step count
					const double tlast = fmax(th[b - 1], 0.0);
					const double mu2 = 0.5 * tlast;
					const double den = fmax(th[k - 1] - mu2, 1e-300);
					const double rate = fmin(fmax(tlast - mu2, mu2) / den, 1.0);
					const double red = fmax(1.0 - pow(rate, (double)ictl[4]), 1e-3);
					const double err2 = d / (red * red);
					ll done = 0;
					if (b == K || (check > 0 && err2 < TAU) || ictl[3] >= MAX_STEPS)
						done = 1;
					ll nl2 = nl;
					while (nl2 < b - 2) {
						const ll i = nl2;
						const double g1 = i > 0 ? th[i - 1] - th[i] : 1e300;
						const double g2 = th[i] - th[i + 1];
						if (th[i] > 0.0 && sqrt(res2[i]) <= LOCK_TOL * fmin(g1, g2))
							nl2++;
						else
							break;
					}
					const double rho = (th[nl2] - mu2) / fmax(tlast - mu2, 1e-300);
					ll c2 = CMAX;
					if (rho > 1.0) {
						const double cc = floor(log(COND_CAP) / log(rho));
						c2 = cc < 1.0 ? 1 : (cc > CMAX ? CMAX : (ll)cc);
					}
					const double big = fmax(th[nl2] - mu2, 1e-300);
					for (ll j = nl2; j < b; j++) // any positive scale is right: these keep norms ~1
						sc[j] = big > 1e-300 ? 1.0 / fmax(th[j] - mu2, 1e-14 * big) : 1.0;
					ctl[0] = mu2;
					ctl[3] = rate;
					ictl[0] = nl2;
					ictl[1] = c2;
					ictl[2] = done;
					ictl[4] = c2;
				}
				__syncthreads();
			}
			grid.sync();
			if (((volatile ll*)ictl)[2])
				break;
			for (ll q = gtid; q < K * k; q += gstride)
				xo[q] = x[(q / k) * b + q % k];
			grid.sync();
		}
		// A_k: P = M X_k (L x k), then M_k = P X_k^T as f32 (A_k = M_k, or its transpose)
		gemm_any(sm, L, k, K, A, mr, mc, x, b, (ll)1, tmp, k, (ll)1, 1.0, 0.0);
		grid.sync();
		float* Y = y + bi * m * n;
		gemm_any(sm, L, K, k, tmp, k, (ll)1, x, (ll)1, b, Y, mr, mc, 1.0, 0.0);
		grid.sync(); // scratch reused by the next matrix
	}
}
