// @kbx expect wrong
// Mistake: tie-breaking. The per-thread scan uses `v >= best`, so the last of equal maxima wins
// within a thread; PyTorch returns the first (the ties cases and f16 randn / uniform draws have many
// equal maxima).
// @kbx launch argmax_thread<<<max(1, cdiv(a * d, 128)), 128>>>(x, y, a, c, d)

#include <cuda_fp16.h>

extern "C" __global__ void argmax_thread(const __half *__restrict__ x, long long *__restrict__ y, long long a,
					 long long c, long long d)
{
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= a * d)
		return;
	long long i = o / d, l = o % d;
	const __half *col = x + i * c * d + l;
	float best = __half2float(col[0]);
	long long bi = 0;
	for (long long k = 1; k < c && best == best; k++) {
		float v = __half2float(col[k * d]);
		if (v >= best || v != v) {
			best = v;
			bi = k;
		}
	}
	y[o] = bi;
}
