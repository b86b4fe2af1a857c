// @kbx expect wrong
// Mistake: the textbook formula (exp(2x) - 1) / (exp(2x) + 1); for x > 44.4 exp(2x) overflows and the result is inf / inf = NaN instead of 1 (wide-range and special cases fail).
// @kbx launch tanh_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void tanh_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float e = expf(2.0f * x[i]);
		y[i] = (e - 1.0f) / (e + 1.0f);
	}
}
