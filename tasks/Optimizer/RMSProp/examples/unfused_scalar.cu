// @kbx expect pass
// Correct alternative: one element per thread, every a + alpha * b as a separately rounded
// multiply and add (__fmul_rn / __fadd_rn, no fma) and the update as p - (lr * g) / d: last-bit
// differences from PyTorch, far inside 1e-5.
// @kbx launch rmsprop_update<<<max(1, cdiv(n, 256)), 256>>>(param, grad, square_avg, n, lr, alpha, eps, weight_decay)

extern "C" __global__ void rmsprop_update(float *param, const float *grad, float *square_avg, long long n, double lr,
					  double alpha, double eps, double weight_decay)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float p = param[i], g = grad[i];
	if (weight_decay != 0.0)
		g = __fadd_rn(g, __fmul_rn((float)weight_decay, p));
	float v = __fadd_rn(__fmul_rn(square_avg[i], (float)alpha), __fmul_rn((float)(1.0 - alpha), __fmul_rn(g, g)));
	square_avg[i] = v;
	float d = __fadd_rn(__fsqrt_rn(v), (float)eps);
	param[i] = __fsub_rn(p, __fdiv_rn(__fmul_rn((float)lr, g), d));
}
