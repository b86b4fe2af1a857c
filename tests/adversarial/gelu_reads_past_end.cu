// @kbx task Activation/gelu
// @kbx expect runtime_error
// @kbx because compute-sanitizer memcheck: 1 error in the candidate, first at line 15: Invalid __global__ read
// @kbx args --sanitize memcheck
// Planted bug only a sanitizer can see: each thread also loads x[i + 1] (a stencil habit), so the
// last thread reads one element past the end of x. The value is multiplied by zero and the
// outputs are right; without a sanitizer the read lands in kbx's guard zone and passes. Under
// memcheck (no guard zones then) the read is reported on its line and the launch is stopped.
// @kbx launch gelu_peek<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)
extern "C" __global__ void gelu_peek(const float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i], next = x[i + 1];
	float g = approximate ? 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)))
			      : v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
	y[i] = g + 0.0f * (next - next);
}
