// @kbx expect wrong
// Mistake: no special case for steps = 1: step = (end - start) / 0 = inf, and the only element takes the end side, end - inf * 0 = NaN, so logspace(2.5, 7, 1) gives NaN instead of 10^2.5.
// @kbx launch logspace_f32<<<max(1, cdiv(n, 256)), 256>>>(y, n, start, end, base)

extern "C" __global__ void logspace_f32(float *__restrict__ y, long long n, float start, float end, float base)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float step = (end - start) / (float)(n - 1);
	if (i < n / 2)
		y[i] = powf(base, start + step * i);
	else
		y[i] = powf(base, end - step * (n - i - 1));
}
