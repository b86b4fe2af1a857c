// @kbx expect wrong
// Mistake: the normal equations in f32. Solving A^T A x = A^T b with a Cholesky factor of A^T A is
// the same algorithm as the reference, but in f32 it squares the condition number: the error is
// ~cond(A)^2 * 6e-8 relative instead of ~cond(A) * 6e-8 for a QR. Harmless on the small randn
// cases (cond ~6), it fails uniform_2048x1024 (cond ~190: errors ~2e-5 against 1e-5) and the
// larger perf rows. Its scratch buffers are f32 under other names than the reference's f64 ones:
// nothing is diffed, the output x is wrong.
//
// @kbx scratch chol_f32 f32 [n, n]
// @kbx scratch rhs_f32 f32 [n, k]
// @kbx launch ata_atb<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(n, 64) + cdiv(k, 64))), 256>>>(A, b, chol_f32, rhs_f32, m, n, k)
// @kbx launch chol_solve<<<sms, 256>>>(chol_f32, rhs_f32, x, n, k) cooperative

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 256
#define T64 64 // GEMM tile
#define TKG 16 // Gram GEMM depth per shared-memory slice
#define NB 32  // Cholesky / triangular-solve block size

// C[i, j] = sum_r X[r, i] * Y[r, j] in f64 for one 64 x 64 tile (X [rows, p], Y [rows, q], row-major
// f32), 256 threads with 4 x 4 outputs each; rows staged 16 at a time, loads coalesced along i / j.
static __device__ void xty_tile(const float* __restrict__ X, long long p, const float* __restrict__ Y, long long q,
                                long long rows, long long i0, long long j0, float* __restrict__ C, long long ldc,
                                bool lower_only)
{
	__shared__ float Xs[TKG][T64];
	__shared__ float Ys[TKG][T64];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	float acc[4][4];
	for (int a = 0; a < 4; a++)
		for (int c = 0; c < 4; c++)
			acc[a][c] = 0.0f;
	for (long long r0 = 0; r0 < rows; r0 += TKG) {
		for (int e = tid; e < TKG * T64; e += THREADS) {
			int kk = e / T64, col = e % T64;
			long long r = r0 + kk;
			Xs[kk][col] = (r < rows && i0 + col < p) ? X[r * p + i0 + col] : 0.0f;
			Ys[kk][col] = (r < rows && j0 + col < q) ? Y[r * q + j0 + col] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < TKG; kk++) {
			float xv[4], yv[4];
			for (int a = 0; a < 4; a++)
				xv[a] = Xs[kk][ty + 16 * a];
			for (int c = 0; c < 4; c++)
				yv[c] = Ys[kk][tx + 16 * c];
			for (int a = 0; a < 4; a++)
				for (int c = 0; c < 4; c++)
					acc[a][c] = fmaf(xv[a], yv[c], acc[a][c]); // BUG: the Gram matrix rounded to f32
		}
		__syncthreads();
	}
	for (int a = 0; a < 4; a++)
		for (int c = 0; c < 4; c++) {
			long long i = i0 + ty + 16 * a, j = j0 + tx + 16 * c;
			if (i < p && j < q && (!lower_only || j <= i))
				C[i * ldc + j] = acc[a][c];
		}
}

// Grid (cdiv(n, 64), cdiv(n, 64) + cdiv(k, 64)): y-blocks below cdiv(n, 64) are Gram tiles (those
// wholly above the diagonal skip), the rest are A^T b tiles (x must then cover cdiv(n, 64) rows).
extern "C" __global__ void __launch_bounds__(THREADS)
ata_atb(const float* __restrict__ A, const float* __restrict__ b, float* __restrict__ gram, float* __restrict__ atb,
        long long m, long long n, long long k)
{
	const long long ti = blockIdx.x, tj = blockIdx.y, tn = (n + T64 - 1) / T64;
	if (tj < tn) {
		if (tj > ti) // wholly above the diagonal: only the lower triangle is used
			return;
		xty_tile(A, n, A, n, m, ti * T64, tj * T64, gram, n, true);
	} else {
		xty_tile(A, n, b, k, m, ti * T64, (tj - tn) * T64, atb, k, false);
	}
}

// Everything below runs in one cooperative kernel; `sh` is the block's shared scratch.
struct Coop {
	cg::grid_group grid;
	float* sh;
	long long gtid, gthreads;
};

// Factor the (pb x pb) diagonal block at (k0, k0) of L in place (block 0 only; unblocked, in shared
// memory). A non-positive pivot (not in any case: A has full column rank) gives NaN.
static __device__ void chol_diag(float* L, long long n, long long k0, int pb, float* D)
{
	const int tid = threadIdx.x;
	for (int e = tid; e < NB * NB; e += THREADS) {
		int i = e / NB, j = e % NB;
		D[i * (NB + 1) + j] = (i < pb && j <= i) ? L[(k0 + i) * n + k0 + j] : 0.0f;
	}
	__syncthreads();
	for (int j = 0; j < pb; j++) {
		if (tid == 0)
			D[j * (NB + 1) + j] = sqrtf(D[j * (NB + 1) + j]);
		__syncthreads();
		if (tid > j && tid < pb)
			D[tid * (NB + 1) + j] /= D[j * (NB + 1) + j];
		__syncthreads();
		for (int e = tid; e < NB * NB; e += THREADS) {
			int i = e / NB, l = e % NB;
			if (l > j && l <= i && i < pb)
				D[i * (NB + 1) + l] -= D[i * (NB + 1) + j] * D[l * (NB + 1) + j];
		}
		__syncthreads();
	}
	for (int e = tid; e < NB * NB; e += THREADS) {
		int i = e / NB, j = e % NB;
		if (i < pb && j <= i)
			L[(k0 + i) * n + k0 + j] = D[i * (NB + 1) + j];
	}
}

// Panel: rows i >= k0 + pb solve l_i L11^T = g_i (l_i = L[i, k0:k0+pb]); one warp per row, lane j
// holding column j; L11 staged in shared memory by every block.
static __device__ void chol_panel(Coop& c, float* L, long long n, long long k0, int pb)
{
	float* D = c.sh;
	for (int e = threadIdx.x; e < NB * NB; e += THREADS) {
		int i = e / NB, j = e % NB;
		D[i * (NB + 1) + j] = (i < pb && j <= i) ? L[(k0 + i) * n + k0 + j] : 0.0f;
	}
	__syncthreads();
	const int lane = threadIdx.x % 32;
	const long long warps = (long long)gridDim.x * (THREADS / 32);
	for (long long i = k0 + pb + (long long)blockIdx.x * (THREADS / 32) + threadIdx.x / 32; i < n; i += warps) {
		float v = lane < pb ? L[i * n + k0 + lane] : 0.0f;
		for (int j = 0; j < pb; j++) {
			float xj = __shfl_sync(0xffffffffu, v, j) / D[j * (NB + 1) + j];
			if (lane == j)
				v = xj;
			else if (lane > j)
				v -= xj * D[lane * (NB + 1) + j];
		}
		if (lane < pb)
			L[i * n + k0 + lane] = v;
	}
	__syncthreads(); // D is reused next
}

// Trailing update: L[i, j] -= sum_l L[i, k0+l] L[j, k0+l] for k0+pb <= j <= i < n, 64 x 64 tiles over
// the grid (tiles wholly above the diagonal skipped), the pb <= 32 columns staged in shared memory.
static __device__ void chol_trailing(Coop& c, float* L, long long n, long long k0, int pb)
{
	const long long s = k0 + pb, t = n - s;
	if (t <= 0)
		return;
	float* Li = c.sh;                // [NB][T64 + 1]
	float* Lj = c.sh + NB * (T64 + 1); // [NB][T64 + 1]
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long tiles = (t + T64 - 1) / T64;
	for (long long tt = blockIdx.x; tt < tiles * tiles; tt += gridDim.x) {
		const long long bi = tt / tiles, bj = tt % tiles;
		if (bj > bi) // uniform over the block
			continue;
		const long long i0 = s + bi * T64, j0 = s + bj * T64;
		for (int e = tid; e < NB * T64; e += THREADS) { // consecutive threads along the 32 columns
			int l = e % NB, r = e / NB;
			Li[l * (T64 + 1) + r] = (l < pb && i0 + r < n) ? L[(i0 + r) * n + k0 + l] : 0.0f;
			Lj[l * (T64 + 1) + r] = (l < pb && j0 + r < n) ? L[(j0 + r) * n + k0 + l] : 0.0f;
		}
		__syncthreads();
		float acc[4][4];
		for (int a = 0; a < 4; a++)
			for (int b = 0; b < 4; b++)
				acc[a][b] = 0.0f;
		for (int l = 0; l < pb; l++) {
			float iv[4], jv[4];
			for (int a = 0; a < 4; a++)
				iv[a] = Li[l * (T64 + 1) + ty + 16 * a];
			for (int b = 0; b < 4; b++)
				jv[b] = Lj[l * (T64 + 1) + tx + 16 * b];
			for (int a = 0; a < 4; a++)
				for (int b = 0; b < 4; b++)
					acc[a][b] = fmaf(iv[a], jv[b], acc[a][b]);
		}
		for (int a = 0; a < 4; a++)
			for (int b = 0; b < 4; b++) {
				long long i = i0 + ty + 16 * a, j = j0 + tx + 16 * b;
				if (i < n && j <= i)
					L[i * n + j] -= acc[a][b];
			}
		__syncthreads();
	}
}

// Triangular solves with k right-hand sides in Y [n, k] (in place): the pb-row diagonal block by
// block 0 (one thread per column, sequential substitution), then the update of the other rows
// spread over the grid (one thread per (row, column)), a grid barrier after each part.
static __device__ void forward_solve(Coop& c, const float* L, float* Y, long long n, long long k)
{
	for (long long k0 = 0; k0 < n; k0 += NB) {
		const int pb = (int)(n - k0 < NB ? n - k0 : NB);
		if (blockIdx.x == 0)
			for (long long q = threadIdx.x; q < k; q += THREADS)
				for (int j = 0; j < pb; j++) {
					float v = Y[(k0 + j) * k + q];
					for (int l = 0; l < j; l++)
						v -= L[(k0 + j) * n + k0 + l] * Y[(k0 + l) * k + q];
					Y[(k0 + j) * k + q] = v / L[(k0 + j) * n + k0 + j];
				}
		c.grid.sync();
		const long long rows = n - k0 - pb;
		for (long long e = c.gtid; e < rows * k; e += c.gthreads) {
			long long i = k0 + pb + e / k, q = e % k;
			float v = 0.0f;
			for (int l = 0; l < pb; l++)
				v = fmaf(L[i * n + k0 + l], Y[(k0 + l) * k + q], v);
			Y[i * k + q] -= v;
		}
		c.grid.sync();
	}
}

static __device__ void backward_solve(Coop& c, const float* L, float* Y, long long n, long long k)
{
	for (long long k1 = n; k1 > 0; k1 -= NB) {
		const long long k0 = k1 > NB ? k1 - NB : 0;
		const int pb = (int)(k1 - k0);
		if (blockIdx.x == 0)
			for (long long q = threadIdx.x; q < k; q += THREADS)
				for (int j = pb - 1; j >= 0; j--) {
					float v = Y[(k0 + j) * k + q];
					for (int l = j + 1; l < pb; l++)
						v -= L[(k0 + l) * n + k0 + j] * Y[(k0 + l) * k + q]; // L^T[j, l] = L[l, j]
					Y[(k0 + j) * k + q] = v / L[(k0 + j) * n + k0 + j];
				}
		c.grid.sync();
		for (long long e = c.gtid; e < k0 * k; e += c.gthreads) { // rows i < k0
			long long i = e / k, q = e % k;
			float v = 0.0f;
			for (int l = 0; l < pb; l++)
				v = fmaf(L[(k0 + l) * n + i], Y[(k0 + l) * k + q], v);
			Y[i * k + q] -= v;
		}
		c.grid.sync();
	}
}

extern "C" __global__ void __launch_bounds__(THREADS)
chol_solve(float* __restrict__ L, float* __restrict__ Y, float* __restrict__ x, long long n, long long k)
{
	__shared__ float sh[2 * NB * (T64 + 1)];
	Coop c{ cg::this_grid(), sh, (long long)blockIdx.x * THREADS + threadIdx.x, (long long)gridDim.x * THREADS };
	for (long long k0 = 0; k0 < n; k0 += NB) {
		const int pb = (int)(n - k0 < NB ? n - k0 : NB);
		if (blockIdx.x == 0)
			chol_diag(L, n, k0, pb, sh);
		c.grid.sync();
		chol_panel(c, L, n, k0, pb);
		c.grid.sync();
		chol_trailing(c, L, n, k0, pb);
		c.grid.sync();
	}
	forward_solve(c, L, Y, n, k);  // Y = L^-1 A^T b = Q^T b
	backward_solve(c, L, Y, n, k); // Y = L^-T Q^T b = x
	for (long long e = c.gtid; e < n * k; e += c.gthreads)
		x[e] = Y[e];
}
