// @kbx expect wrong
// Mistake: rows are exchanged but the exchanges are not counted: det is the plain product of the
// pivots, with the wrong sign whenever an odd number of rows moved: test_case_3, test_case_4,
// swap_odd_3x3 and one of the random pivoted draws (the tridiagonal's 256 exchanges are even).
//
// @kbx scratch w f32 [max(1, batch * n * n)]
// @kbx launch det_nosign<<<max(1, batch), 512>>>(a, d, w, batch, n, pivot)

extern "C" __global__ void __launch_bounds__(512)
det_nosign(const float* __restrict__ a, float* __restrict__ dout, float* __restrict__ w, long long batch, long long n,
	int pivot)
{
		__shared__ float sv[16];
	__shared__ int si[16];
	__shared__ int sp;
	if (blockIdx.x >= batch)
		return;
	const int tid = threadIdx.x, lane = tid % 32, wid = tid / 32;
	const long long m = n, k = n;
	float det = 1.0f; // kept by thread 0
	float* W = w + blockIdx.x * m * n;
	for (long long e = tid; e < m * n; e += blockDim.x)
		W[e] = a[blockIdx.x * m * n + e];
	__syncthreads();
	for (long long j = 0; j < k; j++) {
		if (pivot) {
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
				// BUG: a row exchange must negate the determinant
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
		if (tid == 0)
			det *= d;
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
	if (tid == 0)
		dout[blockIdx.x] = det;
}
