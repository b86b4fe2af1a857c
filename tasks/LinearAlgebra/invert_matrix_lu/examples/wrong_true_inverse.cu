// @kbx expect wrong
// Mistake: computes the true inverse A^-1 = U^-1 L^-1 P^T (the right-hand side is P^T, the row
// exchanges applied to I), where KernelBenchX's function solves with P itself: equal whenever
// P = P^T (the 2 x 2 and diagonally dominant cases), wrong on three_cycle and randn_70_pivot.
//
// @kbx scratch w f32 [max(1, 2 * n * n)]
// @kbx launch inv_true<<<1, 1024, max(4, n * 4)>>>(a, x, w, n, pivot)

extern "C" __global__ void __launch_bounds__(1024)
inv_true(const float* __restrict__ a, float* __restrict__ x, float* __restrict__ w, long long n, int pivot)
{
	extern __shared__ int perm[];
	__shared__ float sv[32];
	__shared__ int si[32];
	__shared__ int sp;
	const int tid = threadIdx.x, lane = tid % 32, wid = tid / 32, nt = blockDim.x;
	float* W = w;         // the LU factors
	float* X = w + n * n; // the right-hand side, then the result
	for (long long e = tid; e < n * n; e += nt)
		W[e] = a[e];
	for (long long r = tid; r < n; r += nt)
		perm[r] = (int)r;
	__syncthreads();
	for (long long j = 0; j < n; j++) {
		if (pivot) {
			float best = -1.0f;
			int bi = -1;
			for (long long i = j + tid; i < n; i += nt) {
				const float v = fabsf(W[i * n + j]);
				if (v > best) {
					best = v;
					bi = (int)i;
				}
			}
			for (int off = 16; off > 0; off >>= 1) {
				const float ov = __shfl_xor_sync(0xffffffffu, best, off);
				const int oi = __shfl_xor_sync(0xffffffffu, bi, off);
				if (ov > best || (ov == best && oi >= 0 && (bi < 0 || oi < bi))) {
					best = ov;
					bi = oi;
				}
			}
			if (lane == 0) {
				sv[wid] = best;
				si[wid] = bi;
			}
			__syncthreads();
			if (tid == 0) {
				for (int q = 1; q < nt / 32; q++)
					if (sv[q] > best || (sv[q] == best && si[q] >= 0 && (bi < 0 || si[q] < bi))) {
						best = sv[q];
						bi = si[q];
					}
				sp = bi < 0 ? (int)j : bi;
				const int t = perm[j];
				perm[j] = perm[sp];
				perm[sp] = t;
			}
			__syncthreads();
			const long long p = sp;
			if (p != j)
				for (long long c = tid; c < n; c += nt) {
					const float t = W[j * n + c];
					W[j * n + c] = W[p * n + c];
					W[p * n + c] = t;
				}
			__syncthreads();
		}
		const float inv = 1.0f / W[j * n + j];
		for (long long i = j + 1 + tid; i < n; i += nt)
			W[i * n + j] *= inv;
		__syncthreads();
		const long long t = n - j - 1;
		for (long long e = tid; e < t * t; e += nt) {
			const long long i = j + 1 + e / t, c = j + 1 + e % t;
			W[i * n + c] -= W[i * n + j] * W[j * n + c];
		}
		__syncthreads();
	}
	for (long long e = tid; e < n * n; e += nt)
		X[e] = perm[e / n] == e % n ? 1.0f : 0.0f; // BUG: P^T, which gives the true inverse
	__syncthreads();
	for (long long j = 0; j < n; j++) { // L Y = P (unit diagonal)
		for (long long e = tid; e < (n - j - 1) * n; e += nt) {
			const long long i = j + 1 + e / n, c = e % n;
			X[i * n + c] -= W[i * n + j] * X[j * n + c];
		}
		__syncthreads();
	}
	for (long long j = n - 1; j >= 0; j--) { // U X = Y
		for (long long c = tid; c < n; c += nt)
			X[j * n + c] /= W[j * n + j];
		__syncthreads();
		for (long long e = tid; e < j * n; e += nt) {
			const long long i = e / n, c = e % n;
			X[i * n + c] -= W[i * n + j] * X[j * n + c];
		}
		__syncthreads();
	}
	for (long long e = tid; e < n * n; e += nt)
		x[e] = X[e];
}
