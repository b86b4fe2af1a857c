// index_select on an f32 tensor viewed as [outer, m, inner] around the selected dimension:
//   y[a, j, b] = x[a, index[j], b],  a < outer, j < k, b < inner
// with (outer, m, inner) = (1, d0, d1*d2), (d0, d1, d2) or (d0*d1, d2, 1) for dim 0, 1, 2.
// A gather copy, memory bound: one output element per thread in a grid-stride loop, so consecutive
// threads write consecutive outputs (coalesced) and read consecutive inputs whenever inner > 1.
// When inner is a multiple of 4 every slice starts 16-byte aligned and the copy moves float4s
// (a quarter of the index arithmetic and of the memory instructions).

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
	long long stride = (long long)gridDim.x * blockDim.x;
	long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if ((inner & 3) == 0) {
		long long inner4 = inner / 4;
		long long total4 = outer * k * inner4;
		const float4 *x4 = reinterpret_cast<const float4 *>(x);
		float4 *y4 = reinterpret_cast<float4 *>(y);
		for (long long i = first; i < total4; i += stride) {
			long long b = i % inner4;
			long long row = i / inner4; /* a * k + j */
			long long j = row % k;
			long long a = row / k;
			y4[i] = x4[(a * m + index[j]) * inner4 + b];
		}
		return;
	}
	long long total = outer * k * inner;
	for (long long i = first; i < total; i += stride) {
		long long b = i % inner;
		long long row = i / inner; /* a * k + j */
		long long j = row % k;
		long long a = row / k;
		y[i] = x[(a * m + index[j]) * inner + b];
	}
}
