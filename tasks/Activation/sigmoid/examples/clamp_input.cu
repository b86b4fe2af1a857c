// @kbx expect wrong
// Mistake: clamps x to [-30, 30] "for stability" with fminf/fmaxf, which return the non-NaN operand: NaN inputs become sigmoid(30) = 1 instead of NaN.
// @kbx launch sigmoid_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void sigmoid_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = fminf(fmaxf(x[i], -30.0f), 30.0f);
		y[i] = 1.0f / (1.0f + expf(-v));
	}
}
