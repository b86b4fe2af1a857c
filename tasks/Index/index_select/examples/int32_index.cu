// @kbx expect wrong
// Mistake: reads the index tensor as 32-bit ints although PyTorch's index is int64, so index[j] is
// really the low or high half of another entry (mostly 0 for the high halves) and the wrong slices are copied.
// @kbx launch index_select_f32<<<max(1, cdiv(y0 * y1 * y2, 256)), 256>>>(x, index, y, d0, d1, d2, k, dim)

extern "C" __global__ void index_select_f32(const float *__restrict__ x, const long long *__restrict__ index,
					    float *__restrict__ y, long long d0, long long d1, long long d2,
					    long long k, int dim)
{
	const int *idx32 = reinterpret_cast<const int *>(index);
	long long outer = dim == 0 ? 1 : (dim == 1 ? d0 : d0 * d1);
	long long m = dim == 0 ? d0 : (dim == 1 ? d1 : d2);
	long long inner = dim == 0 ? d1 * d2 : (dim == 1 ? d2 : 1);
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= outer * k * inner)
		return;
	long long b = i % inner;
	long long j = (i / inner) % k;
	long long a = (i / inner) / k;
	y[i] = x[(a * m + idx32[j]) * inner + b];
}
