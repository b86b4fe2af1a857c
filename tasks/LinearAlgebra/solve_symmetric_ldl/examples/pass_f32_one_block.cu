// @kbx expect pass
// Correct alternative, all in f32 by one block: sytf2 (Bunch-Kaufman, lower; thread 0 takes the
// pivot decisions), A_rec = LD diag(pivots) LD^T exactly as KernelBenchX builds it, then
// Gaussian elimination with partial pivoting on [A_rec | b] and back substitution. Pivots are
// kept in shared memory (n <= 4096).
//
// @kbx scratch w f32 [max(1, n * n + 2 * n + n * (n + k))]
// @kbx launch ssl_f32<<<1, 1024>>>(a, b, x, w, n, k)

__device__ __forceinline__ void swapf(float* x, float* y)
{
	const float t = *x;
	*x = *y;
	*y = t;
}

// sytf2 (lower, Bunch-Kaufman) in place on W (lower triangle set, zeros above): LD and the
// 1-based pivots; thread 0 takes the decisions, the block does the updates.
__device__ void sytf2_f32(float* W, float* T, int* piv, long long n)
{
	__shared__ long long s_kp;
	__shared__ int s_kstep, s_skip;
	const int tid = threadIdx.x, nt = blockDim.x;
	const float alpha = (1.0f + sqrtf(17.0f)) / 8.0f;
	for (long long k = 0; k < n;) {
		if (tid == 0) {
			const float absakk = fabsf(W[k * n + k]);
			float colmax = 0.0f;
			long long imax = k;
			for (long long i = k + 1; i < n; i++)
				if (fabsf(W[i * n + k]) > colmax) {
					colmax = fabsf(W[i * n + k]);
					imax = i;
				}
			long long kp = k;
			int kstep = 1;
			const int skip = (absakk == 0.0f && colmax == 0.0f) || isnan(absakk);
			if (!skip && !(absakk >= alpha * colmax)) {
				float rowmax = 0.0f;
				for (long long j = k; j < imax; j++)
					rowmax = fmaxf(rowmax, fabsf(W[imax * n + j]));
				for (long long j = imax + 1; j < n; j++)
					rowmax = fmaxf(rowmax, fabsf(W[j * n + imax]));
				if (absakk >= alpha * colmax * (colmax / rowmax))
					kp = k;
				else if (fabsf(W[imax * n + imax]) >= alpha * rowmax)
					kp = imax;
				else {
					kp = imax;
					kstep = 2;
				}
			}
			s_kp = kp;
			s_kstep = kstep;
			s_skip = skip;
			if (kstep == 1)
				piv[k] = (int)(kp + 1);
			else
				piv[k] = piv[k + 1] = (int)(-(kp + 1));
		}
		__syncthreads();
		const long long kp = s_kp;
		const int kstep = s_kstep, skip = s_skip;
		const long long kk = k + kstep - 1;
		if (!skip && kp != kk) {
			for (long long i = kp + 1 + tid; i < n; i += nt)
				swapf(&W[i * n + kk], &W[i * n + kp]);
			for (long long j = kk + 1 + tid; j < kp; j += nt)
				swapf(&W[j * n + kk], &W[kp * n + j]);
			if (tid == 0) {
				swapf(&W[kk * n + kk], &W[kp * n + kp]);
				if (kstep == 2)
					swapf(&W[(k + 1) * n + k], &W[kp * n + k]);
			}
		}
		__syncthreads();
		if (!skip && kstep == 1 && k < n - 1) {
			const float d11 = 1.0f / W[k * n + k];
			const long long m = n - k - 1;
			for (long long e = tid; e < m * m; e += nt) {
				const long long i = k + 1 + e / m, j = k + 1 + e % m;
				if (j <= i)
					W[i * n + j] -= d11 * W[i * n + k] * W[j * n + k];
			}
			__syncthreads();
			for (long long i = k + 1 + tid; i < n; i += nt)
				W[i * n + k] *= d11;
		} else if (!skip && kstep == 2 && k < n - 2) {
			float d21 = W[(k + 1) * n + k];
			const float d11 = W[(k + 1) * n + k + 1] / d21, d22 = W[k * n + k] / d21;
			d21 = (1.0f / (d11 * d22 - 1.0f)) / d21;
			for (long long j = k + 2 + tid; j < n; j += nt) {
				T[j] = d21 * (d11 * W[j * n + k] - W[j * n + k + 1]);
				T[n + j] = d21 * (d22 * W[j * n + k + 1] - W[j * n + k]);
			}
			__syncthreads();
			const long long m = n - k - 2;
			for (long long e = tid; e < m * m; e += nt) {
				const long long i = k + 2 + e / m, j = k + 2 + e % m;
				if (j <= i)
					W[i * n + j] -= W[i * n + k] * T[j] + W[i * n + k + 1] * T[n + j];
			}
			__syncthreads();
			for (long long j = k + 2 + tid; j < n; j += nt) {
				W[j * n + k] = T[j];
				W[j * n + k + 1] = T[n + j];
			}
		}
		__syncthreads();
		k += kstep;
	}
}

extern "C" __global__ void __launch_bounds__(1024)
ssl_f32(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ x, float* __restrict__ w,
	long long n, long long k)
{
	__shared__ float sv[32];
	__shared__ int si[32];
	__shared__ int sp;
	__shared__ int piv[4096];
	const int tid = threadIdx.x, lane = tid % 32, wid = tid / 32, nt = blockDim.x;
	const long long ld = n + k;
	float* W = w;              // LD [n, n]
	float* T = w + n * n;      // [2 n]
	float* M = T + 2 * n;      // [A_rec | b], [n, n + k]
	for (long long e = tid; e < n * n; e += nt)
		W[e] = (e % n <= e / n) ? a[e] : 0.0f;
	__syncthreads();
	sytf2_f32(W, T, piv, n);
	__syncthreads();
	for (long long e = tid; e < n * ld; e += nt) { // A_rec = LD diag(pivots) LD^T, then b
		const long long i = e / ld, j = e % ld;
		float s = 0.0f;
		if (j < n) {
			for (long long l = 0; l <= (i < j ? i : j); l++)
				s += W[i * n + l] * (float)piv[l] * W[j * n + l];
		} else {
			s = b[i * k + j - n];
		}
		M[e] = s;
	}
	__syncthreads();
	for (long long j = 0; j < n; j++) {
		float best = -1.0f;
		int bi = -1;
		for (long long i = j + tid; i < n; i += nt) {
			const float v = fabsf(M[i * ld + j]);
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
				const float t = M[j * ld + c];
				M[j * ld + c] = M[p * ld + c];
				M[p * ld + c] = t;
			}
		__syncthreads();
		const float inv = 1.0f / M[j * ld + j];
		const long long nr = n - j - 1, nc = ld - j - 1;
		for (long long e = tid; e < nr * nc; e += nt) {
			const long long i = j + 1 + e / nc, c = j + 1 + e % nc;
			M[i * ld + c] -= (M[i * ld + j] * inv) * M[j * ld + c];
		}
		__syncthreads();
	}
	for (long long j = n - 1; j >= 0; j--) { // U x = y, all k columns
		for (long long c = tid; c < k; c += nt)
			M[j * ld + n + c] /= M[j * ld + j];
		__syncthreads();
		for (long long e = tid; e < j * k; e += nt) {
			const long long i = e / k, c = e % k;
			M[i * ld + n + c] -= M[i * ld + j] * M[j * ld + n + c];
		}
		__syncthreads();
	}
	for (long long e = tid; e < n * k; e += nt)
		x[e] = M[(e / k) * ld + n + e % k];
}
