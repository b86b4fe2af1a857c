// @kbx expect wrong
// Mistake: weight decay applied like Adam's L2 penalty (g = grad + weight_decay * param, fed into
// both moments) instead of AdamW's decoupled param *= 1 - lr * weight_decay. The moments differ by
// (1 - beta) * weight_decay * param in every case with weight_decay != 0.
// @kbx scratch coef f32 [2]
// @kbx launch adamw_advance_step<<<1, 32>>>(step, coef, lr, beta1, beta2)
// @kbx launch adamw_update<<<max(1, cdiv(n, 256)), 256>>>(param, grad, exp_avg, exp_avg_sq, coef, n, beta1, beta2, eps, weight_decay)

extern "C" __global__ void adamw_advance_step(long long *step, float *coef, double lr, double beta1, double beta2)
{
	if (threadIdx.x != 0)
		return;
	long long s = step[0] + 1;
	step[0] = s;
	coef[0] = (float)(-(lr / (1.0 - pow(beta1, (double)s))));
	coef[1] = 1.0f / (float)sqrt(1.0 - pow(beta2, (double)s));
}

extern "C" __global__ void adamw_update(float *param, const float *grad, float *exp_avg, float *exp_avg_sq,
					const float *coef, long long n, double beta1, double beta2, double eps,
					double weight_decay)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float p = param[i];
	float g = fmaf((float)weight_decay, p, grad[i]);
	float m = fmaf((float)(1.0 - beta1), g, exp_avg[i] * (float)beta1);
	float v = fmaf((float)(1.0 - beta2), g * g, exp_avg_sq[i] * (float)beta2);
	float d = sqrtf(v) * coef[1] + (float)eps;
	param[i] = fmaf(coef[0], m / d, p);
	exp_avg[i] = m;
	exp_avg_sq[i] = v;
}
