// @kbx expect pass
// Correct alternative: f32 throughout (per-thread f32 sums, an f32 shared-memory tree, f32 partials). The
// squares are all >= 0, so there is no cancellation and an f32 tree stays well inside rtol = 1e-5.
// 512 blocks of 512 threads, one element per step of a grid-stride loop.
// @kbx scratch partial f32 [512]
// @kbx launch mse_blocks<<<512, 512>>>(input, target, y, partial, n, reduction)
// @kbx launch mse_finish<<<1, 512>>>(partial, y, n, reduction)

__device__ float tree512(float v, float *s)
{
	s[threadIdx.x] = v;
	__syncthreads();
	for (int h = 256; h > 0; h >>= 1) {
		if (threadIdx.x < h)
			s[threadIdx.x] += s[threadIdx.x + h];
		__syncthreads();
	}
	return s[0];
}

extern "C" __global__ void mse_blocks(const float *__restrict__ input, const float *__restrict__ target,
				      float *__restrict__ y, float *__restrict__ partial, long long n, int reduction)
{
	__shared__ float s[512];
	float acc = 0.0f;
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float d = input[i] - target[i];
		float q = d * d;
		if (reduction == 0)
			y[i] = q;
		acc += q;
	}
	float t = tree512(acc, s);
	if (threadIdx.x == 0)
		partial[blockIdx.x] = t;
}

extern "C" __global__ void mse_finish(const float *__restrict__ partial, float *__restrict__ y, long long n,
				      int reduction)
{
	__shared__ float s[512];
	float t = tree512(partial[threadIdx.x], s);
	if (threadIdx.x == 0 && reduction != 0)
		y[0] = reduction == 1 ? t / (float)n : t;
}
