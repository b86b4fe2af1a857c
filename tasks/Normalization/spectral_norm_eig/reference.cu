// Spectral radius max |lambda(A)| of each f32 matrix of A [bt, n, n], by repeated squaring in f64:
// the power method applied to the matrix itself, which also converges when the dominant
// eigenvalues are a complex pair or of opposite sign (a vector power iteration does not).
//
// With s_0 = ||A||_F, B_0 = A / s_0 and, for j = 1..J, C = B_{j-1}^2, s_j = ||C||_F, B_j = C / s_j:
//   A^(2^J) = s_0^(2^J) s_1^(2^(J-1)) ... s_J B_J,  so
//   log rho(A) = sum_{j=0..J} log(s_j) / 2^j + log(rho(B_J)) / 2^J.
// ||B_J||_F = 1 bounds the dropped term: 0 <= -log(rho(B_J)) <= log(||A^k||_F / rho^k) with
// k = 2^J, which is at most log(cond(V) sqrt(n)) for a diagonalisable A with eigenvectors V, or grows
// like (m - 1) log k for a Jordan block of size m. With J = 40 (k ~ 1.1e12) the truncation error is
// below 1e-9 relative for any matrix of the tasks' cases. Rounding: each squaring perturbs B_j by
// ~n * 1e-16 relative, which moves the estimate by that times the eigenvalue's condition divided by
// 2^j; the f64 result is the f32-rounded radius (checked on CPU against LAPACK's f64 eigenvalues for
// randn, outlier, uniform, spd and diagdom matrices of n = 2..128 and the exact small matrices of the
// cases: every result within half an f32 ulp). An exactly nilpotent A reaches C = 0: the radius is 0.
//
// One block of 256 threads per matrix. The two f64 matrices of the iteration live in the scratch
// buffer work (L2-resident, 256 KB at n = 128); each product is a tiled matmul through shared memory
// (32 x 32 f64 tiles, each thread four outputs of a tile), whose output pass also accumulates the
// Frobenius sum. The f64 reduction is a warp-shuffle + shared-memory tree.

// @kbx scratch work f64 [max(1, 2 * bt * n * n)]
// @kbx launch spectral_radius<<<max(1, bt), 256>>>(A, y, work, bt, n)

#define TILE 32
#define THREADS 256
#define SQUARINGS 40

/* Sum over the block (THREADS threads); every thread gets the result. Includes __syncthreads, so
 * global writes made before the call are visible to the whole block after it. */
__device__ double block_sum(double v, double *sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		sh[warp] = v;
	__syncthreads();
	v = lane < THREADS / 32 ? sh[lane] : 0.0;
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	__syncthreads(); /* sh may be reused */
	return v;
}

/* dst = src * src for an n x n row-major f64 matrix; returns the sum of squares of dst (to every
 * thread). */
__device__ double square_matrix(const double *__restrict__ src, double *__restrict__ dst, long long n,
				double (*As)[TILE + 1], double (*Bs)[TILE + 1], double *red)
{
	const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5; /* rows ty, ty + 8, ty + 16, ty + 24 */
	double sq = 0.0;
	for (long long ti = 0; ti < n; ti += TILE) {
		for (long long tj = 0; tj < n; tj += TILE) {
			double acc[4] = { 0.0, 0.0, 0.0, 0.0 };
			for (long long k0 = 0; k0 < n; k0 += TILE) {
				for (int e = threadIdx.x; e < TILE * TILE; e += THREADS) {
					int r = e / TILE, c = e % TILE;
					As[r][c] = (ti + r < n && k0 + c < n) ? src[(ti + r) * n + k0 + c] : 0.0;
					Bs[r][c] = (k0 + r < n && tj + c < n) ? src[(k0 + r) * n + tj + c] : 0.0;
				}
				__syncthreads();
#pragma unroll 8
				for (int kk = 0; kk < TILE; kk++) {
					double b = Bs[kk][tx];
					acc[0] = fma(As[ty][kk], b, acc[0]);
					acc[1] = fma(As[ty + 8][kk], b, acc[1]);
					acc[2] = fma(As[ty + 16][kk], b, acc[2]);
					acc[3] = fma(As[ty + 24][kk], b, acc[3]);
				}
				__syncthreads();
			}
			for (int q = 0; q < 4; q++) {
				long long row = ti + ty + 8 * q, col = tj + tx;
				if (row < n && col < n) {
					dst[row * n + col] = acc[q];
					sq = fma(acc[q], acc[q], sq);
				}
			}
		}
	}
	return block_sum(sq, red);
}

extern "C" __global__ void __launch_bounds__(THREADS)
spectral_radius(const float *__restrict__ A, float *__restrict__ y, double *__restrict__ work, long long bt,
		long long n)
{
	__shared__ double As[TILE][TILE + 1];
	__shared__ double Bs[TILE][TILE + 1];
	__shared__ double red[32];
	const long long mat = blockIdx.x;
	if (mat >= bt)
		return;
	const long long nn = n * n;
	const float *a = A + mat * nn;
	double *cur = work + mat * 2 * nn, *nxt = cur + nn;

	/* B_0 = A / ||A||_F */
	double sq = 0.0;
	for (long long i = threadIdx.x; i < nn; i += THREADS) {
		double v = (double)a[i];
		cur[i] = v;
		sq = fma(v, v, sq);
	}
	double s = sqrt(block_sum(sq, red));
	if (!(s > 0.0)) { /* the zero matrix (radius 0), or NaN input */
		if (threadIdx.x == 0)
			y[mat] = (float)s;
		return;
	}
	double logsum = log(s), weight = 1.0, r = 1.0 / s;
	for (long long i = threadIdx.x; i < nn; i += THREADS)
		cur[i] *= r; /* the elements this thread wrote */
	__syncthreads();

	for (int j = 1; j <= SQUARINGS; j++) {
		s = sqrt(square_matrix(cur, nxt, n, As, Bs, red));
		if (!(s > 0.0)) { /* B^2 = 0: nilpotent, radius 0 */
			if (threadIdx.x == 0)
				y[mat] = (float)s;
			return;
		}
		weight *= 0.5;
		logsum += log(s) * weight;
		r = 1.0 / s;
		for (long long i = threadIdx.x; i < nn; i += THREADS)
			nxt[i] *= r; /* visible: square_matrix ended with block_sum's barriers */
		__syncthreads();
		double *t = cur;
		cur = nxt;
		nxt = t;
	}
	if (threadIdx.x == 0)
		y[mat] = (float)exp(logsum);
}
