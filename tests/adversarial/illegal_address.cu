// @kbx task Activation/gelu
// @kbx expect runtime_error
// @kbx because ILLEGAL_ADDRESS|illegal
// Planted bug: dereferences a wild pointer. The context is poisoned; the worker must report the
// launch and the next run must get a fresh worker.
// @kbx launch gelu_wild<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)
extern "C" __global__ void gelu_wild(const float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float *wild = (float *)(0x10ULL << 40);
	y[i] = x[i] + wild[i];
}
