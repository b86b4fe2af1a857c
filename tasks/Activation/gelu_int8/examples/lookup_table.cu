// @kbx expect pass
// Correct alternative: an int8 input has only 256 possible values, so each block first fills a
// 256-entry table in shared memory (one entry per thread, PyTorch's f32 formula, truncated), then
// maps its elements through it, one per thread per grid-stride step.
// @kbx launch gelu_i8<<<max(1, min(cdiv(n, 256), 4 * sms)), 256>>>(x, y, n, approximate)

__device__ __forceinline__ signed char gelu_trunc(float v, int approximate)
{
	float r;
	if (approximate)
		r = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * (v * v * v))));
	else
		r = v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
	return (signed char)truncf(r);
}

extern "C" __global__ void gelu_i8(const signed char *__restrict__ x, signed char *__restrict__ y, long long n,
				  int approximate)
{
	__shared__ signed char table[256];
	table[threadIdx.x] = gelu_trunc((float)((int)threadIdx.x - 128), approximate);
	__syncthreads();
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = table[(int)x[i] + 128];
}
