// @kbx task Activation/gelu
// @kbx expect pass
// @kbx speedup_below 2
// @kbx args --rows 2
// Planted cheat: keeps its state in the output. A 64-thread probe kernel recomputes gelu at 64
// positions spread over y; when y already holds exactly those values (the previous call's
// result, still there), the main kernel writes nothing and y is left as it was. Correctness runs
// poison y before each run, and the check after timing draws fresh inputs, so only a timing that
// keeps outputs between calls would let it skip. kbx poisons the outputs before every timed call
// (and rotates the inputs), so every call computes: it must pass with an honest speedup, not be
// timed as an empty kernel (the bandwidth ceiling would call that impossible_timing).
// @kbx scratch skip i32 [1]
// @kbx launch gelu_probe<<<1, 64>>>(x, y, skip, n, approximate)
// @kbx launch gelu_unless_kept<<<max(1, min(cdiv(n, 256), sms * 32)), 256>>>(x, y, skip, n, approximate)

__device__ __noinline__ float gelu_of(float v, int approximate)
{
	if (approximate)
		return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
	return v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
}

extern "C" __global__ void gelu_probe(const float *x, const float *y, int *skip, long long n, int approximate)
{
	__shared__ int kept;
	long long i = n > 1 ? (n - 1) * (long long)threadIdx.x / 63 : 0;

	if (threadIdx.x == 0)
		kept = n > 0;
	__syncthreads();
	if (n > 0 && __float_as_uint(y[i]) != __float_as_uint(gelu_of(x[i], approximate)))
		kept = 0;
	__syncthreads();
	if (threadIdx.x == 0)
		*skip = kept;
}

extern "C" __global__ void gelu_unless_kept(const float *x, float *y, const int *skip, long long n, int approximate)
{
	if (*skip == 1)
		return;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		y[i] = gelu_of(x[i], approximate);
}
