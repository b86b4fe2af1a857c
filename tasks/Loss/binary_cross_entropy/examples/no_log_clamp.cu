// @kbx expect wrong
// Mistake: no clamp of the logs at -100. For input 0 or 1 (the special cases) a log is -inf and the
// loss becomes inf, or NaN where it is multiplied by a zero target factor; PyTorch gives 0, 50 or 100.
// @kbx launch bce_simple<<<1, 1024>>>(input, target, weight, y, n, nw, reduction)

extern "C" __global__ void bce_simple(const float *__restrict__ input, const float *__restrict__ target,
				      const float *__restrict__ weight, float *__restrict__ y, long long n, long long nw,
				      int reduction)
{
	__shared__ double s[1024];
	double acc = 0.0;
	for (long long i = threadIdx.x; i < n; i += 1024) {
		float x = input[i], t = target[i];
		float l = (t - 1.0f) * log1pf(-x) - t * logf(x);
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
