// @kbx expect wrong
// Mistake: Gaussian elimination without row exchanges even when pivot = 1: P stays the identity
// and L, U are the no-pivot factors (|L| > 1), so every pivoted case whose first column is not
// led by its largest entry is wrong (test_case_2, the random and hand-made swap cases).
//
// @kbx scratch w f32 [max(1, batch * m * n)]
// @kbx launch lu_nopiv<<<max(1, batch), 512, max(4, m * 4)>>>(a, p, l, u, w, batch, m, n, pivot)

extern "C" __global__ void __launch_bounds__(512)
lu_nopiv(const float* __restrict__ a, float* __restrict__ p, float* __restrict__ l, float* __restrict__ u,
       float* __restrict__ w, long long batch, long long m, long long n, int pivot)
{
	extern __shared__ int perm[];
	__shared__ float sv[16];
	__shared__ int si[16];
	__shared__ int sp;
	if (blockIdx.x >= batch)
		return;
	const int tid = threadIdx.x, lane = tid % 32, wid = tid / 32;
	const long long k = m < n ? m : n;
	float* W = w + blockIdx.x * m * n;
	for (long long e = tid; e < m * n; e += blockDim.x)
		W[e] = a[blockIdx.x * m * n + e];
	for (long long r = tid; r < m; r += blockDim.x)
		perm[r] = (int)r;
	__syncthreads();
	for (long long j = 0; j < k; j++) {
		if (false) { // BUG: the pivot flag is ignored, no row is ever exchanged
			float best = -1.0f;
			int bi = -1;
			for (long long i = j + tid; i < m; i += blockDim.x) {
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
				for (int q = 1; q < 16; q++)
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
			const long long pr = sp;
			if (pr != j)
				for (long long c = tid; c < n; c += blockDim.x) {
					const float t = W[j * n + c];
					W[j * n + c] = W[pr * n + c];
					W[pr * n + c] = t;
				}
			__syncthreads();
		}
		const float d = W[j * n + j];
		if (d != 0.0f) {
			const float inv = 1.0f / d;
			for (long long i = j + 1 + tid; i < m; i += blockDim.x)
				W[i * n + j] *= inv;
		}
		__syncthreads();
		const long long nr = m - j - 1, nc = n - j - 1;
		for (long long e = tid; e < nr * nc; e += blockDim.x) {
			const long long i = j + 1 + e / nc, c = j + 1 + e % nc;
			W[i * n + c] -= W[i * n + j] * W[j * n + c];
		}
		__syncthreads();
	}
	for (long long e = tid; e < m * k; e += blockDim.x) {
		const long long i = e / k, j = e % k;
		l[blockIdx.x * m * k + e] = i > j ? W[i * n + j] : (i == j ? 1.0f : 0.0f);
	}
	for (long long e = tid; e < k * n; e += blockDim.x) {
		const long long i = e / n, j = e % n;
		u[blockIdx.x * k * n + e] = j >= i ? W[i * n + j] : 0.0f;
	}
	if (pivot)
		for (long long e = tid; e < m * m; e += blockDim.x)
			p[blockIdx.x * m * m + e] = perm[e % m] == e / m ? 1.0f : 0.0f;
}
