// @kbx expect wrong
// Mistake: the grid is capped at 1024 blocks of 256 threads but the kernel handles one element per thread
// (no grid-stride loop): outputs past 262144 elements (repeat_middle, the larger perf rows) are never written.
// @kbx launch index_select_f32<<<max(1, min(cdiv(y0 * y1 * y2, 256), 1024)), 256>>>(x, index, y, d0, d1, d2, k, dim)

extern "C" __global__ void index_select_f32(const float *__restrict__ x, const long long *__restrict__ index,
					    float *__restrict__ y, long long d0, long long d1, long long d2,
					    long long k, int dim)
{
	long long outer = dim == 0 ? 1 : (dim == 1 ? d0 : d0 * d1);
	long long m = dim == 0 ? d0 : (dim == 1 ? d1 : d2);
	long long inner = dim == 0 ? d1 * d2 : (dim == 1 ? d2 : 1);
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= outer * k * inner)
		return;
	long long b = i % inner;
	long long j = (i / inner) % k;
	long long a = (i / inner) / k;
	y[i] = x[(a * m + index[j]) * inner + b];
}
