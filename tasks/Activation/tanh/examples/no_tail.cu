// @kbx expect wrong
// Mistake: processes whole float4 groups only; the last n % 4 elements are never written (sizes 1, 3, prime and odd fail).
// @kbx launch tanh_f32<<<max(1, cdiv(n, 1024)), 256>>>(x, y, n)

extern "C" __global__ void tanh_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n / 4)
		return;
	float4 a = reinterpret_cast<const float4 *>(x)[v];
	a.x = tanhf(a.x);
	a.y = tanhf(a.y);
	a.z = tanhf(a.z);
	a.w = tanhf(a.w);
	reinterpret_cast<float4 *>(y)[v] = a;
}
