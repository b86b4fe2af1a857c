// @kbx expect pass
// Correct alternative: one element per thread, log1p from logf through Kahan's correction. With u = 1 + x
// rounded and d = u - 1 (exact), log(u) * (x / d) cancels the rounding error of 1 + x; when d == x the sum was
// exact (large x, x = -1, infinities) and log(u) is the answer; when u == 1, x is below half an ulp of 1 and
// log1p(x) rounds to x. Within about 2 ulp of log1pf, with the same NaN / inf results.
// @kbx launch log1p_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void log1p_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float u = 1.0f + v;
	float d = u - 1.0f;
	float r;
	if (d == v)
		r = logf(u);
	else if (u == 1.0f)
		r = v;
	else
		r = logf(u) * (v / d);
	y[i] = r;
}
