// tanh, f32 in and out, as PyTorch's CUDA kernel: tanhf (CUDA's accurate version, at most 2 ulp
// from the true value; it returns x itself for tiny |x|, +-1 for |x| >= ~9, NaN for NaN).
// Memory-bound: a grid-stride loop over float4 groups (cudaMalloc'd buffers are 256-byte aligned),
// four groups per thread (cdiv(n, 4096) blocks of 256), then the n % 4 tail elements, one each for
// the first threads of the grid.

// @kbx launch tanh_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

extern "C" __global__ void tanh_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = tanhf(a.x);
		a.y = tanhf(a.y);
		a.z = tanhf(a.z);
		a.w = tanhf(a.w);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = tanhf(x[i]);
}
