// @kbx expect pass
// Correct alternative: one thread per output, three sequential passes over its vector (coalesced
// across threads when inner > 1, a strided walk per thread when inner = 1: slow for the perf rows
// but simple), the same f32 operations as PyTorch with p = 2 and p = 1 special-cased and powf for
// other orders. Sequential f32 sums carry ~sqrt(d) ulps, well inside 1e-5.
// @kbx launch cos_thread<<<max(1, cdiv(outer * inner, 128)), 128>>>(x1, x2, y, outer, d, inner, eps_similarity, p_norm, eps_norm)

__device__ float pnorm(const float *v, long long d, long long inner, float p)
{
	float acc = isinf(p) && p < 0.0f ? __int_as_float(0x7f800000) : 0.0f;
	for (long long k = 0; k < d; k++) {
		float x = v[k * inner], a = fabsf(x);
		if (isinf(p)) {
			if (isnan(a) || isnan(acc))
				acc = acc + a;
			else
				acc = p > 0.0f ? fmaxf(acc, a) : fminf(acc, a);
		} else if (p == 2.0f) {
			acc += __fmul_rn(x, x);
		} else if (p == 1.0f) {
			acc += a;
		} else if (p == 0.0f) {
			acc += x != 0.0f ? 1.0f : 0.0f;
		} else {
			acc += powf(a, p);
		}
	}
	if (p == 2.0f)
		return sqrtf(acc);
	if (p == 1.0f || p == 0.0f || isinf(p))
		return acc;
	return powf(acc, 1.0f / p);
}

__device__ float clamp_lo(float v, float lo)
{
	return v != v ? v : fmaxf(v, lo);
}

extern "C" __global__ void cos_thread(const float *x1, const float *x2, float *y, long long outer, long long d,
				      long long inner, float eps_similarity, float p_norm, float eps_norm)
{
	long long out = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (out >= outer * inner)
		return;
	long long o = out / inner, i = out % inner;
	const float *v1 = x1 + o * d * inner + i, *v2 = x2 + o * d * inner + i;
	float c1 = clamp_lo(pnorm(v1, d, inner, p_norm), eps_norm);
	float c2 = clamp_lo(pnorm(v2, d, inner, p_norm), eps_norm);
	float sa = 0.0f, sb = 0.0f;
	for (long long k = 0; k < d; k++) {
		float a = v1[k * inner] / c1, b = v2[k * inner] / c2;
		sa += __fmul_rn(a, a);
		sb += __fmul_rn(b, b);
	}
	float na = clamp_lo(sqrtf(sa), eps_similarity), nb = clamp_lo(sqrtf(sb), eps_similarity);
	float dot = 0.0f;
	for (long long k = 0; k < d; k++)
		dot += __fmul_rn((v1[k * inner] / c1) / na, (v2[k * inner] / c2) / nb);
	y[out] = dot;
}
