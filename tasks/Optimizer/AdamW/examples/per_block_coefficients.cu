// @kbx expect pass
// Correct alternative: one update kernel reads the step count before it is advanced and takes
// t = step + 1 itself (thread 0 of each block computes the scalars into shared memory, f32 math for
// the decay factor and a true division by sqrt(1 - beta2^t) instead of the reciprocal multiply);
// a one-thread launch advances step afterwards. Last-bit differences only.
// @kbx launch adamw_update_old_step<<<max(1, cdiv(n, 256)), 256>>>(param, grad, exp_avg, exp_avg_sq, step, n, lr, beta1, beta2, eps, weight_decay)
// @kbx launch adamw_count_step<<<1, 1>>>(step)

extern "C" __global__ void adamw_update_old_step(float *__restrict__ param, const float *__restrict__ grad,
						 float *__restrict__ exp_avg, float *__restrict__ exp_avg_sq,
						 const long long *__restrict__ step, long long n, double lr,
						 double beta1, double beta2, double eps, double weight_decay)
{
	__shared__ float sh[2];
	if (threadIdx.x == 0) {
		double t = (double)(step[0] + 1);
		sh[0] = (float)(lr / (1.0 - pow(beta1, t)));
		sh[1] = (float)sqrt(1.0 - pow(beta2, t));
	}
	__syncthreads();
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float p = param[i] * (1.0f - (float)lr * (float)weight_decay);
	float g = grad[i];
	float m = (float)beta1 * exp_avg[i] + (float)(1.0 - beta1) * g;
	float v = (float)beta2 * exp_avg_sq[i] + (float)(1.0 - beta2) * (g * g);
	float d = sqrtf(v) / sh[1] + (float)eps;
	param[i] = p - sh[0] * (m / d);
	exp_avg[i] = m;
	exp_avg_sq[i] = v;
}

extern "C" __global__ void adamw_count_step(long long *step)
{
	step[0] += 1;
}
