// @kbx expect wrong
// Mistake: 'batchmean' divided by the number of elements r * k (what 'mean' does) instead of the batch
// size r: every batchmean case with k > 1 comes out k times too small.
// @kbx launch kl_simple<<<1, 1024>>>(input, target, y, r, k, log_target, reduction)

extern "C" __global__ void kl_simple(const float *__restrict__ input, const float *__restrict__ target,
				     float *__restrict__ y, long long r, long long k, int log_target, int reduction)
{
	__shared__ double s[1024];
	double acc = 0.0;
	for (long long i = threadIdx.x; i < r * k; i += 1024) {
		float x = input[i], t = target[i], l;
		if (log_target)
			l = __fmul_rn(expf(t), __fsub_rn(t, x));
		else
			l = __fsub_rn(t != t ? t : (t == 0.f ? 0.f : __fmul_rn(t, logf(t))), __fmul_rn(t, x));
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
		y[0] = (float)(reduction == 2 ? s[0] : s[0] / (double)(r * k));
}
