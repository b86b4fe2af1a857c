// @kbx expect wrong
// Mistake: skips both F.normalize calls because cosine similarity is scale invariant, and computes
// x1 . x2 / max(||x1|| ||x2||, eps_similarity). Equal for ordinary rows, but the clamps make the
// normalisations matter: clamped_eps (eps_norm = 1, eps_similarity = 0.5, rows of norm ~0.1)
// comes out ~20x too large, and the f64 sums miss the f32 overflow row of special (1e20: PyTorch's
// f32 2-norm is inf, so its output is 0, not 0.5).
// @kbx launch plain_cosine<<<max(1, cdiv(outer * inner, 128)), 128>>>(x1, x2, y, outer, d, inner, eps_similarity, p_norm, eps_norm)

extern "C" __global__ void plain_cosine(const float *x1, const float *x2, float *y, long long outer, long long d,
					long long inner, float eps_similarity, float p_norm, float eps_norm)
{
	long long out = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (out >= outer * inner)
		return;
	long long o = out / inner, i = out % inner;
	double dot = 0.0, n1 = 0.0, n2 = 0.0;
	for (long long k = 0; k < d; k++) {
		double a = x1[(o * d + k) * inner + i], b = x2[(o * d + k) * inner + i];
		dot += a * b;
		n1 += a * a;
		n2 += b * b;
	}
	y[out] = (float)(dot / fmax(sqrt(n1) * sqrt(n2), (double)eps_similarity));
}
