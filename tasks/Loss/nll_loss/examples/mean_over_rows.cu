// @kbx expect wrong
// Mistake: 'mean' divides by the number of rows n instead of the sum of the weights of the rows that
// are not ignored: wrong with class weights and with ignored rows (the corner cases already).
// @kbx launch nll_simple<<<1, 1024>>>(input, target, weight, y, n, c, cw, ignore_index, reduction)

extern "C" __global__ void nll_simple(const float *__restrict__ input, const long long *__restrict__ target,
				      const float *__restrict__ weight, float *__restrict__ y, long long n, long long c,
				      long long cw, long long ignore_index, int reduction)
{
	__shared__ double s[1024];
	double acc = 0.0;
	for (long long i = threadIdx.x; i < n; i += 1024) {
		long long t = target[i];
		float l = 0.f;
		if (t != ignore_index)
			l = -(cw > 0 ? weight[t] : 1.f) * input[i * c + t];
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
