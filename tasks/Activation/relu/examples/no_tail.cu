// @kbx expect wrong
// Mistake: processes whole float4 groups only; the last n % 4 elements are never written (sizes 1, 3, prime and odd fail).
// @kbx launch relu_f32<<<max(1, cdiv(n, 1024)), 256>>>(x, y, n)

extern "C" __global__ void relu_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n / 4)
		return;
	float4 a = reinterpret_cast<const float4 *>(x)[v];
	a.x = a.x != a.x ? a.x : fmaxf(a.x, 0.0f);
	a.y = a.y != a.y ? a.y : fmaxf(a.y, 0.0f);
	a.z = a.z != a.z ? a.z : fmaxf(a.z, 0.0f);
	a.w = a.w != a.w ? a.w : fmaxf(a.w, 0.0f);
	reinterpret_cast<float4 *>(y)[v] = a;
}
