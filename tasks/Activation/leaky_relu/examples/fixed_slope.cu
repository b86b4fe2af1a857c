// @kbx expect wrong
// Mistake: hard-codes PyTorch's default slope 0.01 and ignores the negative_slope argument (the slope 0.1 cases and the other slopes fail).
// @kbx launch leaky_relu_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, negative_slope)

extern "C" __global__ void leaky_relu_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
					  float negative_slope)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v > 0.0f ? v : v * 0.01f;
	}
}
