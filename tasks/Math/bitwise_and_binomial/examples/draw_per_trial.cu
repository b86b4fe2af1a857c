// @kbx expect pass
// Correct alternative: one Philox call per trial (four times the work, same numbers): trial t takes word
// t % 4 of the draw at counter (t / 4) * n + i, compared as an integer: u < p with u = w24 * 2^-24 is
// w24 < p * 2^24 (exact in f32), i.e. w24 < ceil(p * 2^24).
// @kbx launch binomial_f32<<<max(1, cdiv(n, 128)), 128>>>(total_count, probs, out, n, m, use_logits, seed)

#include <kbx/rng.h>

extern "C" __global__ void binomial_f32(const float *__restrict__ total_count, const float *__restrict__ probs,
					float *__restrict__ out, long long n, long long m, int use_logits, long long seed)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int trials = (int)total_count[m == 1 ? 0 : i];
	float p = probs[i];
	if (use_logits)
		p = 1.0f / (1.0f + expf(-p));
	float lim = ceilf(p * 16777216.0f); /* p * 2^24 is exact; u < p  <=>  w24 < lim */
	float count = 0.0f;
	for (int t = 0; t < trials; t++) {
		struct kbx_u4 r = kbx_draw4((unsigned long long)seed, (unsigned long long)(t / 4) * n + i);
		unsigned int w = t % 4 == 0 ? r.x : t % 4 == 1 ? r.y : t % 4 == 2 ? r.z : r.w;
		if ((float)(w >> 8) < lim)
			count += 1.0f;
	}
	out[i] = count;
}
