// @kbx task Math/softmax
// @kbx expect wrong
// @kbx because ^case corner_dim1: modified input 'x'
// Input modified: uses the input as its scratch space. One thread per slice (o, i): a pass for the
// max, a pass that overwrites x with exp(x - max) while summing it, and a pass that writes
// y = x / sum. The outputs are right (the same f32 operations as the reference, in order); the
// input is not what the caller passed any more, which the check of every 'in' buffer after the
// run must report on the very first case.
// @kbx launch softmax_inplace<<<max(1, cdiv(a * b, 256)), 256>>>(x, y, a, d, b)

#include <math_constants.h>

extern "C" __global__ void softmax_inplace(float *x, float *y, long long a, long long d, long long b)
{
	long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= a * b)
		return;
	long long o = t / b, i = t % b;
	float *xs = x + o * d * b + i;
	float *ys = y + o * d * b + i;
	float m = -CUDART_INF_F, s = 0.0f;

	for (long long k = 0; k < d; k++)
		m = fmaxf(m, xs[k * b]);
	for (long long k = 0; k < d; k++) {
		float e = expf(xs[k * b] - m);
		xs[k * b] = e; /* the input as scratch */
		s += e;
	}
	for (long long k = 0; k < d; k++)
		ys[k * b] = xs[k * b] / s;
}
