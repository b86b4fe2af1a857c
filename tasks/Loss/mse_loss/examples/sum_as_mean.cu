// @kbx expect wrong
// Mistake: treats every reducing mode as 'mean' (divides by n for reduction = 2 'sum' too).
// @kbx scratch part f64 [max(1, min(cdiv(n, 4096), 1024))]
// @kbx launch mse_partial<<<max(1, min(cdiv(n, 4096), 1024)), 256>>>(input, target, y, part, n, reduction)
// @kbx launch mse_final<<<1, 256>>>(part, y, n, i64(max(1, min(cdiv(n, 4096), 1024))), reduction)

extern "C" __global__ void mse_partial(const float *__restrict__ input, const float *__restrict__ target,
				       float *__restrict__ y, double *__restrict__ part, long long n, int reduction)
{
	__shared__ double s[256];
	double acc = 0.0;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float d = input[i] - target[i];
		if (reduction == 0)
			y[i] = d * d;
		else
			acc += (double)(d * d);
	}
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int h = 128; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			s[threadIdx.x] += s[threadIdx.x + h];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		part[blockIdx.x] = s[0];
}

extern "C" __global__ void mse_final(const double *__restrict__ part, float *__restrict__ y, long long n,
				     long long chunks, int reduction)
{
	if (reduction == 0 || threadIdx.x != 0)
		return;
	double acc = 0.0;
	for (long long p = 0; p < chunks; p++)
		acc += part[p];
	y[0] = (float)(acc / (double)n);
}
