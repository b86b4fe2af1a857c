// @kbx expect wrong
// Mistake: the threshold branch dropped ("softplus is linear up there anyway"): for lin above
// ~88 / beta, exp overflows and y becomes inf instead of lin. (Between threshold and 88 the formula
// is within an ulp of lin, so the test's own cases pass.) Fails wide_lin_overflow, where lin
// reaches ~200. Same stages and scratch names as the reference: `linear` matches,
// the first wrong buffer is the output y.
//
// @kbx scratch linear f32 [bsz, n]
// @kbx launch linear_warp<<<max(1, min(cdiv(bsz * n, 8), 1048576)), 256>>>(input, weight, bias, linear, bsz, k, n, has_bias)
// @kbx launch softplus<<<max(1, min(cdiv(bsz * n, 256), 65536)), 256>>>(linear, y, i64(bsz * n), beta, threshold)

extern "C" __global__ void __launch_bounds__(256)
linear_warp(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ bias,
            float* __restrict__ out, long long bsz, long long k, long long n, int has_bias)
{
	const int lane = threadIdx.x & 31;
	const long long warps = (long long)gridDim.x * 8;
	for (long long e = (long long)blockIdx.x * 8 + (threadIdx.x >> 5); e < bsz * n; e += warps) {
		const long long b = e / n, o = e % n;
		const float* xr = x + b * k;
		const float* wr = w + o * k;
		double acc = 0.0;
		if ((k & 3) == 0) {
			const float4* x4 = reinterpret_cast<const float4*>(xr);
			const float4* w4 = reinterpret_cast<const float4*>(wr);
			for (long long i = lane; i < k / 4; i += 32) {
				const float4 a = x4[i], c = w4[i];
				acc += (double)a.x * c.x + (double)a.y * c.y + (double)a.z * c.z + (double)a.w * c.w;
			}
		} else {
			for (long long i = lane; i < k; i += 32)
				acc += (double)xr[i] * wr[i];
		}
		for (int off = 16; off > 0; off >>= 1)
			acc += __shfl_xor_sync(0xffffffffu, acc, off);
		if (lane == 0)
			out[e] = has_bias ? (float)(acc + (double)bias[o]) : (float)acc;
	}
}

// y = where(lin > threshold, lin, (1 / beta) * log(1 + exp(beta * lin))), op by op in f32 as eager
// PyTorch: beta * lin, exp, 1 + ., log, times the f32 scalar 1 / beta (no FMA contraction).
extern "C" __global__ void __launch_bounds__(256)
softplus(const float* __restrict__ lin, float* __restrict__ y, long long total, float beta, float threshold)
{
	const float inv_beta = (float)(1.0 / (double)beta);
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
	     i += (long long)gridDim.x * blockDim.x) {
		const float v = lin[i];
		// BUG: no threshold: the softplus formula everywhere. exp(beta * lin) overflows to inf above
		// ~88 / beta, so large outputs come out inf where the function passes lin through
		y[i] = __fmul_rn(inv_beta, logf(__fadd_rn(1.0f, expf(__fmul_rn(beta, v)))));
	}
}
