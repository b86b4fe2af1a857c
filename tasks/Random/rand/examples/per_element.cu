// @kbx expect pass
// Correct alternative: one Philox call per element, y[i] = kbx_uniform(seed, i) (a different stream
// layout from the reference's four-words-per-call; the distribution verifier accepts any valid stream).
// @kbx launch rand_f32<<<max(1, cdiv(n, 256)), 256>>>(y, n, seed)

#include <kbx/rng.h>

extern "C" __global__ void rand_f32(float *__restrict__ y, long long n, long long seed)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = kbx_uniform((unsigned long long)seed, (unsigned long long)i);
}
