// @kbx expect wrong
// Mistake: mixes the SM clock into the seed ("fresh randomness on every call"), so two calls with
// the same seed give different outputs: torch.manual_seed(s) followed by torch.rand must repeat.
// Each value is still a uniform draw, so range, mean, variance and the KS test all pass; only the
// repeat with the same seed tells it apart.
// @kbx launch rand_clocked<<<max(1, cdiv(n, 256)), 256>>>(y, n, seed)

#include <kbx/rng.h>

extern "C" __global__ void rand_clocked(float *__restrict__ y, long long n, long long seed)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	__shared__ unsigned long long salt;

	if (threadIdx.x == 0)
		salt = (unsigned long long)clock64() * 0x9E3779B97F4A7C15ULL;
	__syncthreads();
	if (i < n)
		y[i] = kbx_uniform((unsigned long long)seed ^ salt, (unsigned long long)i);
}
