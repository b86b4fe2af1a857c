// @kbx expect pass
// Correct alternative: one element per thread, the sign through copysignf with an explicit test
// that gives 0 for +-0 and NaN (PyTorch's sign), and the param update written as
// p - lr * sign: the same value as the fma, since sign is exact.
// @kbx launch lion_update<<<max(1, cdiv(n, 128)), 128>>>(param, grad, exp_avg, n, lr, beta1, beta2, weight_decay)

extern "C" __global__ void lion_update(float *param, const float *grad, float *exp_avg, long long n, double lr,
				       double beta1, double beta2, double weight_decay)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float p = param[i], g = grad[i], m = exp_avg[i];
	float u = m * (float)beta1 + (float)(1.0 - beta1) * g;
	float s = (u == 0.0f || isnan(u)) ? 0.0f : copysignf(1.0f, u);
	if (weight_decay != 0.0)
		p *= (float)(1.0 - lr * weight_decay);
	param[i] = p - (float)lr * s;
	exp_avg[i] = m * (float)beta2 + (float)(1.0 - beta2) * g;
}
