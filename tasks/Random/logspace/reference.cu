// torch.logspace, f32, exactly as PyTorch's CUDA logspace_cuda_out (RangeFactories.cu) computes it:
//   step = (end - start) / (float)(steps - 1)           (f32 division, steps - 1 rounded to f32)
//   i <  steps / 2:  e = start + step * (float)i        (counting up from start)
//   i >= steps / 2:  e = end - step * (float)(steps - 1 - i)   (counting down from end)
//   y[i] = powf(base, e)
// and for steps == 1, y[0] = (float)pow((double)base, (double)start), as PyTorch fills it on the
// host in f64. Both exponent expressions are written as in PyTorch's lambda (f32 times int64, so the
// index converts to f32 with rounding above 2^24), and NVRTC, like nvcc, contracts multiply-adds by
// default, so the exponents come out bit for bit as PyTorch's; powf (CUDA's accurate version, a few
// ulp) then gives the same values. A one-ulp difference in e moves y by ln(base) * ulp(e) relative,
// at most ~5e-6 over the f32 range, inside rtol = 1e-5; what a different formula changes visibly is
// a NaN versus a number for a negative base, hence the two-sided split and the case that tests it.
// Write-only, memory-bound: a grid-stride loop storing float4 groups of four consecutive elements
// (cudaMalloc'd buffers are 256-byte aligned), four groups per thread (cdiv(n, 4096) blocks of 256),
// then the n % 4 tail elements, one each for the first threads of the grid.

// @kbx launch logspace_f32<<<max(1, cdiv(n, 4096)), 256>>>(y, n, start, end, base)

__device__ __forceinline__ float logspace_one(long long i, long long steps, long long halfway, float start,
					      float end, float step, float base)
{
	if (i < halfway)
		return powf(base, start + step * i);
	return powf(base, end - step * (steps - i - 1));
}

extern "C" __global__ void logspace_f32(float *__restrict__ y, long long n, float start, float end, float base)
{
	long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (n == 1) {
		if (tid == 0)
			y[0] = (float)pow((double)base, (double)start);
		return;
	}
	const float step = (end - start) / (float)(n - 1);
	const long long halfway = n / 2;
	long long stride = (long long)gridDim.x * blockDim.x;
	long long n4 = n / 4;
	float4 *y4 = reinterpret_cast<float4 *>(y);
	for (long long v = tid; v < n4; v += stride) {
		long long i = 4 * v;
		float4 r;
		r.x = logspace_one(i, n, halfway, start, end, step, base);
		r.y = logspace_one(i + 1, n, halfway, start, end, step, base);
		r.z = logspace_one(i + 2, n, halfway, start, end, step, base);
		r.w = logspace_one(i + 3, n, halfway, start, end, step, base);
		y4[v] = r;
	}
	long long i = n4 * 4 + tid; /* at most 3 tail elements */
	if (i < n)
		y[i] = logspace_one(i, n, halfway, start, end, step, base);
}
