// @kbx task Activation/gelu
// @kbx expect wrong
// @kbx because modified input 'x'
// Planted bug: computes in place in x and copies to y. Outputs are right; the input is not.
// @kbx launch gelu_inplace<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)
extern "C" __global__ void gelu_inplace(float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	x[i] = approximate ? 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)))
			   : v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
	y[i] = x[i];
}
