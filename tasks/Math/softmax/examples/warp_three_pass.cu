// @kbx expect pass
// Correct alternative: one warp per slice and three passes, as PyTorch's kernels do: the max (fmaxf skips
// NaN, but a NaN still reaches the sum), the sum of exp(x - max), then the writes. Warps of a block take
// consecutive slices; strided slices (b > 1) read one element per lane per step, uncoalesced but correct.
// @kbx launch softmax_f32<<<max(1, cdiv(a * b, 8)), 256>>>(x, y, a, d, b)

extern "C" __global__ void softmax_f32(const float *__restrict__ x, float *__restrict__ y, long long a, long long d,
				      long long b)
{
	long long r = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
	int lane = threadIdx.x & 31;
	if (r >= a * b || d == 0)
		return;
	long long o = r / b, i = r % b;
	const float *xs = x + o * d * b + i;
	float *ys = y + o * d * b + i;
	float m = -__int_as_float(0x7f800000);
	for (long long k = lane; k < d; k += 32)
		m = fmaxf(m, xs[k * b]);
	for (int off = 16; off > 0; off >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
	float s = 0.0f;
	for (long long k = lane; k < d; k += 32)
		s += expf(xs[k * b] - m);
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	for (long long k = lane; k < d; k += 32)
		ys[k * b] = expf(xs[k * b] - m) / s;
}
