// @kbx expect wrong
// Mistake: counts every exponent up from start (e = start + step * i) instead of PyTorch's two-sided split; the last exponent is then start + step * (steps - 1), not exactly end: for base -2, 0 .. 1 in 42 steps it is 1 - 2^-24 and (-2)^e is NaN instead of -2.
// @kbx launch logspace_f32<<<max(1, cdiv(n, 256)), 256>>>(y, n, start, end, base)

extern "C" __global__ void logspace_f32(float *__restrict__ y, long long n, float start, float end, float base)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	if (n == 1) {
		y[0] = (float)pow((double)base, (double)start);
		return;
	}
	float step = (end - start) / (float)(n - 1);
	y[i] = powf(base, start + step * i);
}
