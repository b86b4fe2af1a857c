// @kbx expect pass
// Correct alternative: round to nearest (rintf), then step down by one where that went above x. rintf keeps
// NaN, +-inf and -0; a rounded value above x is never an integer >= 2^23, so r - 1 is exact.
// @kbx launch floor_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void floor_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float r = rintf(v);
	y[i] = r > v ? r - 1.0f : r;
}
