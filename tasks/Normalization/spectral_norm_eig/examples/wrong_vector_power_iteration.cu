// @kbx expect wrong
// Mistake: the textbook vector power iteration, v <- A v / ||A v|| for 500 steps, returning ||A v||.
// It converges only to a single real dominant eigenvalue with a gap: a complex dominant pair
// ([[0, -4], [1, 0]], and about half of the random non-symmetric draws) makes ||A v|| oscillate, and
// close competitors (the spd matrices) slow it below f32 accuracy.
// @kbx launch power_iteration<<<max(1, bt), 128>>>(A, y, bt, n)

extern "C" __global__ void power_iteration(const float *A, float *y, long long bt, long long n)
{
	__shared__ double v[128], w[128];
	__shared__ double norm;
	long long mat = blockIdx.x;
	if (mat >= bt || n > 128)
		return;
	const float *a = A + mat * n * n;
	for (long long i = threadIdx.x; i < n; i += blockDim.x)
		v[i] = 1.0 + 0.01 * (double)i;
	__syncthreads();
	for (int it = 0; it < 500; it++) {
		for (long long i = threadIdx.x; i < n; i += blockDim.x) {
			double s = 0.0;
			for (long long k = 0; k < n; k++)
				s += (double)a[i * n + k] * v[k];
			w[i] = s;
		}
		__syncthreads();
		if (threadIdx.x == 0) {
			double s = 0.0, t = 0.0;
			for (long long i = 0; i < n; i++) {
				s += w[i] * w[i];
				t += v[i] * v[i];
			}
			norm = sqrt(s / t);
		}
		__syncthreads();
		for (long long i = threadIdx.x; i < n; i += blockDim.x)
			v[i] = norm > 0.0 ? w[i] / norm : 0.0;
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[mat] = (float)norm;
}
