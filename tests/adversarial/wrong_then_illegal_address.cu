// @kbx task Activation/gelu
// @kbx expect wrong
// @kbx because ^case corner3_none: .*; then case [^ ]+: .*(ILLEGAL_ADDRESS|illegal)
// Planted bugs: small inputs are copied through unchanged (wrong from the first case on), and a
// large input reads through a wild pointer, which poisons the context. The first failure, the
// wrong corner case, must keep the verdict and lead the message; the fault is reported after it.
// @kbx launch gelu_copy_or_fault<<<max(1, cdiv(n, 128)), 128>>>(x, y, n, approximate)
extern "C" __global__ void gelu_copy_or_fault(const float *x, float *y, long long n, int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	(void)approximate;
	if (i >= n)
		return;
	if (n < 100000) {
		y[i] = x[i];
		return;
	}
	const volatile float *far = (const volatile float *)(0x10ULL << 40);
	y[i] = far[i] * x[i];
}
