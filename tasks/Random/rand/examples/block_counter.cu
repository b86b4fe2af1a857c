// @kbx expect wrong
// Mistake: the Philox counter is the block index instead of the element index, so all 256 elements of a
// block get the same value; the values are not independent and the KS test rejects them.
// @kbx launch rand_f32<<<max(1, cdiv(n, 256)), 256>>>(y, n, seed)

#include <kbx/rng.h>

extern "C" __global__ void rand_f32(float *__restrict__ y, long long n, long long seed)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = kbx_uniform((unsigned long long)seed, (unsigned long long)blockIdx.x);
}
