// @kbx expect wrong
// Mistake: always uses the tanh approximation, ignoring approximate = 0 (the erf form); the two differ by up to ~5e-4.
// @kbx launch gelu_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)

extern "C" __global__ void gelu_f32(const float *__restrict__ x, float *__restrict__ y, long long n,
				   int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
	y[i] = 0.5f * v * (1.0f + tanhf(inner));
}
