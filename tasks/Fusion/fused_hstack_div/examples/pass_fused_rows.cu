// @kbx expect pass
// Correct alternative: one fused kernel, no intermediate: blockIdx.y walks the rows, threads walk
// the row's k1 + k2 outputs and read a or b directly; the Python-number divisor goes through its
// f32 reciprocal exactly as PyTorch does (the floor mode with fmod).
//
// @kbx launch hstack_div_rows<<<dim3(max(1, min(cdiv(k1 + k2, 256), 4096)), max(1, min(r, 65535))), 256>>>(a, b, divisor, dvec, y, r, k1, k2, dmode, rounding)

__device__ float div1(float x, float d, bool recip, int rounding)
{
	const float inv = 1.0f / d;
	float q = recip ? __fmul_rn(x, inv) : __fdiv_rn(x, d);
	if (rounding == 0)
		return q;
	if (rounding == 1)
		return truncf(q);
	if (d == 0.0f)
		return q;
	float mod = fmodf(x, d);
	float t = recip ? __fmul_rn(x - mod, inv) : __fdiv_rn(x - mod, d);
	if (mod != 0.0f && (d < 0.0f) != (mod < 0.0f))
		t -= 1.0f;
	if (t == 0.0f)
		return copysignf(0.0f, q);
	float fl = floorf(t);
	return t - fl > 0.5f ? fl + 1.0f : fl;
}

extern "C" __global__ void hstack_div_rows(const float* __restrict__ a, const float* __restrict__ b, float divisor,
                                           const float* __restrict__ dvec, float* __restrict__ y, long long r,
                                           long long k1, long long k2, int dmode, int rounding)
{
	const long long K = k1 + k2;
	for (long long i = blockIdx.y; i < r; i += gridDim.y)
		for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < K; j += (long long)gridDim.x * blockDim.x) {
			float x = j < k1 ? a[i * k1 + j] : b[i * k2 + j - k1];
			y[i * K + j] = div1(x, dmode ? dvec[j] : divisor, dmode == 0, rounding);
		}
}
