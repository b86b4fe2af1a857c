// y = log1p(x) in f32, the function PyTorch's CUDA kernel calls (log1pf: at most 1 ulp from the
// exact value, accurate for tiny |x| where log(1 + x) would lose every digit).
// Memory-bound: a grid-stride loop over float4 groups (cudaMalloc'd buffers are 256-byte aligned),
// then the n % 4 tail elements, one each for the first threads of the grid. Four groups per thread
// at the largest size (cdiv(n, 4096) blocks of 256).

// @kbx launch log1p_f32<<<max(1, cdiv(n, 4096)), 256>>>(x, y, n)

extern "C" __global__ void log1p_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		float4 a = x4[v];
		a.x = log1pf(a.x);
		a.y = log1pf(a.y);
		a.z = log1pf(a.z);
		a.w = log1pf(a.w);
		y4[v] = a;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = log1pf(x[i]);
}
