// @kbx expect wrong
// Mistake: processes whole float4 groups only; the last n % 4 elements are never written (corner cases of 3, prime and odd sizes fail).
// @kbx launch abs_f32<<<max(1, cdiv(n, 1024)), 256>>>(x, y, n)

extern "C" __global__ void abs_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n / 4)
		return;
	float4 a = reinterpret_cast<const float4 *>(x)[v];
	a.x = fabsf(a.x);
	a.y = fabsf(a.y);
	a.z = fabsf(a.z);
	a.w = fabsf(a.w);
	reinterpret_cast<float4 *>(y)[v] = a;
}
