// @kbx task Activation/gelu
// @kbx expect wrong
// @kbx because wrote outside buffer 'y' \(guard zone past the end
// Planted bug: correct values, plus a write one element past the end of y (a classic
// "<=" bound). The guard zone after y must catch it.
// @kbx launch gelu_oob<<<max(1, cdiv(n + 1, 256)), 256>>>(x, y, n, approximate)
extern "C" __global__ void gelu_oob(const float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i > n)
		return;
	float v = i < n ? x[i] : 0.0f;
	y[i] = approximate ? 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)))
			   : v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
}
