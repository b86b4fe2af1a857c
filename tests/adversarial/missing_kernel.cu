// @kbx task Activation/gelu
// @kbx expect abi_error
// @kbx because defines no extern "C" __global__ function
// Planted bug: the launch line names a kernel the source does not define with extern "C"
// (C++ name mangling hides it).
// @kbx launch gelu_mangled<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)
__global__ void gelu_mangled(const float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
