// @kbx expect pass
// Correct alternative: one output row (a, j) per block iteration: the index is read once per row and the
// inner slice is copied with float4 when inner is a multiple of 4 (then every row starts 16-byte aligned),
// else element by element. A fixed grid of 16 blocks per SM loops over the rows, so any outer * k works.
// @kbx launch index_select_f32<<<sms * 16, 128>>>(x, index, y, d0, d1, d2, k, dim)

extern "C" __global__ void index_select_f32(const float *__restrict__ x, const long long *__restrict__ index,
					    float *__restrict__ y, long long d0, long long d1, long long d2,
					    long long k, int dim)
{
	long long outer = dim == 0 ? 1 : (dim == 1 ? d0 : d0 * d1);
	long long m = dim == 0 ? d0 : (dim == 1 ? d1 : d2);
	long long inner = dim == 0 ? d1 * d2 : (dim == 1 ? d2 : 1);
	long long rows = outer * k;
	for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
		long long j = row % k;
		long long a = row / k;
		const float *src = x + (a * m + index[j]) * inner;
		float *dst = y + row * inner;
		if ((inner & 3) == 0) {
			const float4 *s4 = reinterpret_cast<const float4 *>(src);
			float4 *d4 = reinterpret_cast<float4 *>(dst);
			for (long long b = threadIdx.x; b < inner / 4; b += blockDim.x)
				d4[b] = s4[b];
		} else {
			for (long long b = threadIdx.x; b < inner; b += blockDim.x)
				dst[b] = src[b];
		}
	}
}
