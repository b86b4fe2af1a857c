// @kbx expect pass
// Correct alternative: exp in f64, rounded to f32 (which is where it overflows to inf, as torch.exp does),
// then sqrtf; one element per thread.
// @kbx launch exp_sqrt_f32<<<max(1, cdiv(n, 128)), 128>>>(x, y, n)

extern "C" __global__ void exp_sqrt_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float e = (float)exp((double)x[i]);
	y[i] = sqrtf(e);
}
