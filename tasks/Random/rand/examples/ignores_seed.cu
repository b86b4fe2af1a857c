// @kbx expect wrong
// Mistake: never uses the seed (draws from stream 0 whatever seed is given), so two seeds give the same
// output; a fixed manual_seed must select the stream.
// @kbx launch rand_f32<<<max(1, cdiv(n, 256)), 256>>>(y, n, seed)

#include <kbx/rng.h>

extern "C" __global__ void rand_f32(float *__restrict__ y, long long n, long long seed)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = kbx_uniform(0ull, (unsigned long long)i);
}
