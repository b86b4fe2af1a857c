// @kbx expect wrong
// Mistake: solving the normal equations A^T A x = A^T b (Cholesky of A^T A, in f32) instead of
// A x = b: mathematically the same x, but cond(A^T A) = cond(A)^2, so the f32 error grows with
// the square of the conditioning: test_case_2 (cond 332) and randn_70 (cond 121) come out off by
// ~1e-3 relative (so do the 16 x 16 random draws).
//
// @kbx scratch m f32 [max(1, n * (n + k))]
// @kbx launch normal_eq<<<1, 1024>>>(a, b, x, m, n, k)

extern "C" __global__ void __launch_bounds__(1024)
normal_eq(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ x, float* __restrict__ m,
	  long long n, long long k)
{
	const int tid = threadIdx.x, nt = blockDim.x;
	const long long ld = n + k;
	// [A^T A | A^T B]
	for (long long e = tid; e < n * ld; e += nt) {
		const long long i = e / ld, c = e % ld;
		float s = 0.0f;
		for (long long r = 0; r < n; r++)
			s += a[r * n + i] * (c < n ? a[r * n + c] : b[r * k + c - n]);
		m[e] = s;
	}
	__syncthreads();
	// Cholesky of the SPD part, lower triangle in place
	for (long long j = 0; j < n; j++) {
		if (tid == 0)
			m[j * ld + j] = sqrtf(m[j * ld + j]);
		__syncthreads();
		for (long long i = j + 1 + tid; i < n; i += nt)
			m[i * ld + j] /= m[j * ld + j];
		__syncthreads();
		const long long t = n - j - 1;
		for (long long e = tid; e < t * t; e += nt) {
			const long long i = j + 1 + e / t, c = j + 1 + e % t;
			if (c <= i)
				m[i * ld + c] -= m[i * ld + j] * m[c * ld + j];
		}
		__syncthreads();
	}
	// L y = A^T B, then L^T x = y
	for (long long j = 0; j < n; j++) {
		for (long long c = tid; c < k; c += nt)
			m[j * ld + n + c] /= m[j * ld + j];
		__syncthreads();
		for (long long e = tid; e < (n - j - 1) * k; e += nt) {
			const long long i = j + 1 + e / k, c = e % k;
			m[i * ld + n + c] -= m[i * ld + j] * m[j * ld + n + c];
		}
		__syncthreads();
	}
	for (long long j = n - 1; j >= 0; j--) {
		for (long long c = tid; c < k; c += nt)
			m[j * ld + n + c] /= m[j * ld + j];
		__syncthreads();
		for (long long e = tid; e < j * k; e += nt) {
			const long long i = e / k, c = e % k;
			m[i * ld + n + c] -= m[j * ld + i] * m[j * ld + n + c];
		}
		__syncthreads();
	}
	for (long long e = tid; e < n * k; e += nt)
		x[e] = m[(e / k) * ld + n + e % k];
}
