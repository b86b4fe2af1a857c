// fused_softplus_linear reference: the two stages of the KernelBenchX function, each into its own buffer.
//   stage `linear`   (F.linear): linear[b, o] = sum_k input[b, k] * weight[o, k] + bias[o]
//   stage `softplus` (the explicit formula and torch.where): y = lin > threshold ? lin :
//                    (1 / beta) * log(1 + exp(beta * lin)), every operation rounded to f32
// Writing `linear` out and reading it back is one extra (small) pass: the price of a reference
// whose stages can be diffed.
//
// linear: one warp per output (b, o) (grid-stride), lanes along k, float4 loads when k % 4 == 0
// (rows then stay 16-byte aligned): the perf workload is a GEMV (bsz = 1, a 4 GiB weight at the
// largest row), memory bound, and each weight row is read once, coalesced. Products are summed in
// f64 and rounded once (exact to f32 rounding; f64 adds no time to a memory-bound GEMV).
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
		const float sp = __fmul_rn(inv_beta, logf(__fadd_rn(1.0f, expf(__fmul_rn(beta, v)))));
		y[i] = v > threshold ? v : sp;
	}
}
