// One SGD step, f32, elementwise and memory bound: one element per thread.
// Every PyTorch op here is `a + alpha * b` in f32 (nvcc contracts it to one fma), so each update is
// written as an fmaf and rounded to f32 once per op, in PyTorch's order:
//   g = fma(weight_decay, p, g)                 only if weight_decay != 0
//   buf = fma(1 - dampening, g, buf * momentum)  only if momentum > 0 (mul_ then add_: two roundings)
//   g = nesterov ? fma(momentum, buf, g) : buf
//   p = fma(-lr, g, p)
// With momentum <= 0 the buffer is neither read nor written.

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
		g = fmaf(weight_decay, p, g);
	if (momentum > 0.0f) {
		float buf = momentum_buffer[i] * momentum;
		buf = fmaf(1.0f - dampening, g, buf);
		momentum_buffer[i] = buf;
		g = nesterov ? fmaf(momentum, buf, g) : buf;
	}
	param[i] = fmaf(-lr, g, p);
}
