// @kbx expect pass
// Correct alternative: one element per thread, logit as log(x) - log1p(-x) after the same NaN-keeping clamp.
// Within ~1e-7 absolute of log(x / (1 - x)) (1 - x is exact near 1, where it matters), and the same
// NaN / inf results at 0, 1, outside [0, 1] and for infinite inputs.
// @kbx launch logit_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n, use_eps, eps)

extern "C" __global__ void logit_f32(const float *__restrict__ x, float *__restrict__ y, long long n, int use_eps,
				    double eps)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	if (use_eps && v == v)
		v = v < (float)eps ? (float)eps : (v > (float)(1.0 - eps) ? (float)(1.0 - eps) : v);
	y[i] = logf(v) - log1pf(-v);
}
