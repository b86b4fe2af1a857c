// @kbx expect pass
// Correct alternative: the update runs first and takes t = step + 1 itself (thread 0 of each block
// computes the bias corrections into shared memory), and a one-thread launch advances step
// afterwards. The moments use the textbook form m = beta1 * m + (1 - beta1) * g (PyTorch's fused
// Adam writes it so; the default foreach path uses lerp) and the division by sqrt(bc2) is a
// multiplication by its reciprocal: last-bit differences, well inside 1e-5.
// @kbx launch adam_update_old_step<<<max(1, cdiv(n, 512)), 256>>>(param, grad, exp_avg, exp_avg_sq, step, n, lr, beta1, beta2, eps, weight_decay)
// @kbx launch adam_count_step<<<1, 1>>>(step)

extern "C" __global__ void adam_update_old_step(float *__restrict__ param, const float *__restrict__ grad,
						float *__restrict__ exp_avg, float *__restrict__ exp_avg_sq,
						const float *__restrict__ step, long long n, double lr, double beta1,
						double beta2, double eps, double weight_decay)
{
	__shared__ float sh[2];
	if (threadIdx.x == 0) {
		double t = (double)(step[0] + 1.0f);
		sh[0] = (float)(lr / (1.0 - pow(beta1, t)));
		sh[1] = (float)(1.0 / sqrt(1.0 - pow(beta2, t)));
	}
	__syncthreads();
	const float step_size = sh[0], inv_bc2_sqrt = sh[1];
	const float b1 = (float)beta1, w1 = (float)(1.0 - beta1);
	const float b2 = (float)beta2, w2 = (float)(1.0 - beta2);
	const float wd = (float)weight_decay, e = (float)eps;
	long long base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 2;
	for (long long i = base; i < base + 2 && i < n; i++) {
		float p = param[i], g = grad[i];
		if (weight_decay != 0.0)
			g = g + wd * p;
		float m = b1 * exp_avg[i] + w1 * g;
		float v = b2 * exp_avg_sq[i] + w2 * g * g;
		float d = sqrtf(v) * inv_bc2_sqrt + e;
		param[i] = p - step_size * m / d;
		exp_avg[i] = m;
		exp_avg_sq[i] = v;
	}
}

extern "C" __global__ void adam_count_step(float *step)
{
	step[0] = step[0] + 1.0f;
}
