// LinearAlgebra/matrix_power_eig: the reference since 2026-12-03. It is faster at the perf sizes
// than the former one, examples/pass_former_reference.cu, whose header states the task's
// semantics in full.
//
// Faster alternative: integer exponents 0 <= k <= 16 (the perf workload's k = 2 among them) by
// exact f64 matrix products; every other exponent by the reference's own Jacobi route, unchanged.
//
// What the reference does and why it is slow: one-sided Jacobi on the shifted matrix over the
// whole GPU, one grid barrier per round of the circle method (n - 1 rounds per sweep, ~10
// sweeps), each round n / 2 rotations of two length-n f64 rows plus two rows of Vt; then
// Y = V diag(lambda^k) V^T one thread per entry (n^3 f64 work with uncoalesced column reads).
// At the perf rows (k = 2, n = 256 .. 1664) that is 3116.5 ms over the 12 rows on an H200
// against PyTorch's 143.6 ms (cuSOLVER syevd + products): the ~10 n grid barriers and the
// serial rotation rounds dominate (n = 1664: ~17,000 barriers).
//
// What this kernel does: the result is a function of A alone (task.ini), and for an integer
// k >= 0, V diag(lambda^k) V^T = S^k exactly, S the symmetric matrix of a's lower triangle (as
// torch.linalg.matrix_power computes it). So for such k (k == rintf(k), 0 <= k <= 16):
//   S is written in f64 to the scratch vt (upper part mirrored from the lower triangle); k = 0
//   writes I and k = 1 writes S (both exact); k >= 2 multiplies k - 1 times, P <- P S, as a
//   tiled f64 GEMM over the grid (64 x 64 tiles of the output over the blocks, 256 threads of
//   4 x 4 outputs, K in steps of 32 through shared memory: the reference's own gemm tile), one
//   grid barrier between products; the last product is rounded to f32 into y.
// Any other k (non-integer, negative, > 16, NaN) runs the reference's kernel body verbatim
// (power_jacobi below: same scratch, same barriers, same arithmetic), so those cases give the
// reference's bits. Both branches are uniform over the grid (k is a scalar argument).
//
// Tolerance: the reference's f64 Jacobi route is accurate to ~1e-13 |S|_F; the f64 product of
// f32 inputs is exact per term for k = 2 (f32 x f32 fits a double) and summed in f64 (relative
// error ~n 1e-16 of sum |s_ir| |s_rj|); each further product adds as much. Both round once to
// f32, so they agree to f32 rounding, far inside rtol = atol = 5e-4 (n <= 100 in the cases,
// entries up to ~54 for indefinite_randn_33_k2). NaN semantics: integer k >= 0 never gives a
// NaN power (pow(x, 0) = 1, pow(x, m) finite), and a non-integer k takes the reference's path.
//
// Expected time: n = 1664, k = 2: one 1664^3 f64 GEMM = 4.6e9 FMA; 676 tiles of 64 x 64 over 132
// SMs (6 waves, each tile 64 x 64 x 1664 = 6.8 M FMA at ~64 DFMA / clock / SM = ~60 us) ~0.4-0.6
// ms, vs golden 20.2 ms; the twelve perf rows together ~2-3 ms against 143.6 ms (golden) and
// 3116.5 ms (reference). The non-integer rows of the cases keep the reference's speed.
//
// Run on an H200 on 2026-12-03 (bench/h200_steps.sh X, before the swap): tools/crosscheck.py
// against PyTorch on every case passes, and tests/gpu/check_task.sh with every perf row (the former
// reference, now examples/pass_former_reference.cu, passes against it at every case and perf row;
// each wrong example keeps its verdict).
//
// Checked before that: compiles and passes kbx's ABI check. A numpy emulation (not kept) of the
// product path (the tile loop with its 64 x 64 / 32 blocking, boundary zero fill, k0 steps and the
// P / w / p2 buffer rotation) against eigh-based f64 powers on the cases with integer k (n = 0, 1,
// 2, 5, 16, 33 with k = 0, 1, 2, 3 and randn / spd / values inputs, plus n = 65, 97, 130 and k = 2
// .. 7): after rounding to f32 the outputs equal the f64 eigh route's except k = 0 (worst |d| /
// (atol + rtol |ref|) 5e-13). The Jacobi path is the reference's code.
//
// @kbx scratch w f64 [max(1, n * n)]
// @kbx scratch vt f64 [max(1, n * n)]
// @kbx scratch p2 f64 [max(1, n * n)]
// @kbx scratch sig f64 [max(1, n) + 2]
// @kbx scratch rk i64 [max(1, 2 * n)]
// @kbx scratch flag i32 [2]
// @kbx launch matrix_power_fast<<<sms, 256>>>(a, y, w, vt, p2, sig, rk, flag, n, k) cooperative

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

__device__ void power_jacobi(cg::grid_group& grid, const float* __restrict__ a, float* __restrict__ y, double* __restrict__ w,
			     double* __restrict__ vt, double* __restrict__ sig, long long* __restrict__ rk, int* __restrict__ flag,
			     long long n, float k)
{
	__shared__ double s_red[THREADS / 32];
	const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	long long* pj = rk + n;
	double* fro = sig + n;       // |B|_F^2, from jacobi_rotate_rows
	double* shift = sig + n + 1; // c

	for (long long e = gtid; e < n * n; e += gstride) { // S from the lower triangle
		const long long r = e / n, c = e % n;
		w[e] = (double)(c <= r ? a[e] : a[c * n + r]);
		vt[e] = r == c ? 1.0 : 0.0;
	}
	if (gtid == 0)
		flag[0] = 0;
	grid.sync();
	if (blockIdx.x == 0) { // c = 1.01 |S|_F
		double t = 0.0;
		for (long long e = threadIdx.x; e < n * n; e += THREADS)
			t += w[e] * w[e];
		t = warp_sum(t);
		if (threadIdx.x % 32 == 0)
			s_red[threadIdx.x / 32] = t;
		__syncthreads();
		if (threadIdx.x == 0) {
			double f = 0.0;
			for (int q = 0; q < THREADS / 32; q++)
				f += s_red[q];
			shift[0] = 1.01 * sqrt(f);
		}
	}
	grid.sync();
	const double c = shift[0];
	for (long long i = gtid; i < n; i += gstride)
		w[i * n + i] += c;
	grid.sync();
	jacobi_rotate_rows(grid, w, vt, n, n, flag, fro);
	norms_and_ranks(grid, w, n, n, sig, rk, pj, fro);
	for (long long j = gtid; j < n; j += gstride) // sig[j] <- pow(lambda_j, k), read after the barrier below
		sig[j] = pow(sig[j] - c, (double)k);
	grid.sync();
	for (long long e = gtid; e < n * n; e += gstride) {
		const long long r = e / n, s = e % n;
		double acc = 0.0;
		for (long long j = 0; j < n; j++)
			acc += vt[j * n + r] * sig[j] * vt[j * n + s];
		y[e] = (float)acc;
	}
}

// ---- the integer-power path ----
#define TM 64
#define TN 64
#define TK 32

// C = P S for n x n row-major f64 P and S; written to C64 (f64) or, when C64 is null, rounded
// to f32 into C32. 64 x 64 tiles of C over the grid; 256 threads, each 4 x 4 outputs (rows
// ty + 16 a, columns tx + 16 b); K in steps of 32 through shared memory, zero-filled past n.
__device__ void gemm_pow(const double* __restrict__ P, const double* __restrict__ S, double* C64, float* C32,
			 long long n)
{
	__shared__ double As[TK][TM + 1];
	__shared__ double Bs[TK][TN];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long tiles = (n + TM - 1) / TM;
	for (long long t = blockIdx.x; t < tiles * tiles; t += gridDim.x) {
		const long long i0 = (t / tiles) * TM, j0 = (t % tiles) * TN;
		double acc[4][4];
#pragma unroll
		for (int a = 0; a < 4; a++)
#pragma unroll
			for (int b = 0; b < 4; b++)
				acc[a][b] = 0.0;
		for (long long k0 = 0; k0 < n; k0 += TK) {
			for (int e = tid; e < TM * TK; e += THREADS) {
				const int i = e / TK, kk = e % TK;
				As[kk][i] = (i0 + i < n && k0 + kk < n) ? P[(i0 + i) * n + k0 + kk] : 0.0;
			}
			for (int e = tid; e < TK * TN; e += THREADS) {
				const int kk = e / TN, j = e % TN;
				Bs[kk][j] = (k0 + kk < n && j0 + j < n) ? S[(k0 + kk) * n + j0 + j] : 0.0;
			}
			__syncthreads();
#pragma unroll 8
			for (int kk = 0; kk < TK; kk++) {
				double av[4], bv[4];
#pragma unroll
				for (int a = 0; a < 4; a++)
					av[a] = As[kk][ty + 16 * a];
#pragma unroll
				for (int b = 0; b < 4; b++)
					bv[b] = Bs[kk][tx + 16 * b];
#pragma unroll
				for (int a = 0; a < 4; a++)
#pragma unroll
					for (int b = 0; b < 4; b++)
						acc[a][b] = fma(av[a], bv[b], acc[a][b]);
			}
			__syncthreads();
		}
#pragma unroll
		for (int a = 0; a < 4; a++)
#pragma unroll
			for (int b = 0; b < 4; b++) {
				const long long i = i0 + ty + 16 * a, j = j0 + tx + 16 * b;
				if (i < n && j < n) {
					if (C64)
						C64[i * n + j] = acc[a][b];
					else
						C32[i * n + j] = (float)acc[a][b];
				}
			}
	}
}

extern "C" __global__ void __launch_bounds__(THREADS)
matrix_power_fast(const float* __restrict__ a, float* __restrict__ y, double* __restrict__ w, double* __restrict__ vt,
		  double* __restrict__ p2, double* __restrict__ sig, long long* __restrict__ rk, int* __restrict__ flag,
		  long long n, float k)
{
	cg::grid_group grid = cg::this_grid();
	if (!(k == rintf(k) && k >= 0.0f && k <= 16.0f)) { // uniform: the reference's route
		power_jacobi(grid, a, y, w, vt, sig, rk, flag, n, k);
		return;
	}
	const int ki = (int)k;
	const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	const long long gstride = (long long)gridDim.x * blockDim.x;
	for (long long e = gtid; e < n * n; e += gstride) {
		const long long r = e / n, c = e % n;
		const float s = c <= r ? a[e] : a[c * n + r];
		if (ki == 0)
			y[e] = r == c ? 1.0f : 0.0f;
		else if (ki == 1)
			y[e] = s;
		else
			vt[e] = (double)s;
	}
	if (ki < 2)
		return;
	grid.sync();
	const double* prev = vt;
	for (int s = 2; s <= ki; s++) {
		const bool last = s == ki;
		double* out = (s % 2 == 0) ? w : p2;
		gemm_pow(prev, vt, last ? nullptr : out, y, n);
		if (!last)
			grid.sync();
		prev = out;
	}
}
