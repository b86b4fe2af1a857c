// @kbx expect wrong
// Mistake: "guards" the division and returns 0 for x == 0. torch.reciprocal(0) is +inf (and -inf for -0):
// corner_zero and the special cases fail.
// @kbx launch reciprocal_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void reciprocal_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = v == 0.0f ? 0.0f : 1.0f / v;
	}
}
