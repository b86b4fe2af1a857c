// @kbx expect wrong
// Mistake: off by one in the spacing, step = (end - start) / steps instead of / (steps - 1), so the exponents stop one step short of end (test_case_1 gives 10^1, 10^1.4, ... 10^2.6 instead of 10^1 ... 10^3).
// @kbx launch logspace_f32<<<max(1, cdiv(n, 256)), 256>>>(y, n, start, end, base)

extern "C" __global__ void logspace_f32(float *__restrict__ y, long long n, float start, float end, float base)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float step = (end - start) / (float)n;
	y[i] = powf(base, start + step * i);
}
