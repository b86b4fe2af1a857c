// @kbx expect wrong
// Mistake: wrong formula. The quadratic branch forgets to divide by beta (0.5 * z * z, the Huber loss
// with delta = 1); identical for beta = 1, wrong for the test's beta = 0.5 and 0.1 (and beta = 20).
// @kbx launch sl1_simple<<<1, 256>>>(input, target, y, n, beta, reduction)

extern "C" __global__ void sl1_simple(const float *__restrict__ input, const float *__restrict__ target,
				      float *__restrict__ y, long long n, float beta, int reduction)
{
	__shared__ double s[256];
	double acc = 0.0;
	for (long long i = threadIdx.x; i < n; i += 256) {
		float z = fabsf(input[i] - target[i]);
		float l = z < beta ? 0.5f * z * z : z - 0.5f * beta;
		if (reduction == 0)
			y[i] = l;
		acc += l;
	}
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			s[threadIdx.x] += s[threadIdx.x + h];
		__syncthreads();
	}
	if (threadIdx.x == 0 && reduction != 0)
		y[0] = (float)(reduction == 1 ? s[0] / (double)n : s[0]);
}
