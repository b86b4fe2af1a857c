// @kbx expect pass
// Correct alternative: CUDA's double-precision lgamma rounded once to f32; same poles (+inf) and infinities.
// @kbx launch gammaln_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

extern "C" __global__ void gammaln_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)lgamma((double)x[i]);
}
