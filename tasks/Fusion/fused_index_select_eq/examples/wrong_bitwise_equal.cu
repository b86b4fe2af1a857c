// @kbx expect wrong
// Mistake: eq implemented as equality of the bit patterns (a memcmp-style comparison): NaN then
// equals an identical NaN and -0 differs from +0, where IEEE equality (torch.eq) says the opposite.
// The selection is right; only special-value cases go wrong. One fused kernel, no scratch.
//
// @kbx launch select_eq_bits<<<max(1, min(cdiv(a * k * c, 256), 65536)), 256>>>(input, index, other, y, a, m, k, c, omode, other_value)

extern "C" __global__ void select_eq_bits(const float* __restrict__ input, const long long* __restrict__ index,
                                          const float* __restrict__ other, unsigned char* __restrict__ y, long long a,
                                          long long m, long long k, long long c, int omode, float other_value)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < a * k * c; e += (long long)gridDim.x * blockDim.x) {
		long long l = e % c, row = e / c, j = row % k, i = row / k;
		float s = input[(i * m + index[j]) * c + l];
		float o = omode == 0 ? other_value : other[omode == 1 ? e : e % (k * c)];
		y[e] = __float_as_uint(s) == __float_as_uint(o);
	}
}
