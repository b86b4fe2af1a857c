// @kbx expect pass
// Correct alternative: one fused pass: each thread reads a value once, computes expf once and writes
// it into all reps copies (coalesced per copy); no `exp` buffer.
//
// @kbx launch exp_tile<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(x, y, n, reps)

extern "C" __global__ void exp_tile(const float* __restrict__ x, float* __restrict__ y, long long n, long long reps)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		const float e = expf(x[i]);
		for (long long r = 0; r < reps; r++)
			y[r * n + i] = e;
	}
}
