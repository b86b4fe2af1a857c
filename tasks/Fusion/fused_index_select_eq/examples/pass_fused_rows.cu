// @kbx expect pass
// Correct alternative: one fused kernel, no intermediate buffer. blockIdx.y walks the selected rows
// (i, j), threads walk the row's c elements: the source row input[i, index[j], :] is read coalesced
// and compared in registers.
//
// @kbx launch select_eq_rows<<<dim3(max(1, min(cdiv(c, 256), 64)), max(1, min(a * k, 65535))), 256>>>(input, index, other, y, a, m, k, c, omode, other_value)

extern "C" __global__ void select_eq_rows(const float* __restrict__ input, const long long* __restrict__ index,
                                          const float* __restrict__ other, unsigned char* __restrict__ y, long long a,
                                          long long m, long long k, long long c, int omode, float other_value)
{
	for (long long row = blockIdx.y; row < a * k; row += gridDim.y) {
		const long long i = row / k, j = row % k;
		const float* src = input + (i * m + index[j]) * c;
		for (long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x; l < c; l += (long long)gridDim.x * blockDim.x) {
			float o = omode == 0 ? other_value : omode == 1 ? other[row * c + l] : other[j * c + l];
			y[row * c + l] = src[l] == o;
		}
	}
}
