// @kbx expect pass
// Correct alternative: a single block of 1024 threads; log(1 - x) instead of log1p(-x) (for x < 1e-7 it
// is off by ~1e-8 absolute, far inside the tolerance; 1 - x is exact for x >= 0.5), both logs clamped at
// -100, f64 shared-memory tree. One SM for the whole tensor: slow on the perf sizes.
// @kbx launch bce_simple<<<1, 1024>>>(input, target, weight, y, n, nw, reduction)

extern "C" __global__ void bce_simple(const float *__restrict__ input, const float *__restrict__ target,
				      const float *__restrict__ weight, float *__restrict__ y, long long n, long long nw,
				      int reduction)
{
	__shared__ double s[1024];
	double acc = 0.0;
	for (long long i = threadIdx.x; i < n; i += 1024) {
		float x = input[i], t = target[i];
		float lx = fmaxf(logf(x), -100.0f), l1 = fmaxf(logf(1.0f - x), -100.0f);
		float l = (t - 1.0f) * l1 - t * lx;
		if (nw > 0)
			l *= weight[i];
		if (reduction == 0)
			y[i] = l;
		acc += l;
	}
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int h = 512; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			s[threadIdx.x] += s[threadIdx.x + h];
		__syncthreads();
	}
	if (threadIdx.x == 0 && reduction != 0)
		y[0] = (float)(reduction == 1 ? s[0] / (double)n : s[0]);
}
