// @kbx expect wrong
// Mistake: alpha applied to the difference, alpha * (input - other), instead of to other alone
// (input - alpha * other). Right when alpha = 1 (test_case_1, test_case_3, the perf workload),
// wrong for alpha = 0.5 (test_case_2, test_case_4, the random draws) and the other alphas. One
// fused kernel, no scratch: the output y is wrong.
//
// @kbx launch sub_gelu<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(input, other, y, n, alpha, approximate)

extern "C" __global__ void sub_gelu(const float* __restrict__ input, const float* __restrict__ other,
                                    float* __restrict__ y, long long n, float alpha, int approximate)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		float r = alpha * (input[i] - other[i]); // BUG: input - alpha * other
		y[i] = approximate ? 0.5f * r * (1.0f + tanhf(0.7978846f * (r + 0.044715f * r * r * r)))
		                   : r * erff(r / 1.4142135f) * 0.5f;
	}
}
