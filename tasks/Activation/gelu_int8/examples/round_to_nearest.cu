// @kbx expect wrong
// Mistake: rounds the f32 GELU to the nearest integer (__float2int_rn) instead of truncating toward zero as .to(torch.int8) does: gelu(1) = 0.84 becomes 1 instead of 0, gelu(2) = 1.95 becomes 2 instead of 1.
// @kbx launch gelu_i8<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, approximate)

extern "C" __global__ void gelu_i8(const signed char *__restrict__ x, signed char *__restrict__ y, long long n,
				  int approximate)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = (float)x[i], r;
	if (approximate)
		r = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
	else
		r = v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));
	y[i] = (signed char)__float2int_rn(r);
}
