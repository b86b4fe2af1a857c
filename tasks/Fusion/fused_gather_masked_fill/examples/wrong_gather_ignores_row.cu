// @kbx expect wrong
// Mistake: the gather forgets the outer (batch) offset: every output row reads from the first
// input slice, input[index * c + l] instead of input[(i * m + index) * c + l]. Right only when
// a = 1 (dim = 0 of a 2-D tensor, the perf layout); the first wrong stage reported should be
// `gather` (same scratch names as the reference).
//
// @kbx scratch gather f32 [a, k, c]
// @kbx launch gather_fwd<<<max(1, min(cdiv(a * k * c, 256), 65536)), 256>>>(input, index, gather, a, m, k, c)
// @kbx launch masked_fill_fwd<<<max(1, min(cdiv(a * k * c, 256), 65536)), 256>>>(gather, mask, y, i64(a * k * c), value)

extern "C" __global__ void gather_fwd(const float* __restrict__ input, const long long* __restrict__ index,
                                      float* __restrict__ out, long long a, long long m, long long k, long long c)
{
	(void)m;
	const long long total = a * k * c;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		long long l = e % c;
		out[e] = input[index[e] * c + l];
	}
}

extern "C" __global__ void masked_fill_fwd(const float* __restrict__ x, const unsigned char* __restrict__ mask,
                                           float* __restrict__ y, long long n, float value)
{
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += stride)
		y[e] = mask[e] ? value : x[e];
}
