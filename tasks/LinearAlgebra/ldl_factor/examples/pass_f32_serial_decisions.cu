// @kbx expect pass
// Correct alternative: sytf2 (Bunch-Kaufman, lower) in f32 by one block per matrix, computed in
// place in the output: thread 0 scans for colmax / rowmax and takes the pivot decision, the
// block does the exchanges and the rank-1 / rank-2 updates of the trailing lower triangle.
//
// @kbx scratch t f32 [max(1, batch * 2 * n)]
// @kbx launch ldl_f32<<<max(1, batch), 512>>>(a, ld, pivots, t, batch, n)

__device__ __forceinline__ void swapf(float* x, float* y)
{
	const float t = *x;
	*x = *y;
	*y = t;
}

extern "C" __global__ void __launch_bounds__(512)
ldl_f32(const float* __restrict__ a, float* __restrict__ ld, int* __restrict__ pivots, float* __restrict__ t,
	long long batch, long long n)
{
	__shared__ long long s_kp;
	__shared__ int s_kstep, s_skip;
	if (blockIdx.x >= batch)
		return;
	const int tid = threadIdx.x, nt = blockDim.x;
	const float alpha = (1.0f + sqrtf(17.0f)) / 8.0f;
	const float* A = a + blockIdx.x * n * n;
	float* W = ld + blockIdx.x * n * n;
	float* T = t + blockIdx.x * 2 * n;
	int* piv = pivots + blockIdx.x * n;
	for (long long e = tid; e < n * n; e += nt)
		W[e] = (e % n <= e / n) ? A[e] : 0.0f;
	__syncthreads();
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
