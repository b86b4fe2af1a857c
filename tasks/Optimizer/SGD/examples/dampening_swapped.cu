// @kbx expect wrong
// Mistake: scales the new gradient by dampening instead of (1 - dampening); with the default dampening = 0
// the gradient never enters the momentum buffer.
// @kbx launch sgd_step_f32<<<max(1, cdiv(n, 256)), 256>>>(param, grad, momentum_buffer, n, lr, momentum, weight_decay, dampening, nesterov)

extern "C" __global__ void sgd_step_f32(float *__restrict__ param, const float *__restrict__ grad,
					float *__restrict__ momentum_buffer, long long n, float lr, float momentum,
					float weight_decay, float dampening, int nesterov)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float p = param[i];
	float g = grad[i];
	if (weight_decay != 0.0f)
		g += weight_decay * p;
	if (momentum > 0.0f) {
		float buf = momentum_buffer[i] * momentum + dampening * g;
		momentum_buffer[i] = buf;
		g = nesterov ? g + momentum * buf : buf;
	}
	param[i] = p - lr * g;
}
