// @kbx expect pass
// Correct alternative: log(x) = log2(x) * ln(2), with log2f (1 ulp) and one more rounding: within ~2 ulp,
// and log2f gives the same -inf / NaN / inf as logf.
// @kbx launch log_f32<<<max(1, cdiv(n, 256)), 256>>>(x, y, n)

extern "C" __global__ void log_f32(const float *__restrict__ x, float *__restrict__ y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = log2f(x[i]) * 0.6931471805599453f;
}
