// @kbx expect wrong
// Mistake: the mask is read with the wrong polarity (value goes where mask is false, as with
// torch.where(mask, gathered, value)). One fused kernel, no scratch.
//
// @kbx launch gather_fill<<<max(1, min(cdiv(a * k * c, 256), 65536)), 256>>>(input, index, mask, y, a, m, k, c, value)

extern "C" __global__ void gather_fill(const float* __restrict__ input, const long long* __restrict__ index,
                                       const unsigned char* __restrict__ mask, float* __restrict__ y, long long a,
                                       long long m, long long k, long long c, float value)
{
	const long long total = a * k * c;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		long long row = e / c, l = e % c, i = row / k;
		y[e] = mask[e] ? input[(i * m + index[e]) * c + l] : value;
	}
}
