// @kbx expect pass
// Correct alternative: one block per (i, j) slice, its threads filling the d elements of that slice.
// Fine for wide slices; the perf workload's 1-D tensor (d = 1) makes it one element per block.
// @kbx launch index_fill_slices<<<max(1, min(a * k, 65535)), 128>>>(x, index, a, c, d, k, value)

extern "C" __global__ void index_fill_slices(float *__restrict__ x, const long long *__restrict__ index, long long a,
					     long long c, long long d, long long k, float value)
{
	for (long long s = blockIdx.x; s < a * k; s += gridDim.x) {
		long long i = s / k, j = s % k;
		long long idx = index[j];
		idx = idx < 0 ? idx + c : idx;
		float *row = x + (i * c + idx) * d;
		for (long long l = threadIdx.x; l < d; l += blockDim.x)
			row[l] = value;
	}
}
