// @kbx task Activation/gelu
// @kbx expect wrong
// @kbx because left [0-9]+ of [0-9]+ elements of 'y' unwritten
// Planted bug: the last partial block is dropped (n / 256 blocks instead of cdiv), so the tail
// of y is never written. The poisoned output must show it.
// @kbx launch gelu_short<<<max(1, n / 256), 256>>>(x, y, n, approximate)
extern "C" __global__ void gelu_short(const float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	y[i] = approximate ? 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)))
			   : v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
}
