// x.index_fill_(dim, index, value) on the contiguous view x[a, c, d]: x[i, index[j], l] = value for every
// i < a, j < k, l < d; a negative index counts from the end (index + c).
//
// One thread per filled element, grid-stride over the a * k * d of them, numbered e = (i * k + j) * d + l
// so that consecutive threads write consecutive l (coalesced when d > 1) and read the same index entry
// (one broadcast load). Repeated indices write the same value, so the order of the writes does not
// matter. Elements not indexed are never touched (x is inout). Exact.
//
// Grid: min(cdiv(a * k * d, 256), 8 * sms) blocks of 256.

// @kbx launch index_fill<<<max(1, min(cdiv(a * k * d, 256), 8 * sms)), 256>>>(x, index, a, c, d, k, value)

extern "C" __global__ void __launch_bounds__(256)
index_fill(float *__restrict__ x, const long long *__restrict__ index, long long a, long long c, long long d,
	   long long k, float value)
{
	long long total = a * k * d;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
	     e += (long long)gridDim.x * blockDim.x) {
		long long l = e % d, r = e / d;
		long long j = r % k, i = r / k;
		long long idx = index[j];
		if (idx < 0)
			idx += c;
		x[(i * c + idx) * d + l] = value;
	}
}
