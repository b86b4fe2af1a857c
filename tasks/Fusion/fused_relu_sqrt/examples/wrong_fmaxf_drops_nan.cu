// @kbx expect wrong
// Mistake: relu written as fmaxf(x, 0), which returns 0 for a NaN input (fmaxf drops NaN operands)
// where torch.relu keeps the NaN: right on finite data, wrong on the special cases. One fused
// kernel, no scratch: the output y is wrong.
//
// @kbx launch relu_sqrt<<<max(1, min(cdiv(n, 256), 65536)), 256>>>(x, y, n)

extern "C" __global__ void relu_sqrt(const float* __restrict__ x, float* __restrict__ y, long long n)
{
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
		y[i] = sqrtf(fmaxf(x[i], 0.0f)); // BUG: NaN becomes 0
}
