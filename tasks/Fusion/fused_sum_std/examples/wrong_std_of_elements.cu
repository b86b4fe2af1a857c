// @kbx expect wrong
// Mistake: fusing away the wrong stage: the kernel returns the standard deviation of the input
// elements themselves (torch.std(input)) instead of the deviation of the sums along dim. One block,
// two f32 passes over all b * c * d values. Wrong on every case with more than one element (for dim
// = None the function returns 0, this returns the spread of the data). No scratch: y is wrong.
//
// @kbx launch std_all<<<1, 1024>>>(input, y, i64(b * c * d), correction)

static __device__ float bsum(float v)
{
	__shared__ float sh[32];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = v;
	__syncthreads();
	float r = 0.0f;
	for (int w = 0; w < 32; w++)
		r += sh[w];
	__syncthreads();
	return r;
}

extern "C" __global__ void std_all(const float* __restrict__ x, float* __restrict__ y, long long n, long long correction)
{
	float s = 0.0f;
	for (long long i = threadIdx.x; i < n; i += 1024)
		s += x[i];
	const float mean = bsum(s) / (float)n;
	float q = 0.0f;
	for (long long i = threadIdx.x; i < n; i += 1024)
		q += (x[i] - mean) * (x[i] - mean);
	q = bsum(q);
	if (threadIdx.x == 0)
		y[0] = n > correction ? sqrtf(q / (float)(n - correction)) : 0.0f; // BUG: over the elements
}
