// @kbx task Activation/gelu
// @kbx expect wrong
// @kbx because case corner3_none: output 'y': 2 of 3 elements differ
// Wrong approximation: uses the tanh form for both modes, written as x * sigmoid(2u) with
// u = sqrt(2/pi) (x + 0.044715 x^3) (0.5 (1 + tanh u) = 1 / (1 + exp(-2u))), so approximate = 1 is
// right but approximate = 0 (the exact erf form) is off by up to ~5e-4: gelu(1) is 0.841192 instead
// of 0.841345, gelu(-1) -0.158808 instead of -0.158655 (tolerance ~1e-5). The very first case
// (n = 3, erf, x = -1, 0, 1) fails at -1 and 1.
// @kbx launch gelu_sigmoid<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)

extern "C" __global__ void gelu_sigmoid(const float *__restrict__ x, float *__restrict__ y, long long n,
					int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
	y[i] = v / (1.0f + expf(-2.0f * u)); /* approximate is ignored */
}
