// @kbx expect pass
// Correct alternative: a single block of 1024 threads does everything (elementwise writes for 'none',
// an f64 shared-memory tree otherwise). Simple and exact, but one SM for the whole tensor: slow on the
// perf sizes.
// @kbx launch sl1_simple<<<1, 1024>>>(input, target, y, n, beta, reduction)

extern "C" __global__ void sl1_simple(const float *__restrict__ input, const float *__restrict__ target,
				      float *__restrict__ y, long long n, float beta, int reduction)
{
	__shared__ double s[1024];
	double acc = 0.0;
	for (long long i = threadIdx.x; i < n; i += 1024) {
		float z = fabsf(__fsub_rn(input[i], target[i]));
		float l = z < beta ? __fdiv_rn(__fmul_rn(__fmul_rn(0.5f, z), z), beta) : __fsub_rn(z, __fmul_rn(0.5f, beta));
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
