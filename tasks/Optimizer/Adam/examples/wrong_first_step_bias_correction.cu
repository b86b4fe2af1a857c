// @kbx expect wrong
// Mistake: takes the bias corrections of the first step (1 - beta1, 1 - beta2) whatever step holds,
// a shortcut that looks right on the perf workload (a fresh optimizer per call) and on every single
// step from a fresh state; step is advanced correctly. Mid-run cases (t = 100) and the three-step
// cases (t = 2 and 3 on the second and third call) fail.
// @kbx launch adam_first_step<<<max(1, cdiv(n, 256)), 256>>>(param, grad, exp_avg, exp_avg_sq, step, n, lr, beta1, beta2, eps, weight_decay)

extern "C" __global__ void adam_first_step(float *param, const float *grad, float *exp_avg, float *exp_avg_sq,
					   float *step, long long n, double lr, double beta1, double beta2, double eps,
					   double weight_decay)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	/* every thread used to read step for nothing; only block 0 writes it, nobody else reads it */
	if (i == 0)
		step[0] = step[0] + 1.0f;
	if (i >= n)
		return;
	float step_size = (float)(-(lr / (1.0 - beta1)));
	float bc2_sqrt = (float)sqrt(1.0 - beta2);
	float p = param[i], g = grad[i], m = exp_avg[i], v = exp_avg_sq[i];
	if (weight_decay != 0.0)
		g = fmaf((float)weight_decay, p, g);
	float w1 = (float)(1.0 - beta1);
	m = w1 < 0.5f ? fmaf(w1, g - m, m) : fmaf(-(g - m), 1.0f - w1, g);
	v = fmaf((float)(1.0 - beta2), g * g, v * (float)beta2);
	float d = sqrtf(v) / bc2_sqrt + (float)eps;
	param[i] = fmaf(step_size, m / d, p);
	exp_avg[i] = m;
	exp_avg_sq[i] = v;
}
