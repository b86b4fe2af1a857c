// @kbx expect wrong
// Mistake: clamps with fmaxf / fminf alone. They return the other operand for NaN, so a NaN input becomes
// eps instead of staying NaN as torch.clamp keeps it (special_values_eps fails).
// @kbx launch logit_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, use_eps, eps)

extern "C" __global__ void logit_f32(const float *__restrict__ x, float *__restrict__ y, long long n, int use_eps,
				    double eps)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	if (use_eps)
		v = fminf(fmaxf(v, (float)eps), (float)(1.0 - eps));
	y[i] = logf(v / (1.0f - v));
}
