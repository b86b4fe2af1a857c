// solve_and_add_scaled_vector reference: x = triu(a)^-1 b + alpha * y, back substitution in f64.
//
// One block per right-hand side column c (k blocks). The column's residual r = b[:, c] lives in
// an f64 scratch column. Rows are processed in blocks of 32 from the bottom up:
//   warp 0:     solves the 32 x 32 upper triangle of the diagonal block (held in shared memory),
//               one row per lane: x_i = r_i / a_ii broadcast by a shuffle, lanes above subtract
//               a[lane, i] * x_i; the 32 solved values go to shared memory;
//   all warps:  every row j above the block subtracts sum_l a[j, i0 + l] * x[i0 + l] (one thread
//               per row, reading 32 consecutive floats of its row, which L1 serves whole).
// Finally x[i, c] = r_i + alpha * y[i], rounded to f32 once.
//
// Only a[i, j] with j >= i is read. Precision: f64 throughout, so the result is the correctly
// rounded solution up to the conditioning of triu(a) (~1e-15 relative on the cases here); the
// task's tolerance is the budget left for a candidate's f32 rounding.
//
// @kbx scratch r f64 [max(1, n * k)]
// @kbx launch trsv_upper_add<<<max(1, k), 512>>>(a, b, y, x, r, alpha, n, k)

#define THREADS 512
#define NB 32

extern "C" __global__ void __launch_bounds__(THREADS)
trsv_upper_add(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ y,
	       float* __restrict__ x, double* __restrict__ r, float alpha, long long n, long long k)
{
	__shared__ float tri[NB][NB + 1];
	__shared__ double xs[NB];
	const long long c = blockIdx.x;
	if (c >= k) // only the dummy block of k = 0
		return;
	const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
	double* rc = r + c * n; // the residual of column c, contiguous

	for (long long i = tid; i < n; i += THREADS)
		rc[i] = (double)b[i * k + c];
	__syncthreads();

	for (long long i1 = n; i1 > 0; i1 -= NB) {
		const long long i0 = i1 > NB ? i1 - NB : 0;
		const int m = (int)(i1 - i0); // rows in this block (the top block may be partial)

		// the block's upper triangle, zeros elsewhere
		for (int t = tid; t < NB * NB; t += THREADS) {
			const int rr = t / NB, cc = t % NB;
			tri[rr][cc] = (rr < m && cc < m && cc >= rr) ? a[(i0 + rr) * n + i0 + cc] : 0.0f;
		}
		__syncthreads();
		if (warp == 0) {
			double v = lane < m ? rc[i0 + lane] : 0.0;
			for (int i = m - 1; i >= 0; i--) {
				const double xi = __shfl_sync(0xffffffffu, v, i) / (double)tri[i][i];
				if (lane == i)
					v = xi;
				else if (lane < i)
					v -= (double)tri[lane][i] * xi;
			}
			if (lane < m) {
				xs[lane] = v;
				rc[i0 + lane] = v;
			}
		}
		__syncthreads();
		// the rows above take the block's contribution; each thread owns its rows
		for (long long j = tid; j < i0; j += THREADS) {
			const float* row = a + j * n + i0;
			double s = 0.0;
			for (int l = 0; l < m; l++)
				s += (double)row[l] * xs[l];
			rc[j] -= s;
		}
		__syncthreads();
	}
	for (long long i = tid; i < n; i += THREADS)
		x[i * k + c] = (float)(rc[i] + (double)alpha * (double)y[i]);
}
