// @kbx expect pass
// Correct alternative: erf in f64 rounded once to f32 (within half an ulp of the true value).
// @kbx launch erf_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void erf_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)erf((double)x[i]);
}
