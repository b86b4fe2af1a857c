// @kbx task Activation/gelu
// @kbx expect abi_error
// @kbx because parameter 3 \('n'\) is 4 bytes but the launch passes 8 bytes
// Planted bug: the kernel takes `int n` but the task's n is i64, so the launch passes 8 bytes
// where the kernel reads 4. cuFuncGetParamInfo must catch it before anything runs.
// @kbx launch gelu_int_n<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)
extern "C" __global__ void gelu_int_n(const float *x, float *y, int n, int approximate)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
