// ldl_factor reference: LAPACK sytf2 (uplo = 'L', Bunch-Kaufman partial pivoting) in f64.
//
// One block per matrix. The lower triangle is copied to an f64 scratch W and factored in place,
// step k (0-based) as sytf2 does:
//   absakk = |W[k, k]|, colmax = max |W[i, k]| below it (imax = the first such row);
//   max(absakk, colmax) == 0 or absakk NaN: nothing to do (D[k] stays as it is);
//   absakk >= alpha colmax: a 1 x 1 pivot, no interchange;
//   else rowmax = the largest off-diagonal |.| in row / column imax, and
//     absakk >= alpha colmax (colmax / rowmax): 1 x 1, no interchange;
//     |W[imax, imax]| >= alpha rowmax: 1 x 1 with rows / columns k and imax exchanged;
//     else a 2 x 2 block (k, k + 1) with k + 1 and imax exchanged.
//   The exchange touches only the trailing part (earlier columns of L are not permuted: that is
//   LAPACK's storage). A 1 x 1 step updates W22 -= x x^T / d and scales x = W[k+1:, k] by 1 / d;
//   a 2 x 2 step computes both new columns from the inverse of the block (into a scratch
//   vector first, since the update reads the old ones) and updates W22 with both.
// Reductions (first maximum of |.|, NaN never wins) are warp shuffles plus shared memory; the
// rank-1 / rank-2 updates spread the trailing lower triangle over the block's threads.
// Output: LD = the lower triangle of W (zeros above, as PyTorch factors tril(A)), pivots
// 1-based (k + 1, p + 1, or -(p + 1) on both rows of a 2 x 2 block).
//
// Precision: f64 throughout, rounded once; with the pivot decisions fixed, LD is the exact
// factor of the f32 input to ~n 1e-16 times its growth. Unblocked O(n^3) in one block per
// matrix: ~n^3 / 3 f64 updates on one SM (the perf sizes stop at n = 1024).
//
// @kbx scratch w f64 [max(1, batch * n * n)]
// @kbx scratch t f64 [max(1, batch * 2 * n)]
// @kbx launch ldl_bunch_kaufman<<<max(1, batch), 1024>>>(a, ld, pivots, w, t, batch, n)

#define THREADS 1024
#define FULL 0xffffffffu

// Largest |p[i * stride]| for i < count and its first index (-1 if none), over the block.
// Every thread gets the result. Uses s_val / s_idx; ends with a barrier.
__device__ void block_argmax_abs(const double* p, long long stride, long long count, double* s_val, long long* s_idx,
				 double& best_out, long long& idx_out)
{
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	double best = -1.0;
	long long bi = -1;
	for (long long i = tid; i < count; i += THREADS) {
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
	for (int q = 1; q < THREADS / 32; q++)
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

extern "C" __global__ void __launch_bounds__(THREADS)
ldl_bunch_kaufman(const float* __restrict__ a, float* __restrict__ ld, int* __restrict__ pivots, double* __restrict__ w,
		  double* __restrict__ t, long long batch, long long n)
{
	__shared__ double s_val[THREADS / 32];
	__shared__ long long s_idx[THREADS / 32];
	if (blockIdx.x >= batch)
		return;
	const int tid = threadIdx.x;
	const double alpha = (1.0 + sqrt(17.0)) / 8.0;
	const float* A = a + blockIdx.x * n * n;
	double* W = w + blockIdx.x * n * n;
	double* T = t + blockIdx.x * 2 * n;
	int* piv = pivots + blockIdx.x * n;

	for (long long e = tid; e < n * n; e += THREADS)
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
			for (long long i = kp + 1 + tid; i < n; i += THREADS)
				swapd(&W[i * n + kk], &W[i * n + kp]);
			for (long long j = kk + 1 + tid; j < kp; j += THREADS)
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
			for (long long e = tid; e < m * m; e += THREADS) {
				const long long i = k + 1 + e / m, j = k + 1 + e % m;
				if (j <= i)
					W[i * n + j] -= d11 * W[i * n + k] * W[j * n + k];
			}
			__syncthreads();
			for (long long i = k + 1 + tid; i < n; i += THREADS)
				W[i * n + k] *= d11;
		} else if (!skip && kstep == 2 && k < n - 2) {
			double d21 = W[(k + 1) * n + k];
			const double d11 = W[(k + 1) * n + k + 1] / d21, d22 = W[k * n + k] / d21;
			const double tt = 1.0 / (d11 * d22 - 1.0);
			d21 = tt / d21;
			for (long long j = k + 2 + tid; j < n; j += THREADS) {
				T[j] = d21 * (d11 * W[j * n + k] - W[j * n + k + 1]);
				T[n + j] = d21 * (d22 * W[j * n + k + 1] - W[j * n + k]);
			}
			__syncthreads();
			const long long m = n - k - 2;
			for (long long e = tid; e < m * m; e += THREADS) {
				const long long i = k + 2 + e / m, j = k + 2 + e % m;
				if (j <= i)
					W[i * n + j] -= W[i * n + k] * T[j] + W[i * n + k + 1] * T[n + j];
			}
			__syncthreads();
			for (long long j = k + 2 + tid; j < n; j += THREADS) {
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
	for (long long e = tid; e < n * n; e += THREADS)
		ld[blockIdx.x * n * n + e] = (e % n <= e / n) ? (float)W[e] : 0.0f;
}
