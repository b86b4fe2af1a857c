// @kbx expect wrong
// Mistake: solves A x = b (what "solve a symmetric system by LDL" promises) instead of what
// KernelBenchX's function computes, which binds ldl_factor's (LD, pivots) as (L, D) and solves
// with LD diag(pivots) LD^T: wrong on every case (even 1 x 1: A_rec = a^2 there).
//
// @kbx scratch w f32 [max(1, n * (n + k))]
// @kbx launch solve_a<<<1, 1024>>>(a, b, x, w, n, k)

extern "C" __global__ void __launch_bounds__(1024)
solve_a(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ x, float* __restrict__ w,
	  long long n, long long k)
{
	__shared__ float sv[32];
	__shared__ int si[32];
	__shared__ int sp;
	const int tid = threadIdx.x, lane = tid % 32, wid = tid / 32, nt = blockDim.x;
	const long long ld = n + k;
	for (long long e = tid; e < n * ld; e += nt) {
		const long long i = e / ld, c = e % ld;
		// BUG: solves with A itself (its lower triangle mirrored), not LD diag(pivots) LD^T
		w[e] = c < n ? a[(c <= i ? i * n + c : c * n + i)] : b[i * k + c - n];
	}
	__syncthreads();
	for (long long j = 0; j < n; j++) {
		float best = -1.0f;
		int bi = -1;
		for (long long i = j + tid; i < n; i += nt) {
			const float v = fabsf(w[i * ld + j]);
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
		}
		__syncthreads();
		const long long p = sp;
		if (p != j)
			for (long long c = j + tid; c < ld; c += nt) {
				const float t = w[j * ld + c];
				w[j * ld + c] = w[p * ld + c];
				w[p * ld + c] = t;
			}
		__syncthreads();
		const float inv = 1.0f / w[j * ld + j];
		const long long nr = n - j - 1, nc = ld - j - 1;
		for (long long e = tid; e < nr * nc; e += nt) {
			const long long i = j + 1 + e / nc, c = j + 1 + e % nc;
			w[i * ld + c] -= (w[i * ld + j] * inv) * w[j * ld + c];
		}
		__syncthreads();
	}
	for (long long j = n - 1; j >= 0; j--) { // U x = y, all k columns
		for (long long c = tid; c < k; c += nt)
			w[j * ld + n + c] /= w[j * ld + j];
		__syncthreads();
		for (long long e = tid; e < j * k; e += nt) {
			const long long i = e / k, c = e % k;
			w[i * ld + n + c] -= w[i * ld + j] * w[j * ld + n + c];
		}
		__syncthreads();
	}
	for (long long e = tid; e < n * k; e += nt)
		x[e] = w[(e / k) * ld + n + e % k];
}
