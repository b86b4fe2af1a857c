// @kbx expect wrong
// Mistake: processes whole float4 groups only; the last n % 4 elements are never written (prime and odd sizes fail).
// @kbx launch gelu_f32<<<max(1, cdiv(n, 1024)), 256>>>(x, y, n, approximate)

extern "C" __global__ void gelu_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
				   int approximate)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n / 4)
		return;
	float4 a = reinterpret_cast<const float4 *>(x)[v];
	float e[4] = {a.x, a.y, a.z, a.w};
	for (int k = 0; k < 4; k++) {
		float t = e[k];
		if (approximate)
			e[k] = 0.5f * t * (1.0f + tanhf(0.7978845608028654f * (t + 0.044715f * t * t * t)));
		else
			e[k] = t * 0.5f * (1.0f + erff(t * 0.7071067811865476f));
	}
	reinterpret_cast<float4 *>(y)[v] = make_float4(e[0], e[1], e[2], e[3]);
}
