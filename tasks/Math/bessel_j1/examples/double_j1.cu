// @kbx expect pass
// Correct alternative: CUDA's double-precision j1 (absolute error ~1e-15) rounded once; PyTorch's f32 result
// is within 0.04 of the tolerance of the true J1. Only the infinities need PyTorch's rule (NaN, where
// j1 returns the limit 0).
// @kbx launch bessel_j1_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

extern "C" __global__ void bessel_j1_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	y[i] = isinf(v) ? __int_as_float(0x7fc00000) : (float)j1((double)v);
}
