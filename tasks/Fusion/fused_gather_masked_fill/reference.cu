// fused_gather_masked_fill reference: the two PyTorch stages, each into its own buffer.
//   stage `gather`      (torch.gather along the middle dim of input [a, m, c]):
//                       gather[i, j, l] = input[i, index[i, j, l], l]      for [a, k, c]
//   stage `masked_fill` (Tensor.masked_fill): y = mask ? value : gather
// Keeping `gather` in memory costs one extra write and read of the [a, k, c] result: the price of
// a reference whose stages can be diffed. Both stages are grid-stride loops over the flat output
// index e = (i * k + j) * c + l; consecutive threads take consecutive l, so index, mask, gather and y
// are read and written coalesced, and input is read coalesced whenever neighbouring l share an
// index value (dim = 0: whole rows of c elements). Pure copies: exact.
//
// @kbx scratch gather f32 [a, k, c]
// @kbx launch gather_fwd<<<max(1, min(cdiv(a * k * c, 256), 65536)), 256>>>(input, index, gather, a, m, k, c)
// @kbx launch masked_fill_fwd<<<max(1, min(cdiv(a * k * c, 1024), 65536)), 256>>>(gather, mask, y, i64(a * k * c), value)

extern "C" __global__ void __launch_bounds__(256)
gather_fwd(const float* __restrict__ input, const long long* __restrict__ index, float* __restrict__ out,
           long long a, long long m, long long k, long long c)
{
	const long long total = a * k * c;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		long long row = e / c;           // i * k + j
		long long l = e - row * c;
		long long i = row / k;
		long long src = index[e];        // in [0, m) by contract
		out[e] = input[(i * m + src) * c + l];
	}
}

extern "C" __global__ void __launch_bounds__(256)
masked_fill_fwd(const float* __restrict__ x, const unsigned char* __restrict__ mask, float* __restrict__ y,
                long long n, float value)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
		y[e] = mask[e] ? value : x[e];
}
