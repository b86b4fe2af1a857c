// @kbx expect pass
// Correct alternative: one element per thread, degrees as a division by pi / 180 (within 1 ulp of PyTorch's
// multiply; x * 180 / pi instead would overflow its intermediate x * 180 for |x| > 1.9e36, where the result is
// still finite) and the root through the correctly rounded intrinsic __fsqrt_rn.
// @kbx launch rad2deg_sqrt_f32<<<max(1, cdiv(n, 128)), 128>>>(x, deg, root, n)

extern "C" __global__ void rad2deg_sqrt_f32(const float *__restrict__ x, float *__restrict__ deg,
					   float *__restrict__ root, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float a = x[i];
	deg[i] = a / 0.0174532925199432958f;
	root[i] = __fsqrt_rn(a);
}
