// @kbx expect wrong
// Mistake: ignores eps (never clamps): x = 0 and 1 give -inf / +inf instead of about -13.8 / +13.8, and the
// randn cases give NaN outside [0, 1].
// @kbx launch logit_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, use_eps, eps)

extern "C" __global__ void logit_f32(const float *__restrict__ x, float *__restrict__ y, long long n, int use_eps,
				    double eps)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	y[i] = logf(v / (1.0f - v));
}
