// fused_index_select_eq reference: the two PyTorch stages, each into its own buffer.
//   stage `index_select` (torch.index_select along the middle dim of input [a, m, c]):
//                        index_select[i, j, l] = input[i, index[j], l]          for [a, k, c]
//   stage `eq`           (torch.eq): y = index_select == other (IEEE: NaN unequal to all)
// Keeping `index_select` in memory costs an extra write and read of the selection: the price of a
// reference whose stages can be diffed.
//
// index_select: one warp per output row (i, j) (grid-stride over the a * k rows); the lanes copy the
// row's c contiguous elements, float4 at a time when c % 4 == 0 (the rows then stay 16-byte aligned),
// so both the gathered source row and the destination are read and written coalesced; one division
// per row, none per element. eq: a grid-stride elementwise loop over the flat index.
//
// @kbx scratch index_select f32 [a, k, c]
// @kbx launch index_select_rows<<<max(1, min(cdiv(a * k, 8), 65535)), 256>>>(input, index, index_select, a, m, k, c)
// @kbx launch eq_fwd<<<max(1, min(cdiv(a * k * c, 1024), 65536)), 256>>>(index_select, other, y, i64(a * k * c), i64(k * c), omode, other_value)

extern "C" __global__ void __launch_bounds__(256)
index_select_rows(const float* __restrict__ input, const long long* __restrict__ index, float* __restrict__ out,
                  long long a, long long m, long long k, long long c)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
	for (long long row = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); row < a * k; row += warps) {
		const long long i = row / k, j = row - i * k;
		const float* src = input + (i * m + index[j]) * c;
		float* dst = out + row * c;
		if ((c & 3) == 0) {
			const float4* s4 = reinterpret_cast<const float4*>(src);
			float4* d4 = reinterpret_cast<float4*>(dst);
			for (long long q = lane; q < c / 4; q += 32)
				d4[q] = s4[q];
		} else {
			for (long long l = lane; l < c; l += 32)
				dst[l] = src[l];
		}
	}
}

// omode 0: compare with the number other_value; 1: with other[e]; 2: with other[e % (k * c)]
extern "C" __global__ void __launch_bounds__(256)
eq_fwd(const float* __restrict__ sel, const float* __restrict__ other, unsigned char* __restrict__ y, long long n,
       long long kc, int omode, float other_value)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride) {
		float o = omode == 0 ? other_value : other[omode == 1 ? e : e % kc];
		y[e] = sel[e] == o ? 1 : 0;
	}
}
