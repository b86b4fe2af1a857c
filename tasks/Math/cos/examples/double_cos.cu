// @kbx expect pass
// Correct alternative: cos in f64 rounded once to f32 (at least as accurate as cosf; the f32 argument is
// exact in f64, so large arguments are reduced exactly too).
// @kbx launch cos_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void cos_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)cos((double)x[i]);
}
