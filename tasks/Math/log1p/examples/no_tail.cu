// @kbx expect wrong
// Mistake: tail not handled. Only whole float4 groups are processed, so the last n % 4 elements are never
// written (corner cases of 3 and 5 elements, size1, prime and the odd sizes fail).
// @kbx launch log1p_f32<<<max(1, cdiv(n, 1024)), 256>>>(x, y, n)

extern "C" __global__ void log1p_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n / 4)
		return;
	float4 a = reinterpret_cast<const float4 *>(x)[v];
	a.x = log1pf(a.x);
	a.y = log1pf(a.y);
	a.z = log1pf(a.z);
	a.w = log1pf(a.w);
	reinterpret_cast<float4 *>(y)[v] = a;
}
