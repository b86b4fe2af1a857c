// @kbx expect wrong
// Mistake: y = exp(x) / (1 + exp(x)); for x > 88.7 expf overflows and the result is inf / inf = NaN instead of 1.
// @kbx launch sigmoid_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void sigmoid_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float e = expf(x[i]);
		y[i] = e / (1.0f + e);
	}
}
