// @kbx expect pass
// Correct alternative: the same matrix power method with a different normalisation, each square
// divided by its largest |entry| (any norm works: the dropped term is bounded by log(n cond) / 2^J),
// 30 squarings (2^30 ~ 1e9 is still far past f32 accuracy), and an untiled matmul: every thread
// computes whole outputs reading rows and columns straight from the L1 / L2-resident scratch.
// @kbx scratch work f64 [max(1, 2 * bt * n * n)]
// @kbx launch radius_untiled<<<max(1, bt), 256>>>(A, y, work, bt, n)

__device__ double block_max(double v, double *sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	v = (threadIdx.x & 31) < (blockDim.x >> 5) ? sh[threadIdx.x & 31] : 0.0;
	for (int o = 16; o > 0; o >>= 1)
		v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
	__syncthreads();
	return v;
}

extern "C" __global__ void radius_untiled(const float *A, float *y, double *work, long long bt, long long n)
{
	__shared__ double sh[32];
	long long mat = blockIdx.x;
	if (mat >= bt)
		return;
	long long nn = n * n;
	const float *a = A + mat * nn;
	double *cur = work + mat * 2 * nn, *nxt = cur + nn;
	double m = 0.0;
	for (long long e = threadIdx.x; e < nn; e += blockDim.x)
		m = fmax(m, fabs((double)a[e]));
	m = block_max(m, sh);
	if (!(m > 0.0)) {
		if (threadIdx.x == 0)
			y[mat] = 0.0f;
		return;
	}
	for (long long e = threadIdx.x; e < nn; e += blockDim.x)
		cur[e] = (double)a[e] / m;
	__syncthreads();
	double logsum = log(m), w = 1.0;
	for (int it = 1; it <= 30; it++) {
		double mx = 0.0;
		for (long long e = threadIdx.x; e < nn; e += blockDim.x) {
			long long i = e / n, j = e % n;
			double t = 0.0;
			for (long long k = 0; k < n; k++)
				t = fma(cur[i * n + k], cur[k * n + j], t);
			nxt[e] = t;
			mx = fmax(mx, fabs(t));
		}
		mx = block_max(mx, sh);
		if (!(mx > 0.0)) {
			if (threadIdx.x == 0)
				y[mat] = 0.0f;
			return;
		}
		w *= 0.5;
		logsum += log(mx) * w;
		for (long long e = threadIdx.x; e < nn; e += blockDim.x)
			nxt[e] /= mx;
		__syncthreads();
		double *t = cur;
		cur = nxt;
		nxt = t;
	}
	if (threadIdx.x == 0)
		y[mat] = (float)exp(logsum);
}
