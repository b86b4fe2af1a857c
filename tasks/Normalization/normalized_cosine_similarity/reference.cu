// normalize(x1), normalize(x2) along d, then their cosine similarity along d, for the view
// x[outer, d, inner] -> y[outer, inner]; f32 throughout, as PyTorch evaluates it.
//
// One warp per output (o, i), outputs strided over the grid's warps. Element k of the vector is
// x[(o * d + k) * inner + i]: with inner = 1 the lanes read consecutive floats (16-byte loads when d
// is a multiple of 4, so that every row starts aligned), otherwise a strided walk. Three passes over
// the vector, each reduced with an xor-shuffle tree so that every lane has the result (the second and
// third passes re-read the row from L1 / L2; DRAM sees it once):
//   1. r1 = ||x1||_p, r2 = ||x2||_p (f32 sums of f32 terms, as PyTorch's norm reduction);
//      c = clamp_min(r, eps_norm), NaN kept.
//   2. a_k = x1_k / c1, b_k = x2_k / c2 (F.normalize's division), na = ||a||_2, nb = ||b||_2;
//      clamp_min(., eps_similarity).
//   3. y = sum_k (a_k / na) * (b_k / nb) (cosine_similarity's normalise-then-sum form).
// Expected accuracy: only the summation order differs from PyTorch; sums of 128..4099 terms in f32
// carry ~1e-7 relative error on the norms and ~1e-8 absolute on y, far inside 1e-5.

// @kbx launch ncs_rows<<<max(1, min(cdiv(outer * inner, 8), 8192)), 256>>>(x1, x2, y, outer, d, inner, eps_similarity, p_norm, eps_norm)

#define NORM_SUM 0
#define NORM_MAX 1
#define NORM_MIN 2

__device__ __forceinline__ int norm_kind(float p)
{
	if (isinf(p))
		return p > 0.0f ? NORM_MAX : NORM_MIN;
	return NORM_SUM;
}

__device__ __forceinline__ float norm_identity(int kind)
{
	return kind == NORM_MIN ? __int_as_float(0x7f800000) : 0.0f;
}

__device__ __forceinline__ float norm_term(float v, float p)
{
	float a = fabsf(v);
	if (p == 2.0f)
		return __fmul_rn(v, v);
	if (p == 1.0f || isinf(p))
		return a;
	if (p == 0.0f)
		return v != 0.0f ? 1.0f : 0.0f;
	return powf(a, p);
}

__device__ __forceinline__ float norm_combine(float a, float b, int kind)
{
	if (kind == NORM_SUM)
		return a + b;
	if (isnan(a) || isnan(b))
		return a + b;
	return kind == NORM_MAX ? fmaxf(a, b) : fminf(a, b);
}

__device__ __forceinline__ float norm_root(float acc, float p)
{
	if (p == 2.0f)
		return sqrtf(acc);
	if (p == 1.0f || p == 0.0f || isinf(p))
		return acc;
	return powf(acc, 1.0f / p);
}

__device__ __forceinline__ float warp_all(float v, int kind)
{
	for (int o = 16; o > 0; o >>= 1)
		v = norm_combine(v, __shfl_xor_sync(0xffffffffu, v, o), kind);
	return v;
}

/* clamp_min that keeps NaN */
__device__ __forceinline__ float clamp_min_nan(float v, float lo)
{
	return isnan(v) ? v : fmaxf(v, lo);
}

extern "C" __global__ void __launch_bounds__(256)
ncs_rows(const float *__restrict__ x1, const float *__restrict__ x2, float *__restrict__ y, long long outer,
	 long long d, long long inner, float eps_similarity, float p_norm, float eps_norm)
{
	const int lane = threadIdx.x & 31;
	const int kind = norm_kind(p_norm);
	const long long outputs = outer * inner;
	const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
	const bool vec = inner == 1 && (d & 3) == 0;

	for (long long out = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); out < outputs;
	     out += warps) {
		const long long o = out / inner, i = out - o * inner;
		const float *p1 = x1 + o * d * inner + i;
		const float *p2 = x2 + o * d * inner + i;

		/* 1. p-norms of x1 and x2, clamped */
		float s1 = norm_identity(kind), s2 = norm_identity(kind);
		if (vec) {
			const float4 *q1 = reinterpret_cast<const float4 *>(p1);
			const float4 *q2 = reinterpret_cast<const float4 *>(p2);
			for (long long k = lane; k < d / 4; k += 32) {
				float4 u = q1[k], v = q2[k];
				s1 = norm_combine(s1, norm_term(u.x, p_norm), kind);
				s1 = norm_combine(s1, norm_term(u.y, p_norm), kind);
				s1 = norm_combine(s1, norm_term(u.z, p_norm), kind);
				s1 = norm_combine(s1, norm_term(u.w, p_norm), kind);
				s2 = norm_combine(s2, norm_term(v.x, p_norm), kind);
				s2 = norm_combine(s2, norm_term(v.y, p_norm), kind);
				s2 = norm_combine(s2, norm_term(v.z, p_norm), kind);
				s2 = norm_combine(s2, norm_term(v.w, p_norm), kind);
			}
		} else {
			for (long long k = lane; k < d; k += 32) {
				s1 = norm_combine(s1, norm_term(p1[k * inner], p_norm), kind);
				s2 = norm_combine(s2, norm_term(p2[k * inner], p_norm), kind);
			}
		}
		const float c1 = clamp_min_nan(norm_root(warp_all(s1, kind), p_norm), eps_norm);
		const float c2 = clamp_min_nan(norm_root(warp_all(s2, kind), p_norm), eps_norm);

		/* 2. 2-norms of the normalised vectors, clamped */
		float sa = 0.0f, sb = 0.0f;
		for (long long k = lane; k < d; k += 32) {
			float a = p1[k * inner] / c1, b = p2[k * inner] / c2;
			sa += __fmul_rn(a, a);
			sb += __fmul_rn(b, b);
		}
		const float na = clamp_min_nan(sqrtf(warp_all(sa, NORM_SUM)), eps_similarity);
		const float nb = clamp_min_nan(sqrtf(warp_all(sb, NORM_SUM)), eps_similarity);

		/* 3. sum of the products of the twice-normalised entries */
		float dot = 0.0f;
		for (long long k = lane; k < d; k += 32) {
			float a = (p1[k * inner] / c1) / na, b = (p2[k * inner] / c2) / nb;
			dot += __fmul_rn(a, b);
		}
		dot = warp_all(dot, NORM_SUM);
		if (lane == 0)
			y[out] = dot;
	}
}
