// index_select on an f32 tensor viewed as [outer, m, inner] around the selected dimension:
//   y[a, j, b] = x[a, index[j], b],  a < outer, j < k, b < inner
// with (outer, m, inner) = (1, d0, d1*d2), (d0, d1, d2) or (d0*d1, d2, 1) for dim 0, 1, 2.
// A gather copy, memory bound: one output element per thread in a grid-stride loop, so consecutive
// threads write consecutive outputs (coalesced) and read consecutive inputs whenever inner > 1.

// @kbx launch index_select_f32<<<max(1, min(cdiv(y0 * y1 * y2, 256), sms * 32)), 256>>>(x, index, y, d0, d1, d2, k, dim)

extern "C" __global__ void index_select_f32(const float *__restrict__ x, const long long *__restrict__ index,
					    float *__restrict__ y, long long d0, long long d1, long long d2,
					    long long k, int dim)
{
	long long outer, m, inner;
	if (dim == 0) {
		outer = 1;
		m = d0;
		inner = d1 * d2;
	} else if (dim == 1) {
		outer = d0;
		m = d1;
		inner = d2;
	} else {
		outer = d0 * d1;
		m = d2;
		inner = 1;
	}
	long long total = outer * k * inner;
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
		long long b = i % inner;
		long long row = i / inner; /* a * k + j */
		long long j = row % k;
		long long a = row / k;
		long long src = index[j];
		y[i] = x[(a * m + src) * inner + b];
	}
}
