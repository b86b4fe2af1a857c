// @kbx expect wrong
// Mistake: V where Vh belongs: the product is taken as U diag(S) V (= A V V, not A) instead of
// U diag(S) Vh. Right only when V is symmetric (1 x 1 and a few 2 x 2 cases), wrong on every other
// case. Same algorithm and scratch names as the reference: svd_w and svd_v match, the first wrong
// buffer is the output y.
//
// @kbx scratch svd_w f64 [n, m]
// @kbx scratch svd_v f64 [n, n]
// @kbx scratch svd_rotated i32 [40]
// @kbx launch svd_jacobi<<<sms, 256>>>(A, svd_w, svd_v, svd_rotated, m, n) cooperative
// @kbx launch reconstruct<<<dim3(max(1, cdiv(n, 64)), max(1, cdiv(m, 64))), 256>>>(svd_w, svd_v, y, m, n)

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define MAX_SWEEPS 40

// Position of player `i` (0 .. np - 1) in round r of the circle method: player 0 stays, the others
// rotate. Pair k of round r is (slot(k), slot(np - 1 - k)).
static __device__ __forceinline__ long long slot(long long i, long long r, long long np)
{
	return i == 0 ? 0 : (i - 1 + r) % (np - 1) + 1;
}

static __device__ __forceinline__ double warp_sum(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

extern "C" __global__ void __launch_bounds__(256)
svd_jacobi(const float* __restrict__ A, double* __restrict__ W, double* __restrict__ V, int* __restrict__ rotated,
           long long m, long long n)
{
	cg::grid_group grid = cg::this_grid();
	const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x, gthreads = (long long)gridDim.x * blockDim.x;
	const int lane = threadIdx.x & 31;
	const long long gwarp = gtid >> 5, nwarps = gthreads >> 5;

	for (long long e = gtid; e < m * n; e += gthreads) { // W = A, column-major
		const long long i = e / n, j = e % n;
		W[j * m + i] = (double)A[e];
	}
	for (long long e = gtid; e < n * n; e += gthreads)
		V[e] = (e / n == e % n) ? 1.0 : 0.0;
	for (long long e = gtid; e < MAX_SWEEPS; e += gthreads)
		rotated[e] = 0;
	grid.sync();

	const long long np = n + (n & 1);
	for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
		for (long long r = 0; r < np - 1; r++) {
			for (long long k = gwarp; k < np / 2; k += nwarps) {
				long long p = slot(k, r, np), q = slot(np - 1 - k, r, np);
				if (p > q) {
					long long t = p;
					p = q;
					q = t;
				}
				if (q >= n) // the dummy column of an odd n
					continue;
				double* wp = W + p * m;
				double* wq = W + q * m;
				double a = 0.0, b = 0.0, g = 0.0;
				for (long long i = lane; i < m; i += 32) {
					const double x = wp[i], y = wq[i];
					a += x * x;
					b += y * y;
					g += x * y;
				}
				a = warp_sum(a);
				b = warp_sum(b);
				g = warp_sum(g);
				if (!(fabs(g) > 1e-15 * sqrt(a * b))) // converged pair (also zero columns, NaN)
					continue;
				const double zeta = (b - a) / (2.0 * g);
				const double t = (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
				const double c = 1.0 / sqrt(1.0 + t * t), s = c * t;
				for (long long i = lane; i < m; i += 32) {
					const double x = wp[i], y = wq[i];
					wp[i] = c * x - s * y;
					wq[i] = s * x + c * y;
				}
				double* vp = V + p * n;
				double* vq = V + q * n;
				for (long long i = lane; i < n; i += 32) {
					const double x = vp[i], y = vq[i];
					vp[i] = c * x - s * y;
					vq[i] = s * x + c * y;
				}
				if (lane == 0)
					rotated[sweep] = 1;
			}
			grid.sync();
		}
		if (*(volatile int*)&rotated[sweep] == 0) // the same value in every thread after the barrier
			break;
	}
}

// y[i, k] = sum_j W[i, j] V[k, j] (W, V column-major: W[j * m + i], V[j * n + k]); 64 x 64 tiles of
// y, 256 threads with 4 x 4 outputs each, j staged 16 at a time, loads coalesced along i / k.
extern "C" __global__ void __launch_bounds__(256)
reconstruct(const double* __restrict__ W, const double* __restrict__ V, float* __restrict__ y, long long m,
            long long n)
{
	__shared__ double Ws[16][64];
	__shared__ double Vs[16][64];
	const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	const long long i0 = (long long)blockIdx.y * 64, k0 = (long long)blockIdx.x * 64;
	double acc[4][4];
	for (int a = 0; a < 4; a++)
		for (int c = 0; c < 4; c++)
			acc[a][c] = 0.0;
	for (long long j0 = 0; j0 < n; j0 += 16) {
		for (int e = tid; e < 16 * 64; e += 256) {
			const int jj = e / 64, col = e % 64;
			const long long j = j0 + jj;
			Ws[jj][col] = (j < n && i0 + col < m) ? W[j * m + i0 + col] : 0.0;
			// BUG: V[k, j] read as V[j, k]: y = W V instead of W V^T (V where Vh belongs)
			Vs[jj][col] = (j < n && k0 + col < n) ? V[(k0 + col) * n + j] : 0.0;
		}
		__syncthreads();
#pragma unroll
		for (int jj = 0; jj < 16; jj++) {
			double wv[4], vv[4];
			for (int a = 0; a < 4; a++)
				wv[a] = Ws[jj][ty + 16 * a];
			for (int c = 0; c < 4; c++)
				vv[c] = Vs[jj][tx + 16 * c];
			for (int a = 0; a < 4; a++)
				for (int c = 0; c < 4; c++)
					acc[a][c] = fma(wv[a], vv[c], acc[a][c]);
		}
		__syncthreads();
	}
	for (int a = 0; a < 4; a++)
		for (int c = 0; c < 4; c++) {
			const long long i = i0 + ty + 16 * a, k = k0 + tx + 16 * c;
			if (i < m && k < n)
				y[i * n + k] = (float)acc[a][c];
		}
}
