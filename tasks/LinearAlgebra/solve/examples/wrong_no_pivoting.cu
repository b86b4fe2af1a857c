// @kbx expect wrong
// Mistake: Gaussian elimination without row exchanges: the zero leading entry of swap_2x2
// divides by zero (inf / NaN), and the small pivots of the dense randn_70 case lose accuracy.
//
// @kbx scratch w f32 [max(1, n * (n + k))]
// @kbx launch gauss_nopivot<<<1, 1024>>>(a, b, x, w, n, k)

extern "C" __global__ void __launch_bounds__(1024)
gauss_nopivot(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ x, float* __restrict__ w,
	  long long n, long long k)
{
	const int tid = threadIdx.x, nt = blockDim.x;
	const long long ld = n + k;
	for (long long e = tid; e < n * ld; e += nt) {
		const long long i = e / ld, c = e % ld;
		w[e] = c < n ? a[i * n + c] : b[i * k + c - n];
	}
	__syncthreads();
	for (long long j = 0; j < n; j++) {
		// BUG: no pivot search and no row exchange
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
