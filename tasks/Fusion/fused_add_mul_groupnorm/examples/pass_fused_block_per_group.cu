// @kbx expect pass
// Correct alternative: everything in one kernel, one 512-thread block per (sample, group), so the
// group statistics never cross a block boundary. m = (input1 + input2) * input2 is recomputed from
// the inputs on each of three passes (mean, centred variance, output) instead of being stored;
// both statistics are f32 sums of per-thread f32 partials (two-pass, so no cancellation).
// No scratch buffers.
// m is rounded as eager PyTorch rounds it: __fadd_rn, then __fmul_rn. Written as (x1 + b) * b and
// inlined into `m - mean` or `s + m`, NVRTC (fmad on by default) contracts the product into an fma
// and uses the unrounded product: every pass then sees m with a different rounding error, and a
// group whose variance is far below eps magnifies it by rstd ~ 1 / sqrt(eps) (size_1: m - mean =
// 1.5e-7 instead of 0, y off by 5.8e-5).
//
// @kbx launch add_mul_gn<<<max(1, n * groups), 512>>>(input1, input2, weight, bias, y, n, c, i64(h * w), w, n2, c2, h2, w2, groups, eps)

static __device__ __forceinline__ float m_at(const float* x1, const float* x2, long long in, long long ic, long long p,
                                             long long c, long long hw, long long w, long long n2, long long c2,
                                             long long h2, long long w2)
{
	long long ih = p / w, iw = p % w;
	long long j = (((n2 == 1 ? 0 : in) * c2 + (c2 == 1 ? 0 : ic)) * h2 + (h2 == 1 ? 0 : ih)) * w2 + (w2 == 1 ? 0 : iw);
	float b = x2[j];
	return __fmul_rn(__fadd_rn(x1[(in * c + ic) * hw + p], b), b);
}

static __device__ float block_sum(float v, float* sh)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		sh[threadIdx.x >> 5] = v;
	__syncthreads();
	float r = 0.0f;
	for (int i = 0; i < (int)(blockDim.x >> 5); i++)
		r += sh[i];
	__syncthreads();
	return r;
}

extern "C" __global__ void __launch_bounds__(512)
add_mul_gn(const float* __restrict__ x1, const float* __restrict__ x2, const float* __restrict__ weight,
           const float* __restrict__ bias, float* __restrict__ y, long long n, long long c, long long hw, long long w,
           long long n2, long long c2, long long h2, long long w2, long long groups, float eps)
{
	__shared__ float sh[32];
	const long long g = blockIdx.x;
	if (g >= n * groups)
		return;
	const long long in = g / groups, cpg = c / groups, ch0 = (g % groups) * cpg;
	const long long cnt = cpg * hw;
	float s = 0.0f;
	for (long long k = threadIdx.x; k < cnt; k += blockDim.x)
		s += m_at(x1, x2, in, ch0 + k / hw, k % hw, c, hw, w, n2, c2, h2, w2);
	const float mean = block_sum(s, sh) / (float)cnt;
	float q = 0.0f;
	for (long long k = threadIdx.x; k < cnt; k += blockDim.x) {
		float d = m_at(x1, x2, in, ch0 + k / hw, k % hw, c, hw, w, n2, c2, h2, w2) - mean;
		q += d * d;
	}
	const float rstd = rsqrtf(block_sum(q, sh) / (float)cnt + eps);
	for (long long k = threadIdx.x; k < cnt; k += blockDim.x) {
		const long long ic = ch0 + k / hw, p = k % hw;
		float v = m_at(x1, x2, in, ic, p, c, hw, w, n2, c2, h2, w2);
		y[(in * c + ic) * hw + p] = (v - mean) * rstd * weight[ic] + bias[ic];
	}
}
