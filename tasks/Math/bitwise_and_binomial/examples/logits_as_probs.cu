// @kbx expect wrong
// Mistake: ignores use_logits and compares the uniforms with the raw logits (logit 0 means p = 0.5, not 0; the logits cases fail).
// @kbx launch binomial_f32<<<max(1, cdiv(n, 256)), 256>>>(total_count, probs, out, n, m, use_logits, seed)

#include <kbx/rng.h>

extern "C" __global__ void binomial_f32(const float *__restrict__ total_count, const float *__restrict__ probs,
					float *__restrict__ out, long long n, long long m, int use_logits, long long seed)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int trials = (int)total_count[m == 1 ? 0 : i];
	float p = probs[i];
	int count = 0;
	for (int t = 0; t < trials; t++) {
		struct kbx_u4 r = kbx_draw4((unsigned long long)seed, (unsigned long long)(t / 4) * n + i);
		unsigned int w = t % 4 == 0 ? r.x : t % 4 == 1 ? r.y : t % 4 == 2 ? r.z : r.w;
		count += (float)(w >> 8) * (1.0f / 16777216.0f) < p;
	}
	out[i] = (float)count;
}
