// Binomial(total_count, p) counts with the draw fixed by kbx/rng.h (see the task summary): one thread per
// element; trial t uses word t % 4 of kbx_draw4(seed, (t / 4) * n + i) as a 24-bit uniform u, success when
// u < p. One Philox call serves four trials. input & other is not needed: KernelBenchX computes and
// discards it. The sigmoid for logits is 1 / (1 + expf(-l)) in f32, as torch.sigmoid on CUDA.
// Compute-bound (3 Philox-4x32-10 calls per element for 10 trials): one element per thread, grid-stride.
// Exactness: every u is a multiple of 2^-24 and every comparison is exact, so a kernel that follows
// the contract reproduces the counts bit for bit (only an f32 sigmoid that rounds differently could
// move a comparison, for one u in 2^24).

#include <kbx/rng.h>

// @kbx launch binomial_f32<<<max(1, min(cdiv(n, 256), sms * 32)), 256>>>(total_count, probs, out, n, m, use_logits, seed)

__device__ __forceinline__ unsigned int word_of(struct kbx_u4 r, int k)
{
	return k == 0 ? r.x : k == 1 ? r.y : k == 2 ? r.z : r.w;
}

extern "C" __global__ void binomial_f32(const float *__restrict__ total_count, const float *__restrict__ probs,
					float *__restrict__ out, long long n, long long m, int use_logits,
					long long seed)
{
	long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		int trials = (int)total_count[m == 1 ? 0 : i];
		float p = probs[i];
		if (use_logits)
			p = 1.0f / (1.0f + expf(-p));
		int count = 0;
		for (int t0 = 0; t0 < trials; t0 += 4) {
			struct kbx_u4 r = kbx_draw4((unsigned long long)seed, (unsigned long long)(t0 / 4) * n + i);
			int left = trials - t0 < 4 ? trials - t0 : 4;
			for (int k = 0; k < left; k++) {
				float u = (float)(word_of(r, k) >> 8) * (1.0f / 16777216.0f);
				count += u < p;
			}
		}
		out[i] = (float)count;
	}
}
