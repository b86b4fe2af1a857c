// @kbx expect pass
// Correct alternative: one fused kernel, a 2-D grid: blockIdx.y walks the output rows (i, j)
// (grid-stride), threads walk l inside a row, so the row's index/mask/y segment and the input row
// it reads are contiguous when the index is constant along l, and no division per element is needed
// beyond one per row. The masked element never reads input.
//
// @kbx launch gather_fill_rows<<<dim3(max(1, min(cdiv(c, 256), 64)), max(1, min(a * k, 65535))), 256>>>(input, index, mask, y, a, m, k, c, value)

extern "C" __global__ void gather_fill_rows(const float* __restrict__ input, const long long* __restrict__ index,
                                            const unsigned char* __restrict__ mask, float* __restrict__ y,
                                            long long a, long long m, long long k, long long c, float value)
{
	for (long long row = blockIdx.y; row < a * k; row += gridDim.y) {
		const long long i = row / k;
		const float* in_i = input + i * m * c;
		for (long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x; l < c;
		     l += (long long)gridDim.x * blockDim.x) {
			long long e = row * c + l;
			y[e] = mask[e] ? value : in_i[index[e] * c + l];
		}
	}
}
