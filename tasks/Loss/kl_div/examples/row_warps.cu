// @kbx expect pass
// Correct alternative: one warp per row for the elementwise work (a row's k losses summed in f64 by
// the warp), per-row sums in a scratch buffer, then one block adds the rows and divides. Works for
// every reduction; ordinary f32 ops (NVRTC may fuse t * log t - t * x into an FMA, a difference of
// ~1 ulp, far inside the tolerance).
// @kbx scratch rows f64 [max(1, r)]
// @kbx launch kl_rows<<<max(1, cdiv(r, 8)), 256>>>(input, target, y, rows, r, k, log_target, reduction)
// @kbx launch kl_total<<<1, 256>>>(rows, y, r, k, reduction)

extern "C" __global__ void kl_rows(const float *__restrict__ input, const float *__restrict__ target,
				   float *__restrict__ y, double *__restrict__ rows, long long r, long long k,
				   int log_target, int reduction)
{
	long long row = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
	int lane = threadIdx.x & 31;
	if (row >= r)
		return;
	double acc = 0.0;
	for (long long j = lane; j < k; j += 32) {
		long long i = row * k + j;
		float x = input[i], t = target[i], l;
		if (log_target)
			l = expf(t) * (t - x);
		else
			l = (t != t ? t : (t == 0.f ? 0.f : t * logf(t))) - t * x;
		if (reduction == 0)
			y[i] = l;
		acc += l;
	}
	for (int off = 16; off > 0; off >>= 1)
		acc += __shfl_down_sync(0xffffffffu, acc, off);
	if (lane == 0)
		rows[row] = acc;
}

extern "C" __global__ void kl_total(const double *__restrict__ rows, float *__restrict__ y, long long r, long long k,
				    int reduction)
{
	__shared__ double s[256];
	if (reduction == 0)
		return;
	double acc = 0.0;
	for (long long i = threadIdx.x; i < r; i += 256)
		acc += rows[i];
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			s[threadIdx.x] += s[threadIdx.x + h];
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		double v = s[0];
		if (reduction == 1)
			v /= (double)(r * k);
		else if (reduction == 3)
			v /= (double)r;
		y[0] = (float)v;
	}
}
