// @kbx expect wrong
// Mistake: the concatenation stacks the inputs one after the other in memory (cat along dim 0, a
// vstack of the flattened tensors) instead of side by side within each row: right for 1-D tensors
// (r = 1, the perf layout), wrong for every 2-D case. Same stage names as the reference: the
// first wrong stage reported should be `hstack`.
//
// @kbx scratch hstack f32 [r, k1 + k2]
// @kbx launch stack_flat<<<max(1, min(cdiv(r * (k1 + k2), 256), 65536)), 256>>>(a, b, hstack, r, k1, k2)
// @kbx launch div_scalar_only<<<max(1, min(cdiv(r * (k1 + k2), 256), 65536)), 256>>>(hstack, divisor, dvec, y, i64(r * (k1 + k2)), i64(k1 + k2), dmode, rounding)

extern "C" __global__ void stack_flat(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ x,
                                      long long r, long long k1, long long k2)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < r * (k1 + k2);
	     e += (long long)gridDim.x * blockDim.x)
		x[e] = e < r * k1 ? a[e] : b[e - r * k1];
}

__device__ float floordiv(float x, float d, float q_true)
{
	if (d == 0.0f)
		return q_true;
	float mod = fmodf(x, d);
	float q = (x - mod) / d;
	if (mod != 0.0f && (d < 0.0f) != (mod < 0.0f))
		q -= 1.0f;
	if (q == 0.0f)
		return copysignf(0.0f, q_true);
	float fl = floorf(q);
	return q - fl > 0.5f ? fl + 1.0f : fl;
}

extern "C" __global__ void div_scalar_only(const float* __restrict__ x, float divisor, const float* __restrict__ dvec,
                                           float* __restrict__ y, long long n, long long K, int dmode, int rounding)
{
	for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (long long)gridDim.x * blockDim.x) {
		float d = dmode ? dvec[e % K] : divisor;
		float q = dmode ? x[e] / d : x[e] * (1.0f / d);
		y[e] = rounding == 0 ? q : rounding == 1 ? truncf(q) : floordiv(x[e], d, q);
	}
}
