// @kbx task Activation/gelu
// @kbx expect timeout
// @kbx because ran past its 3 s limit
// @kbx args --launch-timeout 3
// Planted bug: never returns (a spin on a value nothing changes). kbx must kill the worker.
// @kbx launch gelu_hang<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)
extern "C" __global__ void gelu_hang(const float *x, float *y, long long n, int approximate)
{
	volatile float *v = (volatile float *)y;
	while (v[0] == v[0] || v[0] != v[0])
		;
}
