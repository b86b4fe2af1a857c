// @kbx expect wrong
// Mistake: "guards" the domain by clamping x to just above -1 so that no NaN or -inf appears. PyTorch
// returns -inf at x = -1 and NaN below it (random_standard's x < -1, special values).
// @kbx launch log1p_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void log1p_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = log1pf(fmaxf(x[i], -0.99999994f));
}
