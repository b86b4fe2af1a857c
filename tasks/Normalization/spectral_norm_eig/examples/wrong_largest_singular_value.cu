// @kbx expect wrong
// Mistake: takes the name at its word and returns the spectral norm sigma_max(A) =
// sqrt(rho(A^T A)); the function returns the spectral radius max |lambda(A)|. They agree for
// symmetric positive semi-definite matrices (spd_3x128 passes) and differ for every other case:
// [[1, 2], [3, 4]] gives 5.4650 instead of 5.3723.
// @kbx scratch work f64 [max(1, 2 * bt * n * n)]
// @kbx launch sigma_max<<<max(1, bt), 256>>>(A, y, work, bt, n)

__device__ double bsum(double v, double *sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	v = (threadIdx.x & 31) < 8 ? sh[threadIdx.x & 31] : 0.0;
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	__syncthreads();
	return v;
}

extern "C" __global__ void sigma_max(const float *A, float *y, double *work, long long bt, long long n)
{
	__shared__ double sh[8];
	long long mat = blockIdx.x;
	if (mat >= bt)
		return;
	long long nn = n * n;
	const float *a = A + mat * nn;
	double *cur = work + mat * 2 * nn, *nxt = cur + nn;
	/* M = A^T A, then rho(M) = sigma_max^2 by scaled repeated squaring */
	double sq = 0.0;
	for (long long e = threadIdx.x; e < nn; e += blockDim.x) {
		long long i = e / n, j = e % n;
		double s = 0.0;
		for (long long k = 0; k < n; k++)
			s += (double)a[k * n + i] * (double)a[k * n + j];
		cur[e] = s;
		sq += s * s;
	}
	double s = sqrt(bsum(sq, sh));
	if (!(s > 0.0)) {
		if (threadIdx.x == 0)
			y[mat] = (float)s;
		return;
	}
	double logsum = log(s), w = 1.0;
	for (long long e = threadIdx.x; e < nn; e += blockDim.x)
		cur[e] /= s;
	__syncthreads();
	for (int it = 1; it <= 40; it++) {
		sq = 0.0;
		for (long long e = threadIdx.x; e < nn; e += blockDim.x) {
			long long i = e / n, j = e % n;
			double t = 0.0;
			for (long long k = 0; k < n; k++)
				t += cur[i * n + k] * cur[k * n + j];
			nxt[e] = t;
			sq += t * t;
		}
		s = sqrt(bsum(sq, sh));
		if (!(s > 0.0)) {
			if (threadIdx.x == 0)
				y[mat] = 0.0f;
			return;
		}
		w *= 0.5;
		logsum += log(s) * w;
		for (long long e = threadIdx.x; e < nn; e += blockDim.x)
			nxt[e] /= s;
		__syncthreads();
		double *t = cur;
		cur = nxt;
		nxt = t;
	}
	if (threadIdx.x == 0)
		y[mat] = (float)sqrt(exp(logsum));
}
