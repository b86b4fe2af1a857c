// @kbx expect pass
// Correct alternative: one fused pass, no intermediates, computed as fmaf(input, other_mul, -t2)
// (a single rounding of the product and difference, where PyTorch rounds twice: at most an ulp of
// the product apart, inside 1e-5 on the task's values).
//
// @kbx launch mul_sub_fma<<<max(1, min(cdiv(r * c, 512), 65536)), 256>>>(input, other_mul, other_sub, y, i64(r * c), c, mr, sr, mul_mode, sub_mode, mul_value, sub_value, alpha)

extern "C" __global__ void mul_sub_fma(const float* __restrict__ x, const float* __restrict__ om,
                                       const float* __restrict__ os, float* __restrict__ y, long long n, long long c,
                                       long long mr, long long sr, int mul_mode, int sub_mode, double mul_value,
                                       double sub_value, double alpha)
{
	const float mv = (float)mul_value, af = (float)alpha, number = (float)(alpha * sub_value);
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (long long)gridDim.x * blockDim.x) {
		float m = mul_mode ? mv : om[mr == 1 ? e % c : e];
		float t2 = sub_mode ? number : af * os[sr == 1 ? e % c : e];
		y[e] = fmaf(x[e], m, -t2);
	}
}
