// @kbx expect wrong
// Mistake: always adds weight_decay * param, even when weight_decay == 0 (PyTorch skips the add): the
// result is the same for finite params, but an infinite param gives 0 * inf = NaN in g, so only the
// special-value cases (special_momentum, special_no_momentum) fail.
// @kbx launch sgd_step_f32<<<max(1, cdiv(n, 256)), 256>>>(param, grad, momentum_buffer, n, lr, momentum, weight_decay, dampening, nesterov)

extern "C" __global__ void sgd_step_f32(float *__restrict__ param, const float *__restrict__ grad,
					float *__restrict__ momentum_buffer, long long n, float lr, float momentum,
					float weight_decay, float dampening, int nesterov)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float p = param[i];
	float g = fmaf(weight_decay, p, grad[i]);
	if (momentum > 0.0f) {
		float buf = fmaf(1.0f - dampening, g, momentum_buffer[i] * momentum);
		momentum_buffer[i] = buf;
		g = nesterov ? fmaf(momentum, buf, g) : buf;
	}
	param[i] = fmaf(-lr, g, p);
}
