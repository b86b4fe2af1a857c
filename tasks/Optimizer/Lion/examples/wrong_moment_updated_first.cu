// @kbx expect wrong
// Mistake: updates exp_avg with beta2 first and takes the sign of beta1 * (new exp_avg) +
// (1 - beta1) * grad; Lion's update must use the moment from before this step. exp_avg comes out
// right, but param moves the wrong way wherever the two signs differ: every case with a non-zero
// starting moment (test_case_3, the random draws, three_steps_weight_decay) fails.
// @kbx launch lion_update<<<max(1, cdiv(n, 256)), 256>>>(param, grad, exp_avg, n, lr, beta1, beta2, weight_decay)

extern "C" __global__ void lion_update(float *param, const float *grad, float *exp_avg, long long n, double lr,
				       double beta1, double beta2, double weight_decay)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float p = param[i], g = grad[i];
	float m = fmaf((float)(1.0 - beta2), g, exp_avg[i] * (float)beta2);
	exp_avg[i] = m;
	float u = fmaf((float)(1.0 - beta1), g, m * (float)beta1);
	float s = (float)(u > 0.0f) - (float)(u < 0.0f);
	if (weight_decay != 0.0)
		p = p * (float)(1.0 - lr * weight_decay);
	param[i] = fmaf((float)(-lr), s, p);
}
