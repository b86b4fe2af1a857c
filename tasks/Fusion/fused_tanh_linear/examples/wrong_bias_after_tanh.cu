// @kbx expect wrong
// Mistake: the fused epilogue in the wrong order, tanh(x W^T) + bias instead of tanh(x W^T + bias).
// Right without bias (test_case_2_no_bias), wrong wherever has_bias = 1. One kernel (a warp per
// output, lanes along k), no scratch: the output y is wrong.
//
// @kbx launch dot_tanh<<<max(1, min(cdiv(bsz * n, 8), 1048576)), 256>>>(input, weight, bias, y, bsz, k, n, has_bias)

extern "C" __global__ void dot_tanh(const float* __restrict__ x, const float* __restrict__ w,
                                    const float* __restrict__ bias, float* __restrict__ y, long long bsz, long long k,
                                    long long n, int has_bias)
{
	for (long long e = (long long)blockIdx.x * 8 + threadIdx.x / 32; e < bsz * n; e += (long long)gridDim.x * 8) {
		long long r = e / n, c = e % n;
		float s = 0.0f;
		for (long long i = threadIdx.x % 32; i < k; i += 32)
			s += x[r * k + i] * w[c * k + i];
		for (int off = 16; off > 0; off >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, off);
		if (threadIdx.x % 32 == 0)
			y[e] = tanhf(s) + (has_bias ? bias[c] : 0.0f); // BUG: the bias belongs inside tanh
	}
}
